"""Handing a deal over: the holder is asked over the LAN; unreachable, only a manager forces it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import run_booth
from tests.sync.conftest import ENVIRON, StationProcess, build_hall, free_port


def booth(directory: Path, *args: str) -> object:
    return run_booth("--hall", str(directory), *args, env={**ENVIRON, "BOOTH_OPERATOR": "S1"})


@pytest.mark.slow  # a station as a separate process
def test_a_deal_moves_when_its_holder_releases_it(
    tmp_path: Path, processes: list[StationProcess]
) -> None:
    hall = build_hall(tmp_path, ["booth-1", "booth-2"])
    port = free_port()
    taker = hall.stations["booth-2"]
    with Station(hall.stations["booth-1"]) as source, Station(taker) as target:
        pull(source.ledger, target.ledger)  # booth-2 knows booth-1 holds the deal
        pull(target.ledger, source.ledger)  # and booth-1 knows booth-2
    holder = StationProcess(hall.stations["booth-1"], port, "--peer", "https://127.0.0.1:1")
    processes.append(holder)
    refused = booth(taker, "sell", "D-BOOTH-1", "--qty", "1")
    assert refused.exit_code == 1 and "(rule OWNER)" in refused.stderr
    unknown = booth(taker, "handover", "D-BOOTH-1", "--bin", "drawer-5")
    assert unknown.exit_code == 1 and "address is not known" in unknown.stderr
    listed = booth(taker, "sync", "peer", "add", f"https://127.0.0.1:{port}", "--as", "M1")
    assert listed.exit_code == 0
    booth(taker, "sync", "now", "--peer", f"https://127.0.0.1:{port}")  # learns who is who
    moved = booth(taker, "handover", "D-BOOTH-1", "--bin", "drawer-5", "--json")
    assert moved.exit_code == 0, moved.stderr
    assert json.loads(moved.stdout)["from"] == "booth-1"
    assert booth(taker, "sell", "D-BOOTH-1", "--qty", "2").exit_code == 0


def test_a_dead_holder_is_overridden_only_by_a_manager_on_the_record(tmp_path: Path) -> None:
    hall = build_hall(tmp_path, ["booth-1", "booth-2"])
    taker = hall.stations["booth-2"]
    with Station(hall.stations["booth-1"]) as source, Station(taker) as target:
        pull(source.ledger, target.ledger)
    with Station(taker) as st:
        st.ledger.conn.execute(
            "INSERT INTO sync_peers (url, station, source) VALUES "
            "('https://127.0.0.1:9', 'booth-1', 'static')"
        )
    dead = booth(taker, "handover", "D-BOOTH-1", "--bin", "drawer-5")
    assert dead.exit_code == 1 and "cannot be reached" in dead.stderr
    not_manager = booth(
        taker, "handover", "D-BOOTH-1", "--bin", "drawer-5", "--force", "--reason", "booth-1 died"
    )
    assert not_manager.exit_code == 1 and "(rule ROLE)" in not_manager.stderr
    forced = booth(
        taker,
        "handover",
        "D-BOOTH-1",
        "--bin",
        "drawer-5",
        "--force",
        "--reason",
        "booth-1's disk died",
        "--as",
        "M1",
        "--json",
    )
    assert forced.exit_code == 0, forced.stderr
    assert json.loads(forced.stdout)["forced"] is True
    with Station(taker) as st:
        body = json.loads(
            st.ledger.conn.execute(
                "SELECT body FROM events WHERE type = 'DealAcquired'"
            ).fetchone()[0]
        )
    assert body["reason"] == "booth-1's disk died" and body["by"] == "M1"
