"""This station's hardware for the front end: printer, scanner, dispenser and bill acceptor, from
devices.json, through the same entry points the `booth` command uses.

A training hall with no printer set prints to `dir:receipts` (ESC/POS bytes and a PNG of each
receipt in the station directory), so the demo hall's receipts can be looked at; a training
kiosk with no acceptor set takes bills from the simulator. No Kivy here.
"""

from __future__ import annotations

from pathlib import Path

from pos.cli.adapters import load_adapter, load_receipt_printer
from pos.errors import BadInput
from pos.services import devices as device_settings
from pos.services.ports import BillAcceptor, Dispenser, ReceiptPrinter, Scanner
from pos.services.station import Station

TRAINING_PRINTER = "dir:receipts"
DEV_SCANNER = "stdin"
TRAINING_ACCEPTOR = "sim"


def printer_spec(st: Station) -> str | None:
    spec = device_settings.device_settings(st).get("printer")
    if spec:
        return spec
    return TRAINING_PRINTER if st.hall.training else None


def open_printer(st: Station) -> ReceiptPrinter | None:
    """The station's printer, or None when none is set (the queue keeps every receipt)."""
    spec = printer_spec(st)
    if spec is None:
        return None
    profile = device_settings.device_settings(st).get("printer_profile")
    printer: ReceiptPrinter = load_receipt_printer(spec, st.directory, profile)
    return printer


def open_dispenser(st: Station) -> Dispenser | None:
    if st.config.role != "kiosk":
        return None
    spec = device_settings.device_settings(st).get("dispenser", "sim")
    dispenser: Dispenser = load_adapter("booth.dispensers", spec, st.directory)
    return dispenser


def acceptor_spec(st: Station) -> str | None:
    """The kiosk's bill acceptor setting: `none` (or unset outside a training hall) means the
    kiosk takes no cash; a training hall with none set uses the simulator (the demo)."""
    if st.config.role != "kiosk":
        return None
    spec = device_settings.device_settings(st).get("acceptor")
    if spec is None:
        spec = TRAINING_ACCEPTOR if st.hall.training else "none"
    return None if spec.strip().lower() == "none" else spec


def open_acceptor(st: Station) -> BillAcceptor | None:
    spec = acceptor_spec(st)
    if spec is None:
        return None
    try:
        acceptor: BillAcceptor = load_adapter("booth.acceptors", spec, st.directory)
    except ValueError as exc:  # the drivers' BadAcceptorSpec
        raise BadInput("acceptor", str(exc)) from None
    return acceptor


def scanner_spec(st: Station) -> str:
    return device_settings.device_settings(st).get("scanner", DEV_SCANNER)


def open_scanner(spec: str, directory: Path) -> Scanner:
    try:
        reader: Scanner = load_adapter("booth.scanners", spec, directory)
    except ValueError as exc:  # the drivers' BadScannerSpec
        raise BadInput("scanner", str(exc)) from None
    return reader
