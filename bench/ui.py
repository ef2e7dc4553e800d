"""UI benchmark (run by hand): cold start to the first frame, and tap to the next screen.

    .venv/bin/python bench/ui.py [--runs 5] [--taps 30]

Offscreen rendering (SDL's offscreen driver over Mesa), so no display is needed; a real screen
with a GPU is faster. Targets: cold start under 2 s, tap to next screen under 100 ms (medians).

- cold start: a fresh `python` process starts the booth's front end on a demo hall
  (`kiosk.app.run`, headless) and reports when its first frame with content has been drawn;
  timed from just before the process is spawned (interpreter start, imports, opening the
  station, building the screens, the first view-model, the first frame).
- tap to next screen: in this process, a touch on a tab (or the kiosk's scan of a player card),
  until the next screen's view-model has come back from the station worker and the frame
  showing it has been drawn.
- the kiosk's money and checks (issue #20): a tap on "Buy 2 · $2.00" until the pay screen shows
  the price (target < 100 ms), and a ticket scanned at the idle screen until its check result is
  drawn (target < 150 ms); each also as a ratio to the floor measured in the same run: an empty
  job through the station worker and back, and one frame drawn.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = """
import os, sys, time
started = time.perf_counter()
from pathlib import Path
from kiosk.app import run

def first_frame():  # os.write: Kivy takes over sys.stdout and sys.stderr
    os.write(1, f"FIRST_FRAME {time.perf_counter() - started:.4f}\\n".encode())

run(Path(sys.argv[1]), headless=True, exit_after=0.3, on_first_frame=first_frame)
"""


def make_hall(base: Path) -> Path:
    from pos.services.demo import run_demo

    hall = base / "hall"
    run_demo(hall)
    return hall


def cold_starts(hall: Path, runs: int, kivy_home: Path) -> tuple[list[float], list[float]]:
    env = {**os.environ, "KIVY_HOME": str(kivy_home), "KIVY_NO_CONSOLELOG": "1"}
    env.pop("DISPLAY", None)
    walls, inside = [], []
    for _ in range(runs):
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(hall / "booth-1")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith("FIRST_FRAME"):
                walls.append(time.perf_counter() - started)
                inside.append(float(line.split()[1]))
                break
        child.wait(60)
        if child.returncode != 0 or len(walls) < len(inside) or not walls:
            raise SystemExit(f"the front end exited {child.returncode} without a first frame")
    return walls, inside


def taps(hall: Path, count: int, kivy_home: Path) -> tuple[list[float], list[float]]:
    from kiosk import env

    env.prepare(headless=True, home=kivy_home, quiet=True)  # 60 fps, as on a screen
    from datetime import timedelta

    from kivy.base import EventLoop
    from kivy.core.window import Window
    from kivy.tests.common import UnitTestTouch

    from hardware.scanner.fake import FakeScanner
    from kiosk.runtime import StationRuntime
    from kiosk.ui.front import Front
    from pos.clock import FixedClock
    from pos.services.demo import DEMO_START

    clock = FixedClock(DEMO_START + timedelta(hours=1, minutes=5))
    EventLoop.ensure_window()

    def open_front(directory: Path) -> tuple[Front, FakeScanner]:
        scanner = FakeScanner()
        front = Front(StationRuntime(directory, clock=clock, scanner=scanner, printer=None))
        front.start()
        Window.add_widget(front.root)
        return front, scanner

    def shown(front: Front, screen: str) -> None:
        """Until `screen` is current, its view-model is back and the frame is drawn."""
        worker = front.runtime.worker
        assert worker is not None
        while True:
            EventLoop.idle()
            if (
                front.screens.current == screen
                and worker.pending == 0
                and front.poster.pending == 0
            ):
                EventLoop.idle()
                return

    def tap(front: Front, ident: str) -> None:
        widget = next(w for w in front.root.walk() if getattr(w, "ident", "") == ident)
        touch = UnitTestTouch(*widget.to_window(*widget.center))
        touch.touch_down()
        touch.touch_up()

    booth, _ = open_front(hall / "booth-1")
    booth.log_in(booth.runtime.worker_call(_seller))
    shown(booth, "sell")
    tabs = ["winners", "sell", "devices", "seal", "void", "sell"]
    booth_times = []
    for n in range(count):
        target = tabs[n % len(tabs)]
        started = time.perf_counter()
        tap(booth, f"tab-{target}")
        shown(booth, target)
        booth_times.append(time.perf_counter() - started)
    booth.stop()
    Window.remove_widget(booth.root)

    kiosk, scanner = open_front(hall / "kiosk-1")
    shown(kiosk, "idle")
    kiosk_times = []
    for _ in range(count):
        started = time.perf_counter()
        scanner.scan("C-1001")
        shown(kiosk, "games")
        kiosk_times.append(time.perf_counter() - started)
        tap(kiosk, "done")
        shown(kiosk, "idle")
    kiosk.stop()
    Window.remove_widget(kiosk.root)
    return booth_times, kiosk_times


def kiosk_money(hall: Path, count: int) -> dict[str, list[float]]:
    """Tap to price shown, ticket scan to check result, and the floor (worker round trip and
    one frame), on the demo kiosk (in this process, after `taps` set Kivy up)."""
    from datetime import timedelta

    from kivy.base import EventLoop
    from kivy.core.window import Window
    from kivy.tests.common import UnitTestTouch

    from hardware.scanner.fake import FakeScanner
    from kiosk.runtime import StationRuntime
    from kiosk.ui.front import Front
    from pos.clock import FixedClock
    from pos.services.demo import DEMO_START

    clock = FixedClock(DEMO_START + timedelta(hours=1, minutes=5))
    scanner = FakeScanner()
    front = Front(StationRuntime(hall / "kiosk-1", clock=clock, scanner=scanner, printer=None))
    front.start()
    Window.add_widget(front.root)

    def find(ident: str) -> object:
        return next(w for w in front.root.walk() if getattr(w, "ident", "") == ident)

    def until(done: object) -> None:
        while True:
            EventLoop.idle()
            if front.runtime.worker.pending == 0 and front.poster.pending == 0 and done():  # type: ignore[operator,union-attr]
                EventLoop.idle()
                return

    def tap(ident: str) -> None:
        widget = find(ident)
        touch = UnitTestTouch(*widget.to_window(*widget.center))  # type: ignore[attr-defined]
        touch.touch_down()
        touch.touch_up()

    until(lambda: front.screens.current == "idle")
    scanner.scan("C-1001")
    until(lambda: front.screens.current == "games")
    found: dict[str, list[float]] = {"price": [], "check": [], "floor": []}
    for _ in range(count):
        started = time.perf_counter()
        tap("buy-A100003-2")
        until(lambda: front.screens.current == "pay" and find("pay-title").text == "Buy 2 · $2.00")  # type: ignore[attr-defined]
        found["price"].append(time.perf_counter() - started)
        tap("pay-cancel")
        until(lambda: front.screens.current == "games")
        started = time.perf_counter()
        box: list[object] = []
        front.call(lambda st: None, box.append)
        until(partial(bool, box))
        found["floor"].append(time.perf_counter() - started)
    tap("done")
    until(lambda: front.screens.current == "idle")
    for _ in range(count):
        started = time.perf_counter()
        scanner.scan("A100003/0005/1000")
        until(
            lambda: (
                front.screens.current == "check" and find("check-headline").text == "WINNER $10.00"
            )
        )  # type: ignore[attr-defined]
        found["check"].append(time.perf_counter() - started)
        tap("back-done")
        until(lambda: front.screens.current == "idle")
    front.stop()
    Window.remove_widget(front.root)
    return found


def _seller(st: object) -> object:
    from kiosk.local import LocalSettings
    from kiosk.viewmodels.booth import login

    return login(st, "S200", LocalSettings(), roles=("seller",))  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts")
    parser.add_argument("--taps", type=int, default=30, help="taps per front end")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="booth-bench-ui-"))
    try:
        hall = make_hall(base)
        walls, inside = cold_starts(hall, args.runs, base / "kivy-cold")
        booth_taps, kiosk_taps = taps(hall, args.taps, base / "kivy")
        money = kiosk_money(hall, args.taps)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    cold = statistics.median(walls)
    tab = statistics.median(booth_taps) * 1000
    scan = statistics.median(kiosk_taps) * 1000
    say(f"UI benchmark (offscreen Mesa llvmpipe, {os.cpu_count()} cores)")
    say(
        f"  cold start to first frame: median {cold:.2f} s over {len(walls)} runs "
        f"(in-process part {statistics.median(inside):.2f} s; min {min(walls):.2f}, "
        f"max {max(walls):.2f})  target < 2 s: {'ok' if cold < 2 else 'MISSED'}"
    )
    say(
        f"  booth tap on a tab to next screen drawn: median {tab:.0f} ms over "
        f"{len(booth_taps)} (p90 {_p90(booth_taps) * 1000:.0f} ms)  target < 100 ms: "
        f"{'ok' if tab < 100 else 'MISSED'}"
    )
    say(
        f"  kiosk scan of a player card to games drawn: median {scan:.0f} ms over "
        f"{len(kiosk_taps)} (p90 {_p90(kiosk_taps) * 1000:.0f} ms)  target < 100 ms: "
        f"{'ok' if scan < 100 else 'MISSED'}"
    )
    floor = statistics.median(money["floor"]) * 1000
    say(f"  floor: an empty job through the worker and one frame: median {floor:.1f} ms")
    for key, what, target in (
        ("price", "kiosk tap on Buy to the price shown", 100),
        ("check", "kiosk scan of a ticket to its check result", 150),
    ):
        median = statistics.median(money[key]) * 1000
        say(
            f"  {what}: median {median:.0f} ms over {len(money[key])} "
            f"(p90 {_p90(money[key]) * 1000:.0f} ms) = {median / floor:.1f}x the floor  "
            f"target < {target} ms: {'ok' if median < target else 'MISSED'}"
        )


def say(line: str) -> None:
    """Print past Kivy, which takes over sys.stdout and sys.stderr once imported."""
    os.write(1, (line + "\n").encode())


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


if __name__ == "__main__":
    main()
