"""Issue #32: a vanished serial line is a fault for every serial device, not only the bill
acceptors (tests/hardware/test_acceptor_contract.py): a serial scanner whose pty closes says it
was unplugged once, looks for it again with a doubling delay and reads scans again when it
returns, without a traceback; a serial printer whose line goes mid-job says it was unplugged
(pyserial's SerialException and termios.error included), not that it went off-line."""

from __future__ import annotations

import logging
import select
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import serial

from hardware.acceptor.pty_device import PtyDevice
from hardware.printer.errors import PrinterUnplugged
from hardware.printer.transports.serial import SerialPrinter
from hardware.scanner.serial_port import SerialScanner


class Line(PtyDevice):
    """A device that only talks (a scanner) or only listens (a printer)."""

    name = "line"

    def receive(self, chunk: bytes) -> list[bytes]:
        return []


class Heard:
    """What a callback was given, waited for by condition, not by time."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._changed = threading.Condition()

    def add(self, item: Any) -> None:
        with self._changed:
            self.items.append(item)
            self._changed.notify_all()

    def wait(self, predicate: Callable[[list[Any]], bool], timeout: float = 30.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self.items), timeout)


def test_a_serial_scanner_unplugged_says_so_once_and_reads_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    line = Line(link=tmp_path / "ttyScanner").start()
    scans, problems, opens = Heard(), Heard(), Heard()

    def opener(*args: Any, **kwargs: Any) -> Any:
        try:
            port = serial.serial_for_url(*args, **kwargs)
        except Exception:
            opens.add(False)
            raise
        opens.add(True)
        return port

    scanner = SerialScanner(
        line.port, opener=opener, read_timeout=0.05, retry_initial=0.02, retry_max=0.1
    )
    scanner.start(scans.add, problems.add)
    try:
        assert opens.wait(lambda seen: seen.count(True) == 1)
        line.send(b"C-1001\r")
        assert scans.wait(lambda seen: seen == ["C-1001"])
        line.pull()
        assert opens.wait(lambda seen: seen.count(False) >= 3)  # looked for, again and again
        line.plug()
        assert opens.wait(lambda seen: seen.count(True) == 2)
        line.send(b"C-1002\r")
        assert scans.wait(lambda seen: seen == ["C-1001", "C-1002"])
    finally:
        scanner.stop()
        line.stop()
    assert len(problems.items) == 1 and "unplugged" in problems.items[0], problems.items
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []  # no traceback


@pytest.mark.parametrize("check_status", [False, True])
def test_a_serial_printer_unplugged_mid_job(tmp_path: Path, check_status: bool) -> None:
    line = Line(link=tmp_path / "ttyPrinter").start()
    printer = SerialPrinter(line.port, check_status=check_status, status_timeout=0.05)
    opened = printer._open

    def open_then_pull() -> Any:
        connected = opened()
        line.pull()  # the cable goes between the open and the job
        hangup = select.poll()
        hangup.register(connected._device.fd, select.POLLHUP)
        assert hangup.poll(30_000), "the hangup never reached the printer's end of the line"
        return connected

    printer._open = open_then_pull  # type: ignore[method-assign]
    try:
        with pytest.raises(PrinterUnplugged, match="unplugged mid-job"):
            printer.send(b"\x1b@a receipt\n", "receipt 1")
    finally:
        line.stop()
