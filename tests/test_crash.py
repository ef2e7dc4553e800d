"""Kill a station with SIGKILL at random moments: no acknowledged sale is ever lost.

A child process (tests/crash_child.py) appends sale-sized events and acknowledges each one on
stdout only after `append` returned, i.e. after the commit. The parent kills it with SIGKILL,
sometimes during start-up, mostly in the middle of its append loop, and at the end checks that
the ledger holds every acknowledged event, with no gap, verifies, and rebuilds to the same rows.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

from pos.ledger.verify import verify
from pos.services.station import Station
from tests.conftest import TRAINING_NOW

pytestmark = pytest.mark.slow  # 60 processes killed mid-append

REPOSITORY = Path(__file__).resolve().parent.parent
ROUNDS = 60
SEED = 20261128
STARTUP_KILL_SHARE = 0.3  # of rounds killed at a random moment after spawning
STARTUP_WINDOW_S = 0.25  # start-up (interpreter, imports, opening the station) takes ~0.2 s
LOOP_WINDOW_S = 0.25  # the other rounds die this long (at most) into the append loop
OPEN_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Ack:
    origin: str
    seq: int
    hash: str
    round: int
    counter: int


@dataclass
class Round:
    number: int
    lines: list[str] = field(default_factory=list)
    opened: threading.Event = field(default_factory=threading.Event)
    alive_when_killed: bool = False
    returncode: int | None = None
    stderr: str = ""

    def acks(self) -> list[Ack]:
        acks = []
        for line in self.lines:
            words = line.split()
            if words[0] == "ack":
                origin, seq, event_hash, counter = words[1:]
                acks.append(Ack(origin, int(seq), event_hash, self.number, int(counter)))
        return acks

    @property
    def moment(self) -> str:
        """Where the SIGKILL landed, as far as the child's last complete line tells."""
        if not self.opened.is_set():
            return "start-up"
        if self.lines[-1] == "begin":
            return "mid-append"
        return "between appends"


def _collect_lines(stream: IO[str], into: Round) -> None:
    for line in stream:
        # A line cut short by the kill has no newline: the child never finished saying it.
        if line.endswith("\n"):
            into.lines.append(line.rstrip("\n"))
            if line == "open\n":
                into.opened.set()


def _run_round(hall_dir: Path, number: int, rng: random.Random) -> Round:
    result = Round(number)
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_child", str(hall_dir), str(number)],
        cwd=REPOSITORY,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    reader = threading.Thread(target=_collect_lines, args=(child.stdout, result))
    reader.start()
    try:
        if rng.random() < STARTUP_KILL_SHARE:
            time.sleep(rng.uniform(0.0, STARTUP_WINDOW_S))
        else:
            deadline = time.monotonic() + OPEN_TIMEOUT_S
            while not result.opened.wait(0.01):
                if child.poll() is not None or time.monotonic() > deadline:
                    break
            time.sleep(rng.uniform(0.0, LOOP_WINDOW_S))
        result.alive_when_killed = child.poll() is None
        child.send_signal(signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        result.returncode = child.wait()
        reader.join()
        result.stderr = child.stderr.read()
        child.stdout.close()
        child.stderr.close()
    return result


def test_sigkill_never_loses_an_acknowledged_event(hall_dir: Path) -> None:
    rng = random.Random(SEED)
    started = time.monotonic()
    rounds = [_run_round(hall_dir, number, rng) for number in range(1, ROUNDS + 1)]
    elapsed = time.monotonic() - started

    for round_ in rounds:
        assert round_.alive_when_killed, (
            f"round {round_.number}: the child exited by itself ({round_.returncode}):\n"
            f"{round_.stderr}"
        )
        assert round_.returncode == -signal.SIGKILL
    moments = Counter(round_.moment for round_ in rounds)
    # Otherwise the test could pass without ever having interrupted a commit.
    assert moments["start-up"] >= 5, moments
    assert moments["mid-append"] >= 15, moments
    acks = [ack for round_ in rounds for ack in round_.acks()]
    assert len(acks) >= 100, f"only {len(acks)} appends acknowledged in {elapsed:.1f} s"
    print(f"{ROUNDS} kills in {elapsed:.1f} s, {len(acks)} appends acknowledged: {moments}")

    with Station(hall_dir, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        ledger = st.ledger
        for ack in acks:
            event = ledger.get(ack.origin, ack.seq)
            assert event is not None, f"acknowledged {ack} is not in the ledger"
            assert event.hash == ack.hash
            assert (event.body["round"], event.body["counter"]) == (ack.round, ack.counter)

        seqs = [event.seq for event in ledger.origin_events(st.id)]
        assert seqs == list(range(1, len(seqs) + 1))
        assert {ack.origin for ack in acks} == {st.id}
        assert max(ack.seq for ack in acks) <= seqs[-1]

        report = verify(ledger)
        assert report.ok, report.problems
        assert report.origins[st.id].last_seq == seqs[-1]

        projected = ledger.projection_rows()
        ledger.rebuild()
        assert ledger.projection_rows() == projected
