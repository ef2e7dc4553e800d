"""Where a command's output goes: the terminal, or the answer kept for its request.

`sys.stdout` and `sys.stderr` are routed once per process through `Routed` streams. A command run
for a client of the station's owner captures its output in its own context (each forwarded
command runs in a thread of its own, so commands side by side never mix their output); a
command run here can also keep a copy (tee) of what it printed, to keep as its request's answer.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class Captured:
    stdout: io.StringIO = field(default_factory=io.StringIO)
    stderr: io.StringIO = field(default_factory=io.StringIO)
    #: also write to the real streams (a command run here)
    tee: bool = False
    #: why the command may not ask for input (one run for a client of the station's owner)
    no_input: str | None = None


_current: ContextVar[Captured | None] = ContextVar("booth_captured", default=None)


class Routed(io.TextIOBase):
    """A text stream that writes to the running command's capture, if any, else to the
    process's own stream."""

    def __init__(self, original: TextIO, name: str) -> None:
        super().__init__()
        self.original = original
        self._name = name

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return "strict"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        captured = _current.get()
        return self.original.isatty() if captured is None or captured.tee else False

    def write(self, text: str) -> int:
        captured = _current.get()
        if captured is None or captured.tee:
            self.original.write(text)
        if captured is not None:
            getattr(captured, self._name).write(text)
        return len(text)

    def flush(self) -> None:
        self.original.flush()

    def fileno(self) -> int:
        if _current.get() is not None:
            raise io.UnsupportedOperation("captured output has no file descriptor")
        return self.original.fileno()


def install() -> None:
    """Route this process's stdout and stderr (once)."""
    if not isinstance(sys.stdout, Routed):
        sys.stdout = Routed(sys.stdout, "stdout")
    if not isinstance(sys.stderr, Routed):
        sys.stderr = Routed(sys.stderr, "stderr")


def input_refused() -> str | None:
    """Why the running command may not ask for input, or None when it may."""
    captured = _current.get()
    return None if captured is None else captured.no_input


@contextmanager
def capturing(*, tee: bool = False, no_input: str | None = None) -> Iterator[Captured]:
    install()
    captured = Captured(tee=tee, no_input=no_input)
    token = _current.set(captured)
    try:
        yield captured
    finally:
        _current.reset(token)
