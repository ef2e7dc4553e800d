"""What the screen shows while the station opens (no Kivy here): its name, and on the first start
after an upgrade how far the rebuild of its records has come, as words and a bar."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pos.errors import BoothError
from pos.services.station import StationConfig


@dataclass(frozen=True)
class StartUpVM:
    headline: str  # "Starting booth-1"
    detail: str  # what it is doing, in words
    count: str  # how far it has come: "12,000 of 48,000 events", or ""
    fraction: float | None  # of the rebuild done, 0..1; None: no bar (nothing to count)


def station_name(directory: Path) -> str:
    """The station's name as its station.json says it, read before the ledger opens (the
    folder's name when that file cannot be read: opening will say why)."""
    try:
        return StationConfig.load(directory).station
    except (BoothError, OSError, ValueError):
        return directory.name


def opening(station: str) -> StartUpVM:
    return StartUpVM(f"Starting {station}", "Opening the records…", "", None)


def rebuilding(station: str, done: int, total: int) -> StartUpVM:
    """The rebuild's progress, as Ledger.rebuild tells it (`done` of `total` events)."""
    total = max(total, done)
    return StartUpVM(
        f"Starting {station}",
        "Bringing the records up to date for this version of Booth",
        f"{done:,} of {total:,} events",
        done / total if total else 1.0,
    )
