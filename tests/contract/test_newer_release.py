"""A station beside a newer Booth (issue #27): the contract between releases.

The manager here plays the newer release: it records an event kind and hall-wide settings this
release does not know, as a newer release's services would, and booth-1 takes them in by sync.
booth-1 never stops on them: it keeps them, counts them, puts them on the exception list and
still syncs; and a setting that governs the money path makes it refuse sales and payments,
saying why, until it is upgraded, so a rule the hall tightened is never silently weakened.
"""

from __future__ import annotations

from pos.services import newer_release, signon
from pos.services.station import Station
from tests.contract import hall_night
from tests.contract.conftest import Night
from tests.contract.hall_night import ENVIRON, MANAGER_DIR
from tests.contract.kinds import S

SALE = ("sell", "A123456", "--qty", "1", *S)


def _newer_manager_records(night: Night, *events: tuple[str, dict[str, object]]) -> None:
    with Station(night.root / MANAGER_DIR, environ=ENVIRON) as m:
        for kind, body in events:
            m.append(kind, body)
    hall_night.sync(night.root)


def test_a_newer_event_kind_is_kept_counted_and_shown_and_nothing_stops(night: Night) -> None:
    _newer_manager_records(
        night,
        ("TournamentOpened", {"name": "Spring", "by": "M1"}),
        ("TournamentOpened", {"name": "Summer", "by": "M1"}),
    )
    with Station(night.booth.directory, environ=ENVIRON) as st:
        held = newer_release.holdings(st)
        assert held.event_count == 2 and held.settings == []
        assert held.summary() == "booth-1 holds 2 events from a newer Booth: upgrade it"
    assert night(*SALE).exit_code == 0
    listed = night("exception", "list", "--json")
    assert listed.exit_code == 0, listed.stderr
    newer = [e for e in listed.json if e["kind"] == "newer-release"]
    assert [e["subject"] for e in newer] == ["2 TournamentOpened event(s) from manager"]
    assert "upgrade it" in newer[0]["detail"]
    hall_night.sync(night.root)  # and the booth's own sale still reaches the manager
    with Station(night.root / MANAGER_DIR, environ=ENVIRON) as m:
        assert m.ledger.head("booth-1") == night_head(night)


def night_head(night: Night) -> tuple[int, str]:
    with Station(night.booth.directory, environ=ENVIRON) as st:
        return st.ledger.head("booth-1")


def test_a_newer_setting_never_stops_the_rules_and_refuses_what_it_governs(night: Night) -> None:
    _newer_manager_records(
        night,
        (
            "RulebookSettingSet",
            {"key": "weekly_prize_limit", "value": "150.00", "by": "M1", "governs": ["money"]},
        ),
    )
    rules = night("rules", "--json")
    assert rules.exit_code == 0, rules.stderr  # the old release exited 2, "is not a setting"
    before = night.last_seq()
    refused = night(*SALE)
    assert refused.exit_code == 1, (refused.stdout, refused.stderr)
    assert "weekly_prize_limit = 150.00" in refused.stderr
    assert "needs a newer Booth" in refused.stderr and "(rule UPGRADE)" in refused.stderr
    assert night.last_seq() == before
    listed = night("exception", "list", "--json").json
    assert [e["subject"] for e in listed if e["kind"] == "newer-release"] == [
        "setting weekly_prize_limit = 150.00 (set by M1)"
    ]


def test_a_newer_setting_that_governs_nothing_here_is_shown_and_selling_goes_on(
    night: Night,
) -> None:
    _newer_manager_records(
        night,
        ("RulebookSettingSet", {"key": "tournament_fee", "value": "3", "governs": ["tours"]}),
    )
    assert night(*SALE).exit_code == 0
    with Station(night.booth.directory, environ=ENVIRON) as st:
        assert newer_release.holdings(st).summary() == (
            "booth-1 holds 1 setting from a newer Booth: upgrade it"
        )


def test_a_newer_sign_on_setting_refuses_sign_on_until_upgraded(night: Night) -> None:
    _newer_manager_records(
        night,
        (
            "HouseSettingSet",
            {"key": "second-factor", "value": "face", "by": "M1", "governs": ["sign-on"]},
        ),
    )
    with Station(night.booth.directory, environ=ENVIRON) as st:
        answer = signon.sign_on(st, "M1", None)
    assert answer.person is None and answer.error is not None
    assert "second-factor = face" in answer.error.message
    assert "upgraded" in answer.error.message


def test_the_status_bar_says_to_upgrade_while_newer_events_are_held(night: Night) -> None:
    from kiosk.runtime import StationRuntime
    from kiosk.viewmodels import common

    runtime = StationRuntime(night.booth.directory)
    try:
        with Station(night.booth.directory, environ=ENVIRON) as st:
            runtime._read_link(st)
            assert runtime.state.upgrade == ""
        _newer_manager_records(night, ("TournamentOpened", {"name": "Spring", "by": "M1"}))
        with Station(night.booth.directory, environ=ENVIRON) as st:
            runtime._read_link(st)
    finally:
        runtime.stop()
    bar = common.status_bar(runtime.state, None, None)
    assert bar.link.endswith(" · Upgrade: 1 event from a newer Booth"), bar.link
    assert bar.link_colour == common.WARN
