"""A serial barcode scanner (RS-232, or USB in CDC/virtual COM mode) through pyserial.

Each scan is a line ending CR, LF or CRLF. Any pyserial URL works as the port, so tests use
`loop://` and the real pyserial code path runs. A line that vanishes (the scanner unplugged, its
pty closed) is reported once as unplugged, whichever error pyserial lets through (OSError(EIO),
SerialException, or termios.error from its tcsetattr), and the port is looked for again with a
doubling delay until it returns.
"""

from __future__ import annotations

import errno
import logging
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import serial

from hardware.scanner.base import (
    BadScannerSpec,
    LineAssembler,
    PartialScan,
    ReconnectingScanner,
    ScannerError,
    ScannerNotFound,
    ScannerUnavailable,
    ScannerUnplugged,
    UnreadableScan,
)

logger = logging.getLogger(__name__)

DEFAULT_BAUD = 9600
BAUD_RATES = frozenset(serial.Serial.BAUDRATES)

Opener = Callable[..., Any]  # serial.serial_for_url(url, baudrate=..., timeout=...)


class SerialScanner(ReconnectingScanner[Any]):
    """Lines from a serial port at `port` (a device path or a pyserial URL)."""

    kind = "serial"

    def __init__(
        self,
        port: str,
        baudrate: int = DEFAULT_BAUD,
        *,
        opener: Opener = serial.serial_for_url,
        read_timeout: float = 0.1,
        scan_timeout: float = 1.0,
        retry_initial: float = 0.1,
        retry_max: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(retry_initial=retry_initial, retry_max=retry_max)
        self.port = port
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.scan_timeout = scan_timeout
        self._opener = opener
        self._clock = clock
        self._lines = LineAssembler()

    def describe(self) -> str:
        return f"scanner serial:{self.port}"

    def _open(self) -> Any:
        try:
            return self._opener(self.port, baudrate=self.baudrate, timeout=self.read_timeout)
        except (serial.SerialException, OSError, ValueError, termios.error) as exc:
            code = getattr(exc, "errno", None)
            if isinstance(exc, termios.error):  # a device node whose line is gone
                raise ScannerNotFound(self._gone_message()) from exc
            if code == errno.ENOENT:
                raise ScannerNotFound(self._gone_message()) from exc
            if code == errno.EACCES:
                raise ScannerUnavailable(
                    f"{self.describe()}: permission denied (is the user in group dialout, or "
                    "packaging/udev/60-booth-hardware.rules installed?)"
                ) from exc
            if code == errno.EBUSY:
                raise ScannerUnavailable(f"{self.describe()} is busy: {exc}") from exc
            raise ScannerNotFound(f"{self.describe()} cannot be opened: {exc}") from exc

    def _read(self, port: Any) -> ScannerError | None:
        self._lines.reset()
        last_byte = self._clock()
        while not self._stopping.is_set():
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError, TypeError, termios.error) as exc:
                # TypeError: pyserial's posix read on a port closed under it
                self._discard("the scanner was unplugged")
                return ScannerUnplugged(f"{self.describe()} unplugged ({exc}); waiting for it")
            if not data:
                if self._lines.pending and self._clock() - last_byte > self.scan_timeout:
                    self._discard(f"no CR or LF for {self.scan_timeout:g} s")
                continue
            last_byte = self._clock()
            for line in self._lines.feed(bytes(data)):
                if isinstance(line, UnreadableScan):
                    self._report(f"{self.describe()}: {line}")
                else:
                    self._deliver(line)
        return None

    def _discard(self, why: str) -> None:
        partial = self._lines.reset()
        if partial:
            self._report(
                PartialScan(f"{self.describe()}: partial scan {partial!r} discarded: {why}")
            )

    def _close(self, port: Any) -> None:
        try:
            port.close()
        except (serial.SerialException, OSError) as exc:
            logger.debug("%s: close: %s", self.describe(), exc)


def parse_options(options: str) -> tuple[str, int]:
    """`/dev/ttyUSB0` or `/dev/ttyUSB0@19200` (or a pyserial URL such as `loop://`)."""
    port, at, baud_text = options.rpartition("@")
    if not at:
        port, baud_text = options, ""
    if not port:
        raise BadScannerSpec(
            f"scanner serial:{options} should name a port, e.g. serial:/dev/ttyUSB0@9600"
        )
    if not baud_text:
        return port, DEFAULT_BAUD
    if not baud_text.isdigit() or int(baud_text) not in BAUD_RATES:
        raise BadScannerSpec(
            f"scanner serial:{options}: baud rate {baud_text!r} is not one of "
            f"{', '.join(str(b) for b in sorted(BAUD_RATES) if b >= 1200)}"
        )
    return port, int(baud_text)


def from_spec(options: str, station_dir: Path) -> SerialScanner:
    """Entry point `booth.scanners` `serial`: `serial:/dev/ttyUSB0[@baud]`."""
    port, baudrate = parse_options(options)
    return SerialScanner(port, baudrate)
