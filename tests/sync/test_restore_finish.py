"""A restored station whose catching up a manager ended while a peer still held its lost events
(issue #29, item 2): the fork is found, and its exception says what happened (two histories of
the station, most often a restore), not "a copy of its join bundle"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_booth
from tests.sync.conftest import ENVIRON, build_hall
from tests.sync.test_twin_station import serving

ENV = {**ENVIRON, "BOOTH_OPERATOR": "M1"}


def booth(hall: Path, *args: str) -> Any:
    ran = run_booth("--hall", str(hall), *args, "--json", env=ENV)
    assert ran.exit_code in (0, 4), (args, ran.stdout, ran.stderr)
    return json.loads(ran.stdout)


def test_a_restore_ended_by_hand_while_a_peer_held_its_events_is_named_as_two_histories(
    tmp_path: Path,
) -> None:
    built = build_hall(tmp_path, ["booth-1"])
    manager, booth1 = built.stations["manager"], built.stations["booth-1"]
    with serving(booth1) as url:
        booth(manager, "sync", "now", "--peer", url)
    stick = tmp_path / "stick"
    stick.mkdir()
    folder = booth(booth1, "backup", str(stick))["path"]
    booth(booth1, "sell", "D-BOOTH-1", "--qty", "1", "--as", "S1")
    with serving(booth1) as url:
        assert booth(manager, "sync", "now", "--peer", url)[0]["applied"] == 1

    restored = tmp_path / "booth-1-restored"
    assert run_booth("restore", folder, "--hall", str(restored), env=ENV).exit_code == 0
    booth(restored, "sync", "finish-restore")  # no peer asked: the manager's decision
    # Another sale under the lost one's numbers (the same one, on the training clock, would be
    # the very same signed event).
    booth(restored, "sell", "D-BOOTH-1", "--qty", "2", "--as", "S1")
    with serving(restored) as url:
        [pulled] = booth(manager, "sync", "now", "--peer", url)
    assert "went back" in (pulled["restarted"] or ""), pulled
    assert pulled["refused"] == 1, pulled

    forks = [e for e in booth(manager, "exception", "list") if e["kind"] == "fork"]
    assert [f["subject"] for f in forks] == ["two histories of station booth-1 (booth-1)"]
    assert "restored from an older backup" in forks[0]["detail"], forks
    assert "join bundle" not in forks[0]["detail"], forks

    with serving(manager) as url:
        booth(restored, "sync", "now", "--peer", url)
    own = [e for e in booth(restored, "exception", "list") if e["kind"] == "fork"]
    assert [f["subject"] for f in own] == ["two histories of this station (booth-1)"], own
