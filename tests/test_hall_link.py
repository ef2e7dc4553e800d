"""Sync state in words (issue 20): the hall link ("Hall link: OK", "OFFLINE since 19:40" in
amber then red, "not synced yet"), `booth sync status` saying "up to date" or "N events
behind", and the day report warning when a drawer was counted for a station whose events are
not all in."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pos.clock import FixedClock
from pos.domain.hall_link import PeerSeen, behind_text, link
from pos.ledger import heads, replication
from pos.services import books_cash, reports, sessions
from pos.services.demo import DEMO_START, run_demo
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import run_booth

ZONE = ZoneInfo("America/New_York")
NOW = datetime(2026, 11, 29, 0, 40, tzinfo=UTC)  # 19:40 in the hall


def _peer(ago: float | None, error: str | None = None, **held: int) -> PeerSeen:
    contact = None if ago is None else NOW - timedelta(minutes=ago)
    return PeerSeen("booth-1", contact, error, held or None)


def test_the_link_in_words() -> None:
    assert link([], {}, NOW, ZONE).text == "Hall link: not synced yet"
    assert link([_peer(None, "refused")], {}, NOW, ZONE).level == "warn"
    ok = link([_peer(0.5)], {}, NOW, ZONE)
    assert (ok.level, ok.text) == ("ok", "Hall link: OK")
    lagging = link([_peer(0.5, **{"booth-1": 12})], {"booth-1": 9}, NOW, ZONE)
    assert lagging.text == "Hall link: OK" and lagging.behind == 3
    amber = link([_peer(5, "connection refused")], {}, NOW, ZONE)
    assert (amber.level, amber.text) == ("warn", "OFFLINE since 19:35")
    red = link([_peer(15)], {}, NOW, ZONE)
    assert (red.level, red.text) == ("error", "OFFLINE since 19:25")
    yesterday = link([_peer(26 * 60)], {}, NOW, ZONE)
    assert yesterday.text == "OFFLINE since Nov 27 17:40" and yesterday.level == "error"
    # one peer down and another answering: the hall is still reachable
    both = link([_peer(20, "timed out"), _peer(0.2)], {}, NOW, ZONE)
    assert both.text == "Hall link: OK"
    assert behind_text(0) == "up to date" and behind_text(1) == "1 event behind"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("link") / "hall"
    run_demo(directory)
    return directory


def _heard_from(st: Station, station: str, *, more: int, when: datetime) -> None:
    held = heads.last_seq(st.ledger.conn, station)
    with st.ledger.transaction():
        replication.record_contact(
            st.ledger.conn,
            f"https://{station}.local:8701",
            now=when.isoformat(),
            station=station,
            error=None,
            pulled=0,
            source="static",
            heads={station: held + more},
        )


def test_sync_status_says_up_to_date_or_events_behind(demo: Path, tmp_path: Path) -> None:
    import shutil

    hall = tmp_path / "hall"
    shutil.copytree(demo, hall)
    env = {"BOOTH_NOW": (DEMO_START + timedelta(hours=1)).isoformat()}
    with Station(hall / "manager", environ=env) as st:
        _heard_from(st, "booth-1", more=0, when=DEMO_START + timedelta(minutes=59, seconds=30))
    status = run_booth("--hall", str(hall / "manager"), "sync", "status", "--json", env=env)
    assert status.exit_code == 0, status.stderr
    assert status.json["summary"] == "up to date" and status.json["hall_link"] == "Hall link: OK"
    with Station(hall / "manager", environ=env) as st:
        _heard_from(st, "booth-1", more=4, when=DEMO_START + timedelta(minutes=59, seconds=40))
    status = run_booth("--hall", str(hall / "manager"), "sync", "status", env=env)
    assert status.stdout.splitlines()[0] == "4 events behind · Hall link: OK"
    later = {"BOOTH_NOW": (DEMO_START + timedelta(hours=1, minutes=20)).isoformat()}
    status = run_booth("--hall", str(hall / "manager"), "sync", "status", "--json", env=later)
    assert status.json["hall_link"] == "OFFLINE since 18:59"
    assert status.json["behind_by_origin"] == {"booth-1": 4}


def test_day_report_warns_of_a_drawer_counted_before_its_events_are_in(
    demo: Path, tmp_path: Path
) -> None:
    import shutil

    hall = tmp_path / "hall"
    shutil.copytree(demo, hall)
    clock = FixedClock(DEMO_START + timedelta(hours=1))
    with Station(hall / "manager", clock=clock) as st:
        books_cash.count(st, "$61.00", station="booth-1", operator="M100")  # as typed
        [warning] = reports.day_report(st, "2026-11-28")["warnings"]
    assert warning["station"] == "booth-1" and warning["counted"] == "61.00"
    assert "its close for 2026-11-28/1 is not here yet" in warning["message"]
    text = run_booth(
        "--hall",
        str(hall / "manager"),
        "report",
        "day",
        "--date",
        "11/28/2026",
        env={"BOOTH_NOW": clock.now().isoformat(), "BOOTH_OPERATOR": "M100"},
    )
    assert "! WARNING: the drawer of booth-1 was counted ($61.00)" in text.stdout
    pdf = tmp_path / "day.pdf"
    run_booth(
        "--hall", str(hall / "manager"), "report", "day", "--date", "2026-11-28",
        "--pdf", str(pdf), env={"BOOTH_NOW": clock.now().isoformat(), "BOOTH_OPERATOR": "M100"},
    )  # fmt: skip
    shown = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True)
    assert "WARNING: the drawer of booth-1 was counted" in " ".join(shown.stdout.split())
    # booth-1 closes and its events come in: no warning, until a peer says it holds more
    with Station(hall / "booth-1", clock=clock) as booth:
        sessions.close_session(booth, operator="S200")
    with (
        Station(hall / "booth-1", clock=clock) as source,
        Station(hall / "manager", clock=clock) as target,
    ):
        pull(source.ledger, target.ledger)
    with Station(hall / "manager", clock=clock) as st:
        assert reports.day_report(st, "2026-11-28")["warnings"] == []
        _heard_from(st, "booth-1", more=2, when=clock.now())
        [warning] = reports.day_report(st, "2026-11-28")["warnings"]
    assert "peers hold 2 events more of it" in warning["message"]
