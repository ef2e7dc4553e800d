"""Finding hardware adapters by name. They register as entry points, so the core never imports
hardware: `booth.dispensers` (and later printers, scanners) map a scheme to a factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pos.errors import BadInput


def load_adapter(group: str, spec: str, station_dir: Path) -> Any:
    from importlib.metadata import entry_points  # ~35 ms: only when an adapter is needed

    scheme, _, options = spec.partition(":")
    found = {ep.name: ep for ep in entry_points(group=group)}
    if scheme not in found:
        known = ", ".join(sorted(found)) or "none installed"
        raise BadInput(group, f"{scheme!r} is not a known adapter ({known})")
    factory = found[scheme].load()
    return factory(options, station_dir)


def load_receipt_printer(spec: str, station_dir: Path, profile: str | None) -> Any:
    """The receipt printer a setting names (`usb:VID:PID`, `net:HOST:PORT`, `dir:DIR`...)."""
    from importlib.metadata import entry_points

    found = list(entry_points(group="booth.receipt_printers"))
    if not found:
        raise BadInput("printer", "no receipt printer adapter is installed")
    try:
        return found[0].load()(spec, station_dir, profile)
    except ValueError as exc:  # the adapter's BadPrinterSpec is a ValueError
        raise BadInput("printer", str(exc)) from None
