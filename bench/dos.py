"""Benchmark of a station under a LAN denial of service (issue #16, item 1). Run by hand, never
by the tests (tests/sync/test_dos.py asserts the successes, not the times):

    .venv/bin/python bench/dos.py                 # 50 calls, 200 idle connections, a flood
    .venv/bin/python bench/dos.py --calls 20 --idle 70

On loopback: the manager station serves (SyncService, as `booth serve` runs it, its own
process); a neighbour (tests/sync/flood.py, its own process) holds --idle (200) TCP connections
that never start TLS, from 50 addresses (127.0.1.x), reopening each one the station closes, and
floods connects from one more address (127.0.0.9). Meanwhile booth-1 runs `booth sync now
--peer` against the manager --calls (50) times, each as its own process, as a manager would.

It prints how many calls succeeded, their times (p50, p90, max: process start-up included) and
how many took 2 s or less, beside the same calls with no attack, measured in the same run.
Targets: 100% succeed, each within 2 s.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds a sync.py: off the path, or `import sync` would find it instead of the package
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from tests.processes import end  # noqa: E402
from tests.sync.conftest import ENVIRON, StationProcess, build_hall, free_port  # noqa: E402

BOOTH_CLI = str(Path(sys.executable).with_name("booth"))
TARGET = 2.0


def sync_now(station: Path, url: str) -> tuple[bool, float, str]:
    started = time.perf_counter()
    result = subprocess.run(
        [BOOTH_CLI, "--hall", str(station), "sync", "now", "--peer", url, "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, **ENVIRON},
        timeout=60,
    )
    return result.returncode == 0, time.perf_counter() - started, result.stdout[-200:]


def series(name: str, results: list[tuple[bool, float, str]]) -> None:
    times = sorted(t for _, t, _ in results)
    ok = sum(1 for good, _, _ in results if good)
    within = sum(1 for good, t, _ in results if good and t <= TARGET)
    p90 = times[max(0, int(len(times) * 0.9) - 1)]
    print(
        f"{name:<34} {ok}/{len(results)} succeeded ({100 * ok / len(results):.0f}%), "
        f"{within}/{len(results)} within {TARGET:.0f} s; "
        f"p50 {statistics.median(times):.3f} s, p90 {p90:.3f} s, max {times[-1]:.3f} s"
    )
    for good, _, out in results:
        if not good:
            print(f"  failed: {out!r}")
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--baseline-calls", type=int, default=10)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="booth-dos-"))
    manager: StationProcess | None = None
    flood: subprocess.Popen[str] | None = None
    try:
        hall = build_hall(work / "hall", ["booth-1"])
        port = free_port()
        manager = StationProcess(hall.stations["manager"], port, "--peer", "https://127.0.0.1:1")
        url = f"https://127.0.0.1:{port}"
        booth = hall.stations["booth-1"]
        baseline = [sync_now(booth, url) for _ in range(args.baseline_calls)]
        flood = subprocess.Popen(
            [
                *(sys.executable, "-m", "tests.sync.flood", str(port), "--idle", str(args.idle)),
                *("--seconds", "600", "--max-connects", "1000000"),
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert flood.stdin is not None and flood.stdout is not None
        flood.stdout.readline()  # ready: every idle connection open
        attacked = []
        for n in range(args.calls):
            if n % 10 == 0:
                manager.ask("sell D-MANAGER 1")  # something new to pull now and then
            attacked.append(sync_now(booth, url))
        flood.stdin.write("quit\n")
        flood.stdin.flush()
        counts = json.loads(flood.stdout.readline() or "{}")
        print(
            f"DoS on loopback: {args.idle} idle connections that never start TLS (from 50 "
            f"addresses) and a connect flood from one address; `booth sync now` as a process"
        )
        print(
            f"the neighbour made {counts.get('connects', '?')} connections "
            f"({counts.get('flooded', '?')} flooding, {counts.get('reopened', '?')} idle reopened)"
        )
        series("no attack", baseline)
        series("under attack", attacked)
        ratio = statistics.median(t for _, t, _ in attacked) / statistics.median(
            t for _, t, _ in baseline
        )
        print(f"median under attack / no attack: {ratio:.2f}x")
    finally:
        if flood is not None:
            end(flood)
        if manager is not None:
            manager.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
