"""Scans typed (or piped) as lines on a text stream: the development scanner.

Each line is a scan; an empty line is none. A last line without its newline at the end of the
input is a partial scan, reported and not delivered, as a scan without its Enter would be. At the
end of the input the scanner's thread ends by itself.

A stream with a real file descriptor (the terminal, a pipe) is polled with select() so that
`stop()` returns promptly; any other stream (io.StringIO) is read line by line.
"""

from __future__ import annotations

import io
import logging
import os
import select
import sys
from pathlib import Path
from typing import TextIO

from hardware.scanner.base import (
    BadScannerSpec,
    LineAssembler,
    PartialScan,
    ThreadedScanner,
    UnreadableScan,
)

logger = logging.getLogger(__name__)


class StdinScanner(ThreadedScanner):
    """Lines from `stream` (default: sys.stdin at start())."""

    kind = "stdin"

    def __init__(self, stream: TextIO | None = None, *, poll: float = 0.1) -> None:
        super().__init__()
        self.stream = stream
        self.poll = poll

    def describe(self) -> str:
        return "scanner stdin"

    def _run(self) -> None:
        stream = self.stream if self.stream is not None else sys.stdin
        fd = _selectable_fd(stream)
        if fd is None:
            self._read_lines(stream)
        else:
            self._read_fd(fd)

    def _read_lines(self, stream: TextIO) -> None:
        while not self._stopping.is_set():
            line = stream.readline()
            if not line:
                return
            if not line.endswith("\n"):
                self._partial(line.rstrip("\r"))
                return
            text = line.rstrip("\r\n")
            if text:
                self._deliver(text)

    def _read_fd(self, fd: int) -> None:
        lines = LineAssembler()
        while not self._stopping.is_set():
            ready, _, _ = select.select([fd], [], [], self.poll)
            if not ready:
                continue
            data = os.read(fd, 4096)
            if not data:
                rest = lines.reset()
                if rest:
                    self._partial(rest.decode("utf-8", "replace"))
                return
            for line in lines.feed(data):
                if isinstance(line, UnreadableScan):
                    self._report(f"{self.describe()}: {line}")
                else:
                    self._deliver(line)

    def _partial(self, text: str) -> None:
        self._report(
            PartialScan(
                f"{self.describe()}: partial scan {text!r} discarded: input ended without Enter"
            )
        )


def _selectable_fd(stream: TextIO) -> int | None:
    try:
        fd = stream.fileno()
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
    try:
        select.select([fd], [], [], 0)
    except (OSError, ValueError):  # e.g. a regular file on some systems, or Windows
        return None
    return fd


def from_spec(options: str, station_dir: Path) -> StdinScanner:
    """Entry point `booth.scanners` `stdin`: no options."""
    if options:
        raise BadScannerSpec(f"scanner stdin:{options}: stdin takes no options")
    return StdinScanner()
