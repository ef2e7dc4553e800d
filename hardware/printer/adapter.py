"""The receipt printer port of the core (`pos.services.ports.ReceiptPrinter`) over a printer
transport: lay the receipt out for the profile, render it with python-escpos, send the bytes.

    printer = open_receipt_printer("usb:04b8:0e15", station_dir, "epson-tm-t20")
    printer.print_receipt(receipt, name="booth-1-000042")   # raises a PrinterFault
    printer.kick_drawer()
    printer.status()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hardware.printer import open_printer
from hardware.printer.png import render_png
from hardware.printer.profiles import PrinterProfile, get_profile
from hardware.printer.render import kick_drawer_bytes, render_receipt
from hardware.printer.transports import Printer
from pos.domain.receipt import Receipt

DRAWER_JOB = "drawer-kick"


class EscPosReceiptPrinter:
    """`print_receipt`, `kick_drawer` and `status` for the print queue; each PrinterError it
    raises is a pos.services.ports.PrinterFault."""

    def __init__(self, transport: Printer, profile: PrinterProfile | str | None = None) -> None:
        self.transport = transport
        self.profile = get_profile(profile)

    def render(self, receipt: Receipt, *, kick_drawer: bool = False) -> bytes:
        return render_receipt(receipt, self.profile, kick_drawer=kick_drawer)

    def png(self, receipt: Receipt) -> bytes:
        return render_png(receipt, self.profile)

    def print_receipt(self, receipt: Receipt, *, name: str, kick_drawer: bool = False) -> None:
        self.transport.send(self.render(receipt, kick_drawer=kick_drawer), name)

    def kick_drawer(self) -> None:
        self.transport.send(kick_drawer_bytes(self.profile), DRAWER_JOB)

    def status(self) -> dict[str, Any]:
        describe = getattr(self.transport, "describe", None)
        return {
            "printer": describe() if callable(describe) else type(self.transport).__name__,
            "profile": self.profile.name,
            **self.transport.status(),
        }


def open_receipt_printer(
    spec: str, station_dir: Path | None = None, profile: PrinterProfile | str | None = None
) -> EscPosReceiptPrinter:
    """The printer a setting names (see hardware.printer.open_printer), as the core's port."""
    chosen = get_profile(profile)
    return EscPosReceiptPrinter(open_printer(spec, station_dir, chosen), chosen)
