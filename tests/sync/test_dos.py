"""Issue #16 item 1: strangers on the hall's LAN must not starve its stations.

The manager serves (`booth serve`'s SyncService, as its own process); a neighbour
(tests/sync/flood.py, its own process) holds 200 idle TCP connections that never start TLS,
from 50 addresses, and floods connects from one more. booth-1 runs `booth sync now` against the
manager 50 times meanwhile: every one must succeed. (Before: with 70 idle connections, 61 of 66
failed, blaming "our certificate".) The times are reported, not asserted: bench/dos.py measures
them against the 2 s target.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_booth
from tests.processes import end
from tests.sync.conftest import ENVIRON, ROOT, StationProcess, build_hall, free_port

CALLS = 50


def start_flood(port: int, *args: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.sync.flood", str(port), *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        end(process)
        raise RuntimeError("the flood did not start")
    return process


def stop_flood(process: subprocess.Popen[str]) -> dict[str, int]:
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("quit\n")
        process.stdin.flush()
        counts: dict[str, int] = json.loads(process.stdout.readline() or "{}")
        process.wait(timeout=30)
        return counts
    finally:
        end(process)


@pytest.mark.slow
def test_idle_strangers_and_a_connect_flood_do_not_starve_sync_now(
    tmp_path: Path, processes: list[StationProcess]
) -> None:
    hall = build_hall(tmp_path, ["booth-1"])
    port = free_port()
    manager = StationProcess(hall.stations["manager"], port, "--peer", "https://127.0.0.1:1")
    processes.append(manager)
    url = f"https://127.0.0.1:{port}"
    booth = str(hall.stations["booth-1"])
    assert run_booth("--hall", booth, "sync", "now", "--peer", url, env=ENVIRON).exit_code == 0

    flood = start_flood(port, "--idle", "200", "--seconds", "240", "--max-connects", "300000")
    failures, times = [], []
    try:
        for n in range(CALLS):
            if n % 10 == 0:
                manager.ask("sell D-MANAGER 1")  # something new to pull now and then
            started = time.monotonic()
            result = run_booth("--hall", booth, "sync", "now", "--peer", url, "--json", env=ENVIRON)
            times.append(time.monotonic() - started)
            if result.exit_code != 0:
                failures.append((n, result.exit_code, result.stdout[-300:], result.stderr[-300:]))
    finally:
        counts = stop_flood(flood)
    times.sort()
    print(
        f"\nDoS: {CALLS - len(failures)}/{CALLS} sync now succeeded under 200 idle connections "
        f"and a connect flood ({counts}); seconds p50 {statistics.median(times):.3f}, "
        f"p90 {times[int(len(times) * 0.9) - 1]:.3f}, max {times[-1]:.3f}"
    )
    assert counts.get("flooded", 0) > CALLS, f"the flood did not flood: {counts}"
    assert failures == [], failures
