"""`serial:DEV[@baud]`: a printer on a serial port (RS-232 or USB CDC), through python-escpos
`Serial` (pyserial).

A line that vanishes mid-job is PrinterUnplugged, whichever error pyserial lets through: OSError
(EIO), a SerialException wrapping it (whose own errno is None), or termios.error from the
tcsetattr behind a timeout change."""

from __future__ import annotations

import contextlib
import errno
import termios
from pathlib import Path
from typing import Any

from escpos.escpos import Escpos
from escpos.exceptions import DeviceNotFoundError

from hardware.printer.errors import (
    BadPrinterSpec,
    PrinterAccessDenied,
    PrinterError,
    PrinterOffline,
    PrinterUnplugged,
)
from hardware.printer.transports.base import (
    GONE_ERRNOS,
    UDEV_HINT,
    EscposPrinter,
    allowed_device,
    checked_length,
)

# Optional driver, in python-escpos's own style: the module imports without it, and the
# printer says what to install when it is used.
try:
    import serial

    _DEP_SERIAL = True
except ImportError:  # pragma: no cover - pyserial is a dependency of Booth
    _DEP_SERIAL = False

DEFAULT_BAUD = 9600


class SerialPrinter(EscposPrinter):
    """A printer on a serial port (RS-232 or USB CDC), through python-escpos `Serial`."""

    kind = "serial"

    def __init__(
        self, port: str, baudrate: int = DEFAULT_BAUD, *, dsrdtr: bool = True, **options: Any
    ) -> None:
        super().__init__(**options)
        self.port = port
        self.baudrate = baudrate
        self.dsrdtr = dsrdtr

    def describe(self) -> str:
        return f"printer serial:{self.port}"

    def _open(self) -> Escpos:
        if not _DEP_SERIAL:
            raise PrinterOffline(f"{self.describe()}: pyserial is not installed")
        from escpos.printer import Serial

        printer = Serial(
            self.port,
            self.baudrate,
            timeout=self.status_timeout,
            dsrdtr=self.dsrdtr,
            profile=self.profile.escpos_profile,
        )
        try:
            printer.open()
        except DeviceNotFoundError as exc:
            cause = exc.__context__
            code = getattr(cause, "errno", None)
            if code in GONE_ERRNOS:
                raise PrinterUnplugged(f"{self.describe()} not found: is it plugged in?") from exc
            if code == errno.EACCES:
                raise PrinterAccessDenied(
                    f"{self.describe()}: permission denied (group dialout?) {UDEV_HINT}"
                ) from exc
            raise PrinterOffline(f"{self.describe()} cannot be opened: {cause or exc}") from exc
        device = printer._device
        if device:
            device.write_timeout = self.timeout
        return printer

    def _read_timeouts(self) -> tuple[type[BaseException], ...]:
        return (serial.SerialTimeoutException,)

    def _set_read_timeout(self, printer: Escpos, seconds: float) -> None:
        device = printer._device
        if device:
            try:
                device.timeout = seconds
            except (termios.error, serial.SerialException) as exc:  # its tcsetattr, line gone
                raise self._write_error(exc) from exc

    def _close(self, printer: Escpos) -> None:
        super()._close(printer)  # its flush fails on a line that is gone, before the close
        device = printer._device
        if device and device.is_open:  # close without the flush: nothing left for __del__
            with contextlib.suppress(OSError, termios.error):
                device.close()
            printer._device = False  # as python-escpos marks a port it closed itself

    def send(self, job_bytes: bytes, name: str) -> None:
        try:
            super().send(job_bytes, name)
        except termios.error as exc:
            raise self._write_error(exc) from exc

    def _write_error(self, exc: BaseException) -> PrinterError:
        if isinstance(exc, serial.SerialTimeoutException):
            return PrinterOffline(
                f"{self.describe()} held the line for {self.timeout:g} s "
                "(paper out, cover open or off-line?)"
            )
        if _errno(exc) in GONE_ERRNOS | {errno.EIO}:
            return PrinterUnplugged(f"{self.describe()} was unplugged mid-job ({exc})")
        return PrinterOffline(f"{self.describe()} did not take the job: {exc}")


def _errno(exc: BaseException) -> int | None:
    """The errno behind a line's error: OSError's own, termios.error's first argument, or that
    of the error a SerialException wraps (pyserial raises SerialException('write failed: ...')
    inside `except OSError`, and 'Could not configure port' inside `except termios.error`)."""
    code = getattr(exc, "errno", None)
    if code is None and isinstance(exc, termios.error) and exc.args:
        code = exc.args[0]
    cause = exc.__context__
    if code is None and isinstance(cause, OSError):
        code = cause.errno
    if code is None and isinstance(cause, termios.error) and cause.args:
        code = cause.args[0]  # SerialException('Could not configure port: ...')
    return code if isinstance(code, int) else None


def parse_serial(options: str) -> tuple[str, int]:
    """`/dev/ttyUSB0` or `/dev/ttyUSB0@19200`."""
    port, at, baud_text = options.rpartition("@")
    if not at:
        port, baud_text = options, ""
    if not port:
        raise BadPrinterSpec(
            f"printer serial:{options} should name a port, e.g. serial:/dev/ttyUSB0@9600"
        )
    if not baud_text:
        return port, DEFAULT_BAUD
    rates = sorted(serial.Serial.BAUDRATES) if _DEP_SERIAL else [DEFAULT_BAUD]
    if not baud_text.isdigit() or int(baud_text) not in rates:
        raise BadPrinterSpec(
            f"printer serial:{options}: baud rate {baud_text!r} is not one of "
            f"{', '.join(str(b) for b in rates if b >= 1200)}"
        )
    return port, int(baud_text)


def serial_printer(options: str, station_dir: Path) -> SerialPrinter:
    """Entry point `booth.printers` `serial`: `serial:DEV[@baud]`."""
    port, baudrate = parse_serial(options)
    checked_length(port, "serial")
    allowed_device(Path(port), "serial", ("serial",))
    return SerialPrinter(port, baudrate)
