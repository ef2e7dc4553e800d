"""Stations as separate processes on 127.0.0.1 find each other (zeroconf) and converge."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.sync.conftest import StationProcess, build_hall, free_port

pytestmark = pytest.mark.slow  # stations as separate processes


def wait_converged(stations: list[StationProcess], timeout: float = 60.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        answers = [station.ask("digest") for station in stations]
        if len({answer["digest"] for answer in answers}) == 1:
            return answers
        if time.monotonic() > deadline:
            raise AssertionError(f"no convergence: {answers}")
        time.sleep(0.3)


def test_three_stations_converge_after_one_was_stopped(
    tmp_path: Path, processes: list[StationProcess]
) -> None:
    hall = build_hall(tmp_path, ["booth-1", "booth-2"])
    ports = {name: free_port() for name in hall.stations}
    manager = StationProcess(hall.stations["manager"], ports["manager"])
    booth1 = StationProcess(hall.stations["booth-1"], ports["booth-1"])
    processes.extend([manager, booth1])
    # booth-2 sells while stopped (offline: no sync), the others sell meanwhile
    booth2 = StationProcess(hall.stations["booth-2"], ports["booth-2"], "--offline")
    processes.append(booth2)
    sold = 0
    for _ in range(5):
        manager.ask("sell D-MANAGER 1")
        booth1.ask("sell D-BOOTH-1 2")
        booth2.ask("sell D-BOOTH-2 3")
        sold += 3
    booth2.stop()
    booth2 = StationProcess(hall.stations["booth-2"], ports["booth-2"])
    processes.append(booth2)
    for _ in range(3):
        booth2.ask("sell D-BOOTH-2 1")
        manager.ask("sell D-MANAGER 1")
        sold += 2
    answers = wait_converged([manager, booth1, booth2])
    assert all(answer["ok"] for answer in answers)
    assert {answer["sales"] for answer in answers} == {sold}, "nothing lost, nothing doubled"


def test_the_demo_hall_converges_live_as_separate_processes(tmp_path: Path) -> None:
    from tests.conftest import run_booth

    result = run_booth("demo", "--dir", str(tmp_path / "demo"), "--live", "8", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["live"]["converged"] is True
    assert result.json["verified"] is True
    assert "No display" in result.stderr
