"""`booth sync status`: each origin's high-water mark here and at each peer, as it last said."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_booth
from tests.sync.conftest import ENVIRON, StationProcess, build_hall, free_port

pytestmark = pytest.mark.slow  # a station as a separate process


def booth(directory: Path, *args: str) -> object:
    return run_booth("--hall", str(directory), *args, env={**ENVIRON, "BOOTH_OPERATOR": "S1"})


def test_status_shows_each_origin_here_and_at_the_peer_as_of_the_last_contact(
    tmp_path: Path, processes: list[StationProcess]
) -> None:
    hall = build_hall(tmp_path, ["booth-1", "booth-2"])
    port = free_port()
    peer = StationProcess(hall.stations["booth-2"], port, "--peer", "https://127.0.0.1:1")
    processes.append(peer)
    url = f"https://127.0.0.1:{port}"
    here = hall.stations["booth-1"]
    peer.ask("sell D-BOOTH-2 2")
    assert booth(here, "sync", "now", "--peer", url).exit_code == 0
    first = booth(here, "sync", "status", "--json").json
    (known,) = first["peers"]
    seq = first["origins"]["booth-2"]["last_seq"]
    assert known["station"] == "booth-2" and known["heads"]["booth-2"] == seq
    assert known["heads"]["manager"] >= 1 and known["heads_at"]

    peer.ask("sell D-BOOTH-2 1")
    stale = booth(here, "sync", "status", "--json").json["peers"][0]
    assert stale["heads"]["booth-2"] == seq, "what the peer said at the last contact"
    assert booth(here, "sync", "now", "--peer", url).exit_code == 0
    second = booth(here, "sync", "status", "--json").json
    assert second["peers"][0]["heads"]["booth-2"] == seq + 1
    assert second["origins"]["booth-2"]["last_seq"] == seq + 1
    human = booth(here, "sync", "status").stdout
    assert f"booth-2      seq {seq + 1} here, {seq + 1} at booth-2" in human, human
