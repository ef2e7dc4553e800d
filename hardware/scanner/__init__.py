"""Barcode scanners: one interface (`Scanner`) delivering whole decoded strings to a callback.

Chosen by a setting such as `usb:0c2e:0b61`, `evdev:/dev/input/by-id/...-event-kbd`,
`serial:/dev/ttyUSB0@9600` or `stdin`; `open_scanner(spec)` turns the setting into a scanner.
The core finds the same factories by name in the `booth.scanners` entry point group: each is a
callable `(options: str, station_dir: Path) -> Scanner`, `options` being what follows the first
colon of the setting.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import cast

from hardware.scanner.base import (
    BadReport,
    BadScannerSpec,
    PartialScan,
    Scanner,
    ScannerError,
    ScannerNotFound,
    ScannerUnavailable,
    ScannerUnplugged,
    UnknownKey,
    UnreadableScan,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "BadReport",
    "BadScannerSpec",
    "PartialScan",
    "Scanner",
    "ScannerError",
    "ScannerFactory",
    "ScannerNotFound",
    "ScannerUnavailable",
    "ScannerUnplugged",
    "UnknownKey",
    "UnreadableScan",
    "open_scanner",
    "parse_spec",
]

ENTRY_POINT_GROUP = "booth.scanners"

ScannerFactory = Callable[[str, Path], Scanner]

# The drivers shipped here, by kind, for a source tree whose entry points are not installed.
BUILT_IN = {
    "usb": "hardware.scanner.usb:from_spec",
    "evdev": "hardware.scanner.evdev_wedge:from_spec",
    "serial": "hardware.scanner.serial_port:from_spec",
    "stdin": "hardware.scanner.stdin:from_spec",
}

EXAMPLES = "usb:VID:PID, evdev:/dev/input/..., serial:/dev/ttyUSB0[@baud] or stdin"


def parse_spec(spec: str) -> tuple[str, str]:
    """`kind:options` (or a bare `kind`) -> (kind, options); the kind must be known."""
    kind, _, options = spec.strip().partition(":")
    kind = kind.lower()
    if not kind:
        what = "is empty" if not spec.strip() else "names no kind of scanner"
        raise BadScannerSpec(f"scanner setting {spec!r} {what}: use {EXAMPLES}")
    if kind not in _factories():
        known = ", ".join(sorted(_factories()))
        raise BadScannerSpec(
            f"scanner setting {spec!r}: unknown kind {kind!r} (known: {known}); use {EXAMPLES}"
        )
    return kind, options


def open_scanner(spec: str, station_dir: Path | None = None) -> Scanner:
    """The scanner a setting names, not yet started. Raises BadScannerSpec (naming the setting)
    when it does not parse, ScannerUnavailable when its driver's library is missing."""
    kind, options = parse_spec(spec)
    factory = _load(_factories()[kind])
    try:
        return factory(options, station_dir if station_dir is not None else Path.cwd())
    except BadScannerSpec as exc:
        if repr(spec) in str(exc) or spec in str(exc):
            raise
        raise BadScannerSpec(f"scanner setting {spec!r}: {exc}") from exc


def _factories() -> dict[str, str]:
    found = dict(BUILT_IN)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found[entry.name] = entry.value
    return found


def _load(target: str) -> ScannerFactory:
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    obj = module
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return cast(ScannerFactory, obj)
