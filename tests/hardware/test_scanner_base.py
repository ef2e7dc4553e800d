"""The shared machinery: reconnecting with backoff, saying each problem once, line assembly."""

from __future__ import annotations

import threading

import pytest

from hardware.scanner.base import (
    Backoff,
    LineAssembler,
    ReconnectingScanner,
    ScannerError,
    ScannerNotFound,
    UnreadableScan,
)
from tests.hardware.helpers import Collector, wait_until


class Scripted(ReconnectingScanner[str]):
    """Opens fail as scripted (an exception per attempt, None to succeed); each read delivers
    one scan, then raises if scripted to, else waits for stop()."""

    kind = "scripted"

    def __init__(self, opens: list[Exception | None], reads: list[Exception | None]) -> None:
        super().__init__(retry_initial=0.001, retry_max=0.004)
        self.opens = opens
        self.reads = reads
        self.closed = 0
        self.attempts = 0

    def _open(self) -> str:
        self.attempts += 1
        outcome = self.opens.pop(0) if self.opens else None
        if outcome is not None:
            raise outcome
        return "handle"

    def _read(self, handle: str) -> ScannerError | None:
        self._deliver(f"scan {self.attempts}")
        outcome = self.reads.pop(0) if self.reads else None
        if outcome is not None:
            raise outcome
        self._stopping.wait()
        return None

    def _close(self, handle: str) -> None:
        self.closed += 1


def test_a_problem_is_said_once_however_many_retries() -> None:
    missing = ScannerNotFound("scanner scripted not found")
    scanner = Scripted([missing] * 10 + [None], [])
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    got.wait_scans(1)
    scanner.stop()
    assert scanner.attempts == 11
    assert got.errors == ["scanner scripted not found"]
    assert scanner.closed == 1


def test_library_surprises_are_reported_and_the_scanner_carries_on() -> None:
    scanner = Scripted([ValueError("odd descriptor"), None, None], [KeyError("boom"), None])
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    got.wait_scans(2)
    scanner.stop()
    assert got.errors[0] == "scanner scripted cannot be opened (ValueError: odd descriptor)"
    assert got.errors[1] == "scanner scripted failed (KeyError: 'boom')"
    assert scanner.closed == 2  # closed after the failed read, and at stop


def test_a_failing_error_handler_does_not_stop_the_scanner() -> None:
    scanner = Scripted([ScannerNotFound("away"), None], [])
    scans: list[str] = []

    def bad_handler(message: str) -> None:
        raise RuntimeError("the screen is gone")

    scanner.start(scans.append, bad_handler)
    wait_until(lambda: bool(scans), "a scan")
    scanner.stop()


def test_backoff_doubles_up_to_its_maximum_and_resets() -> None:
    backoff = Backoff(0.1, 0.5)
    assert [backoff.next() for _ in range(5)] == [0.1, 0.2, 0.4, 0.5, 0.5]
    backoff.reset()
    assert backoff.next() == 0.1
    with pytest.raises(ValueError):
        Backoff(0, 1)


def test_lines_end_on_cr_lf_or_crlf_and_overlong_lines_are_dropped_whole() -> None:
    lines = LineAssembler(max_length=5)
    assert lines.feed(b"AB\r\nCD\rEF\nG") == ["AB", "CD", "EF"]
    assert lines.pending == b"G"
    out = lines.feed(b"HIJKLMNOP\rQ\n")
    assert isinstance(out[0], UnreadableScan) and "longer than 5" in str(out[0])
    assert out[1:] == ["Q"]  # the tail of the long line is not a scan of its own
    bad = lines.feed(b"\xc3\r")
    assert isinstance(bad[0], UnreadableScan) and "not UTF-8" in str(bad[0])


def test_the_scanner_thread_is_not_a_daemon() -> None:
    scanner = Scripted([], [])
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    got.wait_scans(1)
    thread = next(t for t in threading.enumerate() if t.name == "booth-scanner-scripted")
    assert not thread.daemon
    scanner.stop()
    assert not thread.is_alive()
