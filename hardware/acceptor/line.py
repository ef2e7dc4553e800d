"""The serial line to a bill acceptor (RS-232, or the validator's USB virtual COM port), shared
by the SSP, ID-003 and EBDS drivers: frames out, bytes in, through pyserial.

A line that vanishes (the cable pulled, the USB adapter gone, the pty closed) makes every call
fail with OSError(EIO), pyserial's SerialException or termios.error (pyserial lets tcflush's and
tcsetattr's through as they are). Here any of them becomes AcceptorUnplugged, and the dead port
is dropped: the next call opens the device again, so the kiosk reconnects when it returns.
"""

from __future__ import annotations

import contextlib
import errno
import termios
from collections.abc import Callable, Mapping
from typing import Any

import serial

from hardware.acceptor.sim import BadAcceptorSpec
from pos.services.ports import AcceptorFault

Opener = Callable[..., Any]  # serial.serial_for_url(url, baudrate=..., timeout=..., ...)
LINE_ERRORS: tuple[type[BaseException], ...] = (OSError, termios.error)  # SerialException: OSError
GONE = frozenset({errno.ENOENT, errno.ENODEV, errno.ENXIO, errno.EIO})


class AcceptorUnplugged(AcceptorFault):
    """The line to the bill acceptor is gone (unplugged?); the port was dropped."""


class SerialLine:
    def __init__(
        self,
        port: str,
        *,
        opener: Opener = serial.serial_for_url,
        settings: Mapping[str, Any] | None = None,
        read_timeout: float = 0.02,
    ) -> None:
        self.port = port
        self.settings = dict(settings or {})
        self.read_timeout = read_timeout
        self._opener = opener
        self._handle: Any = None

    @property
    def is_open(self) -> bool:
        return self._handle is not None

    def open(self) -> bool:
        """Open the port if it is not open; True when it was opened just now."""
        if self._handle is not None:
            return False
        try:
            self._handle = self._opener(self.port, timeout=self.read_timeout, **self.settings)
        except LINE_ERRORS as exc:
            code = _errno(exc)
            if code in GONE or isinstance(exc, termios.error):
                raise AcceptorUnplugged(f"{self.port} is not there (unplugged?)") from None
            raise AcceptorFault(f"cannot open {self.port}: {exc}") from None
        return True

    def send(self, frame: bytes) -> None:
        """Whatever came in unasked is dropped, then the frame goes out."""
        handle = self._ready()
        try:
            handle.reset_input_buffer()
            handle.write(frame)
        except LINE_ERRORS as exc:
            raise self._gone(exc) from None

    def read(self, size: int = 64) -> bytes:
        """Up to `size` bytes, or none after the read timeout."""
        handle = self._ready()
        try:
            return bytes(handle.read(size))
        except LINE_ERRORS as exc:
            raise self._gone(exc) from None

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(*LINE_ERRORS):  # closing a line that is gone already
                handle.close()

    def _ready(self) -> Any:
        if self._handle is None:
            self.open()
        return self._handle

    def _gone(self, exc: BaseException) -> AcceptorUnplugged:
        self.close()
        return AcceptorUnplugged(
            f"the line to the bill acceptor on {self.port} is gone ({reason(exc)})"
        )


def _errno(exc: BaseException) -> int | None:
    code = getattr(exc, "errno", None)
    if code is None and isinstance(exc, termios.error) and exc.args:
        code = exc.args[0]
    if code is None and isinstance(exc.__context__, OSError):
        code = exc.__context__.errno  # pyserial's SerialException wraps the OSError
    return code if isinstance(code, int) else None


def parse_port(options: str, kind: str, default_baud: int) -> tuple[str, int]:
    """`PORT[@BAUD]`, as the serial acceptors' settings write it (`id003:/dev/ttyUSB0@19200`)."""
    text, baud = options.strip(), default_baud
    if "@" in text:
        text, _, rate = text.rpartition("@")
        if not rate.isdigit() or int(rate) not in serial.Serial.BAUDRATES:
            raise BadAcceptorSpec(f"baud rate {rate!r} is not one a serial line uses")
        baud = int(rate)
    if not text:
        raise BadAcceptorSpec(f"name the serial port, e.g. {kind}:/dev/ttyUSB0")
    return text, baud


def reason(exc: BaseException) -> str:
    """A line's error in words: termios.error(5, 'Input/output error') says the second."""
    if isinstance(exc, termios.error) and len(exc.args) == 2:
        return str(exc.args[1])  # termios.error(5, 'Input/output error')
    return str(exc)
