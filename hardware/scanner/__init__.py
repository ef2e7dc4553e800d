"""Barcode scanners: one interface (`Scanner`) delivering whole decoded strings to a callback.

Chosen by a setting such as `usb:0c2e:0b61`, `evdev:/dev/input/by-id/...-event-kbd`,
`serial:/dev/ttyUSB0@9600` or `stdin`; `open_scanner(spec)` turns the setting into a scanner.
The core finds the same factories by name in the `booth.scanners` entry point group: each is a
callable `(options: str, station_dir: Path) -> Scanner`, `options` being what follows the first
colon of the setting.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hardware.registry import DeviceRegistry
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


_REGISTRY: DeviceRegistry[Scanner] = DeviceRegistry(
    noun="scanner",
    group=ENTRY_POINT_GROUP,
    built_in=BUILT_IN,
    examples=EXAMPLES,
    bad_spec=BadScannerSpec,
)
parse_spec = _REGISTRY.parse_spec


def open_scanner(spec: str, station_dir: Path | None = None) -> Scanner:
    """The scanner a setting names, not yet started. Raises BadScannerSpec (naming the setting)
    when it does not parse, ScannerUnavailable when its driver's library is missing."""
    return _REGISTRY.open(spec, station_dir)
