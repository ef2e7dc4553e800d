"""Finding hardware adapters by name. They register as entry points (`booth.dispensers`,
`booth.scanners`, `booth.receipt_printers`), found through pos.plugins, so the core never
imports hardware: a setting's scheme names the factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pos import plugins
from pos.errors import BadInput

RECEIPT_PRINTERS = "booth.receipt_printers"


def load_adapter(group: str, spec: str, station_dir: Path) -> Any:
    """The device `spec` (`scheme:options`) names, made by the factory registered as `scheme`
    in `group`; raises PluginNotFound naming the group and the scheme when none is."""
    scheme, _, options = spec.partition(":")
    factory = plugins.load(group, scheme)
    return factory(options, station_dir)


def load_receipt_printer(spec: str, station_dir: Path, profile: str | None) -> Any:
    """The receipt printer a setting names (`usb:VID:PID`, `net:HOST:PORT`, `dir:DIR`...)."""
    installed = plugins.found(RECEIPT_PRINTERS)
    if not installed:
        raise BadInput("printer", "no receipt printer adapter is installed")
    first = next(iter(installed))  # the one Booth ships: hardware's escpos adapter
    try:
        return plugins.load(RECEIPT_PRINTERS, first)(spec, station_dir, profile)
    except ValueError as exc:  # the adapter's BadPrinterSpec is a ValueError
        raise BadInput("printer", str(exc)) from None
