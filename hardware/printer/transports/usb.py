"""`usb:VID:PID[:IN_EP:OUT_EP]`: a USB printer found by vendor and product id, through
python-escpos `Usb` (pyusb)."""

from __future__ import annotations

import errno
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
from hardware.printer.transports.base import GONE_ERRNOS, UDEV_HINT, EscposPrinter

# Optional driver, in python-escpos's own style: the module imports without it, and the
# printer says what to install when it is used.
try:
    import usb.core

    _DEP_USB = True
except ImportError:  # pragma: no cover - pyusb is a dependency of Booth
    _DEP_USB = False


class UsbPrinter(EscposPrinter):
    """A USB printer found by vendor and product id, through python-escpos `Usb` (pyusb)."""

    kind = "usb"

    def __init__(
        self,
        vendor_id: int,
        product_id: int,
        *,
        in_ep: int = 0x82,
        out_ep: int = 0x01,
        backend: Any = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        for what, value in (("vendor id", vendor_id), ("product id", product_id)):
            if not 0 <= value <= 0xFFFF:
                raise BadPrinterSpec(f"USB {what} {value!r} is not a 16-bit number")
        self.vendor_id = vendor_id
        self.product_id = product_id
        self.in_ep = in_ep
        self.out_ep = out_ep
        self.backend = backend

    def describe(self) -> str:
        return f"printer usb:{self.vendor_id:04x}:{self.product_id:04x}"

    def _open(self) -> Escpos:
        if not _DEP_USB:
            raise PrinterOffline(f"{self.describe()}: pyusb is not installed (pip install pyusb)")
        from escpos.printer import Usb

        usb_args: dict[str, Any] = {"backend": self.backend} if self.backend is not None else {}
        printer = Usb(
            self.vendor_id,
            self.product_id,
            usb_args=usb_args,
            timeout=max(1, round(self.timeout * 1000)),
            in_ep=self.in_ep,
            out_ep=self.out_ep,
            profile=self.profile.escpos_profile,
        )
        try:
            printer.open()
        except DeviceNotFoundError as exc:
            raise self._open_error(exc.__context__) from exc
        except usb.core.NoBackendError as exc:
            raise PrinterOffline(
                f"{self.describe()}: no USB backend ({exc}): install libusb-1.0 "
                "(Debian: apt install libusb-1.0-0)"
            ) from exc
        return printer

    def _open_error(self, cause: BaseException | None) -> PrinterError:
        if isinstance(cause, usb.core.USBError):
            if cause.errno == errno.EACCES:
                return PrinterAccessDenied(f"{self.describe()}: access denied {UDEV_HINT}")
            if cause.errno in GONE_ERRNOS:
                return PrinterUnplugged(f"{self.describe()} went away while opening: {cause}")
            if cause.errno == errno.EBUSY:
                return PrinterOffline(f"{self.describe()} is busy: another program holds it")
            return PrinterOffline(f"{self.describe()} cannot be opened: {cause}")
        return PrinterUnplugged(f"{self.describe()} not found: is it plugged in and switched on?")

    def _read_timeouts(self) -> tuple[type[BaseException], ...]:
        return (usb.core.USBTimeoutError,)

    def _set_read_timeout(self, printer: Escpos, seconds: float) -> None:
        device = printer._device
        if device:
            device.default_timeout = max(1, round(seconds * 1000))

    def _write_error(self, exc: Exception) -> PrinterError:
        if isinstance(exc, usb.core.USBTimeoutError):
            return PrinterOffline(
                f"{self.describe()} stopped taking data for {self.timeout:g} s "
                "(paper out, cover open or off-line?)"
            )
        if isinstance(exc, usb.core.USBError) and exc.errno in GONE_ERRNOS | {errno.EIO}:
            return PrinterUnplugged(f"{self.describe()} was unplugged mid-job ({exc})")
        return PrinterOffline(f"{self.describe()} did not take the job: {exc}")


def parse_usb(options: str) -> tuple[int, int, int | None, int | None]:
    """`VID:PID` or `VID:PID:IN:OUT` (hex, as lsusb shows; endpoints as lsusb -v shows)."""
    parts = options.split(":")
    if len(parts) not in (2, 4):
        raise BadPrinterSpec(
            f"printer usb:{options} should be usb:VID:PID (hex, as lsusb shows: usb:04b8:0e15) "
            "or usb:VID:PID:IN_EP:OUT_EP"
        )
    numbers: list[int] = []
    for what, part in zip(
        ("vendor id", "product id", "IN endpoint", "OUT endpoint"), parts, strict=False
    ):
        text = part.lower().removeprefix("0x")
        if not 1 <= len(text) <= 4 or any(c not in "0123456789abcdef" for c in text):
            raise BadPrinterSpec(f"printer usb:{options}: {what} {part!r} is not 1-4 hex digits")
        numbers.append(int(text, 16))
    if len(numbers) == 4:
        if not (numbers[2] & 0x80 and not numbers[3] & 0x80 and max(numbers[2:]) <= 0xFF):
            raise BadPrinterSpec(
                f"printer usb:{options}: endpoints {parts[2]}:{parts[3]} should be IN (0x8n) "
                "then OUT (0x0n)"
            )
        return numbers[0], numbers[1], numbers[2], numbers[3]
    return numbers[0], numbers[1], None, None


def usb_printer(options: str, station_dir: Path) -> UsbPrinter:
    """Entry point `booth.printers` `usb`: `usb:VID:PID[:IN_EP:OUT_EP]`."""
    vendor_id, product_id, in_ep, out_ep = parse_usb(options)
    if in_ep is None or out_ep is None:
        return UsbPrinter(vendor_id, product_id)
    return UsbPrinter(vendor_id, product_id, in_ep=in_ep, out_ep=out_ep)
