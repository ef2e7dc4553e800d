"""A hall on two releases (issue #27): a peer that answered a sync without saying its release runs
0.1.0 or older, and reads so wherever a station's release is shown (`booth sync status`, text
and JSON; the manager's Stations tab; the phone's data), apart from a peer not heard from yet."""

from __future__ import annotations

import json
from pathlib import Path

from kiosk.viewmodels import common, manager
from pos import __version__
from pos.domain.peer_release import UNSAID, peer_release
from pos.services import dashboard as dashboard_service
from pos.services.station import Station
from sync.replicator import record_contact
from tests.conftest import TRAINING_NOW, run_booth
from tests.sync.conftest import build_hall

OLD = "Booth 0.1.0 or older (it does not say its version): upgrade it"
UNKNOWN = "Booth ? (not synced with it yet)"
ENV = {"BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "M1"}  # a manager reads the status


def test_a_release_said_unsaid_or_not_heard_yet() -> None:
    assert peer_release("0.2.0").text == "Booth 0.2.0"
    assert (peer_release(UNSAID).state, peer_release(UNSAID).text) == ("unsaid", OLD)
    assert (peer_release(None).state, peer_release(None).text) == ("unknown", UNKNOWN)
    assert peer_release(UNSAID).release is None and peer_release(None).release is None


def test_a_peer_that_answered_without_its_release_reads_as_0_1_0_or_older(tmp_path: Path) -> None:
    hall = build_hall(tmp_path, ["booth-1", "booth-2", "booth-3"])
    manager_dir = hall.stations["manager"]
    with Station(manager_dir, environ=ENV) as st, st.ledger.transaction():
        # booth-1 answered a pull and said no release, as 0.1.0 does
        record_contact(
            st.ledger, "https://10.0.0.1:8701", station="booth-1", error=None, pulled=3,
            source="static", release=None,
        )  # fmt: skip
        # booth-2 said its release; booth-3 never answered (listed, its pulls failed)
        record_contact(
            st.ledger, "https://10.0.0.2:8701", station="booth-2", error=None, pulled=0,
            source="static", release=__version__,
        )  # fmt: skip
        record_contact(
            st.ledger, "https://10.0.0.3:8701", station="booth-3", error="connection refused",
            pulled=0, source="static",
        )  # fmt: skip

    done = run_booth("--hall", str(manager_dir), "sync", "status", "--json", env=ENV)
    assert done.exit_code == 0, done.stderr
    peers = {p["station"]: p for p in json.loads(done.stdout)["peers"]}
    said = {
        name: (p["version"], p["release_state"], p["release_text"]) for name, p in peers.items()
    }
    assert said == {
        "booth-1": (None, "unsaid", OLD),
        "booth-2": (__version__, "said", f"Booth {__version__}"),
        "booth-3": (None, "unknown", UNKNOWN),
    }
    words = run_booth("--hall", str(manager_dir), "sync", "status", env=ENV).stdout
    lines = {line.split()[1]: line for line in words.splitlines() if line.startswith("https://")}
    assert f", {OLD}" in lines["booth-1"], words
    assert f", Booth {__version__}" in lines["booth-2"], words
    assert f", {UNKNOWN}" in lines["booth-3"] and "ERROR connection refused" in lines["booth-3"]
    assert "Booth ?," not in words and not words.rstrip().endswith("Booth ?")

    with Station(manager_dir, environ=ENV) as st:
        rows = {row.station: row for row in manager.dashboard(st).stations}
        phone = {s["station"]: s for s in dashboard_service.dashboard(st)["stations"]}
    assert rows["booth-1"].release_text == OLD
    assert rows["booth-1"].colour == common.WARN  # a gap in the hall: amber
    assert rows["booth-2"].release_text == f"Booth {__version__}"
    assert rows["booth-3"].release_text == UNKNOWN
    assert rows["manager"].release_text == f"Booth {__version__}"
    assert (phone["booth-1"]["release"], phone["booth-1"]["release_text"]) == (None, OLD)
    assert phone["booth-1"]["release_state"] == "unsaid"
    assert (phone["booth-3"]["release_state"], phone["booth-3"]["release_text"]) == (
        "unknown",
        UNKNOWN,
    )
    assert phone["booth-2"]["release"] == __version__


def test_a_peer_that_said_nothing_then_its_release_reads_as_it_said(tmp_path: Path) -> None:
    """Upgraded since: its next answer carries its release, and that is what shows."""
    hall = build_hall(tmp_path, ["booth-1"])
    manager_dir = hall.stations["manager"]
    for release in (None, __version__):
        with Station(manager_dir, environ=ENV) as st, st.ledger.transaction():
            record_contact(
                st.ledger, "https://10.0.0.1:8701", station="booth-1", error=None, pulled=0,
                source="static", release=release,
            )  # fmt: skip
    with Station(manager_dir, environ=ENV) as st:
        rows = {row.station: row for row in manager.dashboard(st).stations}
    assert rows["booth-1"].release_text == f"Booth {__version__}"
