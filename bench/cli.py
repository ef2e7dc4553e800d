"""`booth` as a whole process against a running station, against `python -c pass`.

Target (issue #15): `booth sell` and `booth deal show`, each a new process sent to the station's
running owner (`booth serve`), median at most 3x the median of `python -c pass` measured in the
same run, interleaved, on the same interpreter. Also printed: the same commands on the idle
station (no owner: the process opens the station itself), for comparison.

    .venv/bin/python bench/cli.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOOTH = str(Path(sys.executable).parent / "booth")
NOW = "2026-11-28T23:30:00Z"
TARGET = 3.0


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    env["BOOTH_NOW"] = NOW
    return env


def _time(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="booth-bench-cli-") as tmp:
        demo = Path(tmp) / "hall"
        subprocess.run([BOOTH, "demo", "--dir", str(demo)], check=True, capture_output=True)
        hall = str(demo / "booth-1")
        subjects = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "booth sell": [BOOTH, "--hall", hall, "sell", "A100001", "--qty", "1", "--as", "S200"],
            # a read of a deal needs a badge that sees it (issue #28): the seller's
            "booth deal show": [BOOTH, "--hall", hall, "deal", "show", "A100001", "--as", "S200"],
        }
        idle: dict[str, list[float]] = {name: [] for name in subjects}
        for i in range(max(5, rounds // 3)):
            for name in list(subjects)[i % 3 :] + list(subjects)[: i % 3]:
                idle[name].append(_time(subjects[name]))
        owner = subprocess.Popen(
            [BOOTH, "--hall", hall, "serve", "--port", "0", "--no-discovery"],
            env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        try:
            while not (demo / "booth-1" / "control.sock").exists():
                time.sleep(0.05)
            time.sleep(0.5)
            live: dict[str, list[float]] = {name: [] for name in subjects}
            for _ in range(3):  # warm-up, discarded
                for argv in subjects.values():
                    _time(argv)
            for i in range(rounds):
                for name in list(subjects)[i % 3 :] + list(subjects)[: i % 3]:
                    live[name].append(_time(subjects[name]))
        finally:
            os.killpg(owner.pid, signal.SIGTERM)
            owner.wait(timeout=30)
    base = statistics.median(live["python -c pass"])
    idle_base = statistics.median(idle["python -c pass"])
    print(f"bench/cli.py: {rounds} rounds, interleaved; medians")
    print(f"  {'python -c pass':<18} {base * 1000:7.1f} ms  1.00x")
    verdict = True
    for name in ("booth sell", "booth deal show"):
        median = statistics.median(live[name])
        ratio = median / base
        verdict = verdict and ratio <= TARGET
        idle_ratio = statistics.median(idle[name]) / idle_base
        print(
            f"  {name:<18} {median * 1000:7.1f} ms  {ratio:4.2f}x live "
            f"(idle station: {statistics.median(idle[name]) * 1000:6.1f} ms, {idle_ratio:4.2f}x)"
        )
    met = "met" if verdict else "NOT met"
    print(f"  target: at most {TARGET:.0f}x against a running station: {met}")


if __name__ == "__main__":
    main()
