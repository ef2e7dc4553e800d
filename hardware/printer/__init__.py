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

import importlib
from importlib.metadata import entry_points
from pathlib import Path
from typing import cast

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
    "usb": "hardware.printer.transports:usb_printer",
    "net": "hardware.printer.transports:net_printer",
    "serial": "hardware.printer.transports:serial_printer",
    "file": "hardware.printer.transports:file_printer",
    "dir": "hardware.printer.transports:dir_printer",
    "dummy": "hardware.printer.fake:dummy_printer",
}

EXAMPLES = "usb:VID:PID, net:HOST[:PORT], serial:/dev/ttyUSB0[@baud], file:PATH, dir:DIR or dummy"


def parse_spec(spec: str) -> tuple[str, str]:
    """`kind:options` (or a bare `kind`) -> (kind, options); the kind must be known."""
    kind, _, options = spec.strip().partition(":")
    kind = kind.lower()
    if not kind:
        what = "is empty" if not spec.strip() else "names no kind of printer"
        raise BadPrinterSpec(f"printer setting {spec!r} {what}: use {EXAMPLES}")
    if kind not in _factories():
        known = ", ".join(sorted(_factories()))
        raise BadPrinterSpec(
            f"printer setting {spec!r}: unknown kind {kind!r} (known: {known}); use {EXAMPLES}"
        )
    return kind, options


def open_printer(
    spec: str,
    station_dir: Path | None = None,
    profile: PrinterProfile | str | None = None,
) -> Printer:
    """The printer a setting names (nothing is opened until a job is sent). `profile` (a
    PrinterProfile or a name in PROFILES; default epson-tm-t20) tells it the model: the
    python-escpos profile, and the paper width the dir: printer draws its pictures at.
    Raises BadPrinterSpec naming the setting when it does not parse."""
    kind, options = parse_spec(spec)
    chosen = get_profile(profile) if profile is not None else None
    factory = _load(_factories()[kind])
    try:
        printer = factory(options, Path(station_dir) if station_dir is not None else Path.cwd())
    except BadPrinterSpec as exc:
        if repr(spec) in str(exc) or spec in str(exc):
            raise
        raise BadPrinterSpec(f"printer setting {spec!r}: {exc}") from exc
    if chosen is not None and hasattr(printer, "profile"):
        printer.profile = chosen
    return printer


def _factories() -> dict[str, str]:
    found = dict(BUILT_IN)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found[entry.name] = entry.value
    return found


def _load(target: str) -> PrinterFactory:
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    obj: object = module
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return cast(PrinterFactory, obj)
