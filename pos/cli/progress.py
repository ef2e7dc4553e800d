"""Progress bars for long commands (rebuild, backup, restore, export, roster import, sync): on
stderr, only when stderr is a terminal, never with --json.

The services take an optional `progress(done, total)` callback and know nothing of terminals;
this module supplies one that draws a click progress bar. A command run for a client of the
station's owner has no terminal (its output is captured), so it draws nothing. A command run
here draws on the process's own stderr, past the capture that keeps its answer, so a request's
kept answer never holds a bar.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import click

from pos.cli.common import state

Progress = Callable[[int, int], None]


def _terminal() -> TextIO | None:
    """The terminal stderr writes to, or None: not a terminal, or this command's output is
    captured for a client."""
    stream = sys.stderr
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    original: TextIO = getattr(stream, "original", stream)  # capture.Routed: past the capture
    return original


class _Bar:
    """A click progress bar made when the first total is known, redrawn as `done` moves."""

    def __init__(self, label: str, stream: TextIO) -> None:
        self.label, self.stream = label, stream
        self.bar: Any = None
        self.total = 0
        self.counted = False  # a count was written with no bar (no total known)

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:  # the source does not say how much: a count, on one line
            self.stream.write(f"\r{self.label} {done:,}")
            self.stream.flush()
            self.counted = True
            return
        if self.bar is None or total != self.total:
            self.close()
            self.total = total
            self.bar = click.progressbar(
                length=total, label=self.label, file=self.stream, show_pos=True
            )
            self.bar.__enter__()
        self.bar.update(max(0, min(done, total)) - self.bar.pos)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@contextmanager
def progress_bar(ctx: click.Context, label: str) -> Iterator[Progress | None]:
    """The callback to give a service, or None when no bar is to be drawn."""
    stream = None if state(ctx).json else _terminal()
    if stream is None:
        yield None
        return
    bar = _Bar(label, stream)
    try:
        yield bar
    finally:
        bar.close()
        if bar.counted:
            stream.write("\n")
            stream.flush()


def rebuild_lines(say: Callable[[str], None]) -> Progress:
    """For a station's owner opening a ledger whose projections another version of Booth
    made: each step of the rebuild as one line (its log has no terminal to draw on)."""

    def told(done: int, total: int) -> None:
        say(
            f"rebuilding the projections another version of Booth made: {done:,} of "
            f"{total:,} events"
        )

    return told
