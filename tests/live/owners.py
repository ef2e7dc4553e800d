"""Stations as users meet them: `booth` run as a separate process, beside a running owner
(`booth serve` or `booth run --headless`) that is itself a separate process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from pos.cli.client import owner_answers

BOOTH = str(Path(sys.executable).parent / "booth")
ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-11-28T23:30:00Z"  # 18:30 in the demo hall, inside its session


@dataclass
class Ran:
    exit_code: int
    stdout: str
    stderr: str


def booth(
    hall: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    stdin: str | None = None,
) -> Ran:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    full_env.update({"BOOTH_NOW": NOW, **(env or {})})
    done = subprocess.run(
        [BOOTH, "--hall", str(hall), *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        input=stdin if stdin is not None else "",
        cwd=hall.parent,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def make_demo_hall(directory: Path) -> Path:
    ran = subprocess.run(
        [BOOTH, "demo", "--dir", str(directory)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert ran.returncode == 0, ran.stderr
    return directory


answering = owner_answers


def sync_url(log: Path) -> str | None:
    found = re.search(r"on (https://\S+)", log.read_text(errors="replace"))
    return found.group(1) if found else None


@contextmanager
def owner(hall: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Path]:
    """The station's owner (`booth serve ...` or `booth run --headless ...`) as a process of
    its own, until the block ends (pass or fail); yields its log file."""
    log = hall.parent / f"{hall.name}-owner-{time.monotonic_ns()}.log"
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    full_env.update({"BOOTH_NOW": NOW, "KIVY_NO_ARGS": "1", **(env or {})})
    with log.open("w") as out:
        process = subprocess.Popen(
            [BOOTH, "--hall", str(hall), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=full_env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while not answering(hall):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the owner did not start:\n" + log.read_text()
            time.sleep(0.1)
        yield log
    finally:
        with _suppress():
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with _suppress():
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _suppress() -> suppress:
    return suppress(ProcessLookupError)
