"""The first start after an upgrade (issue #27): a station whose projections another version of
Booth made rebuilds them once as it opens. The screen shows it from its first frame, with a
count that grows and a bar, then the station's own screen."""

from __future__ import annotations

import os
import queue
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pos.errors import StorageFailure
from pos.ledger import store
from pos.ledger.projections import ALL
from pos.ledger.store import Ledger
from tests.ui.test_run import REGISTER

pytestmark = pytest.mark.slow

CHUNK = 40  # events replayed between two steps of the rebuild (1,000 in a hall)


def _made_by_another_version(station: Path) -> int:
    """Mark the station's projections as another version's (so its next open rebuilds them,
    as after an upgrade); returns how many events it holds."""
    conn = sqlite3.connect(station / "ledger.db")
    try:
        with conn:
            conn.execute("UPDATE meta SET value = 'made-by-0.1.0' WHERE key = 'projections'")
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


def _fingerprint(station: Path) -> str:
    conn = sqlite3.connect(station / "ledger.db")
    try:
        return str(conn.execute("SELECT value FROM meta WHERE key = 'projections'").fetchone()[0])
    finally:
        conn.close()


class Steps:
    """Holds the rebuild (on the station's worker) after each step it tells, until the test
    has seen the screen show it: the test waits for events, never for time."""

    def __init__(self) -> None:
        self.told: queue.Queue[tuple[int, int]] = queue.Queue()
        self.go_on = threading.Semaphore(0)
        self.rebuilds = 0
        self.released = False

    def gate(self, progress: Callable[[int, int], None] | None) -> Callable[[int, int], None]:
        def step(done: int, total: int) -> None:
            if progress is not None:
                progress(done, total)  # the runtime's: the log line, and a post to the screen
            self.told.put((done, total))
            if not self.released:
                assert self.go_on.acquire(timeout=30), "the test never saw this step"

        return step

    def release(self) -> None:
        self.released = True
        self.go_on.release(100)


def test_the_first_start_after_an_upgrade_shows_the_rebuild_then_the_station(
    demo_hall: Path, open_front: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    station = demo_hall / "booth-1"
    events = _made_by_another_version(station)
    assert events > 3 * CHUNK, events  # enough for several steps
    monkeypatch.setattr(store, "_REBUILD_CHUNK", CHUNK)
    steps = Steps()
    original = Ledger.rebuild

    def gated(self: Ledger, *, progress: Callable[[int, int], None] | None = None) -> int:
        steps.rebuilds += 1
        return original(self, progress=steps.gate(progress))

    monkeypatch.setattr(Ledger, "rebuild", gated)
    try:
        driver = open_front(station, wait_started=False)
        # the first frame already says what is happening, before the ledger is open
        driver.until(lambda: "Starting booth-1" in driver.text())
        assert driver.screen == "None"  # no role screen yet
        seen: list[int] = []
        while not seen or seen[-1] < events:
            done, total = steps.told.get(timeout=30)
            assert total == events
            count = f"{done:,} of {total:,} events"
            driver.until(lambda count=count: driver.find("start-up-count").text == count)
            words = "Bringing the records up to date for this version of Booth"
            assert driver.find("start-up-detail").text == words
            bar = driver.find("start-up-bar")
            assert bar.opacity == 1 and bar.value == pytest.approx(done / total)
            if len(seen) == 1:  # midway: what a technician sees during a long rebuild
                files = driver.shot("start-up-rebuilding", settle=False)
            seen.append(done)
            steps.go_on.release()
    finally:
        steps.release()
    assert seen == sorted(seen) and len(set(seen)) >= 3, seen  # a count that grows
    assert seen[-1] == events

    driver.until_started()
    assert driver.screen == "login"
    text = driver.text()
    assert "Starting booth-1" not in text and "Bringing the records" not in text
    assert "start-up-bar" not in driver.idents()
    driver.shot("start-up-then-login")
    assert steps.rebuilds == 1 and _fingerprint(station) == ALL.fingerprint
    assert [f.name for f in files] == [
        "start-up-rebuilding-800x480.png",
        "start-up-rebuilding-1920x1080.png",
    ]

    # the next start finds them up to date: nothing rebuilt, straight to the station's screen
    driver.close()
    again = open_front(station)
    assert again.screen == "login" and steps.rebuilds == 1


def test_a_station_that_cannot_open_says_why_instead_of_its_screens(
    demo_hall: Path, open_front: Any
) -> None:
    station = demo_hall / "booth-1"
    (station / "ledger.db").rename(station / "ledger.db.moved")
    with pytest.raises(StorageFailure, match="ledger"):
        open_front(station)


def test_booth_run_rebuilds_once_says_so_in_its_log_and_shoots_the_station_screen(
    demo_hall: Path, tmp_path: Path
) -> None:
    """`booth run --headless --screenshot`: the shot is the station's first frame once open
    (the start-up screen before it is not what a screenshot of a station is for)."""
    station = demo_hall / "booth-1"
    events = _made_by_another_version(station)
    shot = tmp_path / "first.png"
    argv = [
        "--hall", str(station), "run", "--headless",
        "--exit-after", "0.2", "--screenshot", str(shot),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "KIVY_NO_CONSOLELOG"}  # its log
    env["KIVY_HOME"] = str(tmp_path / "kivy")
    done = subprocess.run(
        [sys.executable, "-c", REGISTER + f"main({argv!r})"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if "rebuilding the projections" in line]
    assert len(said) == 1 and said[0].endswith(f"{events:,} of {events:,} events"), said
    assert _fingerprint(station) == ALL.fingerprint
    with Image.open(shot) as image:
        assert image.size == (800, 480)
        assert len(image.convert("L").getcolors(256) or ()) > 10, "a blank frame"
