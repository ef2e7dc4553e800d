"""Receipt printers: a receipt rendered to ESC/POS bytes (render.py) or a PNG (png.py), the
bytes read back into a picture (escpos_image.py), and the printers the bytes go to.

A printer is chosen by a setting such as `usb:04b8:0e15`, `net:192.168.1.50:9100`,
`serial:/dev/ttyUSB0@19200`, `file:/dev/usb/lp0`, `dir:receipts` or `dummy`;
`open_printer(spec, station_dir, profile)` turns it into a printer with
`send(job_bytes, name)` and `status()`. The core finds the same factories by name in the
`booth.printers` entry point group: each is a callable `(options: str, station_dir: Path)`
returning the printer, `options` being what follows the first colon of the setting.

The core's port (`pos.services.ports.ReceiptPrinter`: print_receipt, kick_drawer, status) is
`adapter.EscPosReceiptPrinter`, made by `adapter.open_receipt_printer(spec, station_dir,
profile)`. Every PrinterError is a `pos.services.ports.PrinterFault`.
"""

from __future__ import annotations

from pathlib import Path

from hardware.printer.errors import (
    CONDITIONS,
    BadPrinterSpec,
    CoverOpen,
    PaperOut,
    PrinterAccessDenied,
    PrinterError,
    PrinterOffline,
    PrinterUnplugged,
    UnsupportedEscPos,
)
from hardware.printer.profiles import DEFAULT_PROFILE, PROFILES, PrinterProfile, get_profile
from hardware.printer.transports import Printer, PrinterFactory, job_name
from hardware.registry import DeviceRegistry

__all__ = [
    "CONDITIONS",
    "DEFAULT_PROFILE",
    "ENTRY_POINT_GROUP",
    "PROFILES",
    "BadPrinterSpec",
    "CoverOpen",
    "PaperOut",
    "Printer",
    "PrinterAccessDenied",
    "PrinterError",
    "PrinterFactory",
    "PrinterOffline",
    "PrinterProfile",
    "PrinterUnplugged",
    "UnsupportedEscPos",
    "get_profile",
    "job_name",
    "open_printer",
    "parse_spec",
]

ENTRY_POINT_GROUP = "booth.printers"

# The printers shipped here, by kind, for a source tree whose entry points are not installed.
BUILT_IN = {
    "usb": "hardware.printer.transports.usb:usb_printer",
    "net": "hardware.printer.transports.net:net_printer",
    "serial": "hardware.printer.transports.serial:serial_printer",
    "file": "hardware.printer.transports.file:file_printer",
    "dir": "hardware.printer.transports.dir:dir_printer",
    "dummy": "hardware.printer.fake:dummy_printer",
}

EXAMPLES = "usb:VID:PID, net:HOST[:PORT], serial:/dev/ttyUSB0[@baud], file:PATH, dir:DIR or dummy"


_REGISTRY: DeviceRegistry[Printer] = DeviceRegistry(
    noun="printer",
    group=ENTRY_POINT_GROUP,
    built_in=BUILT_IN,
    examples=EXAMPLES,
    bad_spec=BadPrinterSpec,
)
parse_spec = _REGISTRY.parse_spec


def open_printer(
    spec: str,
    station_dir: Path | None = None,
    profile: PrinterProfile | str | None = None,
) -> Printer:
    """The printer a setting names (nothing is opened until a job is sent). `profile` (a
    PrinterProfile or a name in PROFILES; default epson-tm-t20) tells it the model: the
    python-escpos profile, and the paper width the dir: printer draws its pictures at.
    Raises BadPrinterSpec naming the setting when it does not parse."""
    chosen = get_profile(profile) if profile is not None else None
    printer = _REGISTRY.open(spec, station_dir)
    if chosen is not None and hasattr(printer, "profile"):
        printer.profile = chosen
    return printer
