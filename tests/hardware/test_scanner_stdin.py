"""The development scanner: lines from a text stream."""

from __future__ import annotations

import io
import os
import time

from hardware.scanner.stdin import StdinScanner
from tests.hardware.helpers import Collector, wait_until


def test_lines_are_scans_and_an_unterminated_last_line_is_partial() -> None:
    scanner = StdinScanner(io.StringIO("A123456/0042/10000\n\nB2\r\nC3"))
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    wait_until(lambda: not scanner.running, "the end of the input")
    scanner.stop()
    assert got.scans == ["A123456/0042/10000", "B2"]
    assert len(got.errors) == 1 and "partial scan 'C3'" in got.errors[0]
    assert got.threads == {"booth-scanner-stdin"}


def test_a_pipe_is_read_as_it_comes_and_stop_does_not_wait_for_input() -> None:
    read_fd, write_fd = os.pipe()
    with open(read_fd, encoding="utf-8") as stream:
        scanner = StdinScanner(stream, poll=0.01)
        got = Collector()
        scanner.start(got.on_scan, got.on_error)
        try:
            os.write(write_fd, b"X1\nY")
            os.write(write_fd, b"2\r\n")
            assert got.wait_scans(2) == ["X1", "Y2"]
        finally:
            began = time.monotonic()
            scanner.stop()  # blocked on an open, silent pipe
            assert time.monotonic() - began < 1.0
            os.close(write_fd)
    assert got.errors == []


def test_the_end_of_a_pipe_ends_the_scanner() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"LAST\nHALF")
    os.close(write_fd)
    with open(read_fd, encoding="utf-8") as stream:
        scanner = StdinScanner(stream, poll=0.01)
        got = Collector()
        scanner.start(got.on_scan, got.on_error)
        wait_until(lambda: not scanner.running, "the end of the input")
        scanner.stop()
    assert got.scans == ["LAST"]
    assert "partial scan 'HALF'" in got.errors[0]
