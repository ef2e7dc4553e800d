"""Ports: what the services need from hardware, as Protocols. Adapters live in hardware/."""

from __future__ import annotations

from typing import Protocol


class DispenserFault(Exception):
    """The dispenser could not dispense at all (unplugged, door open)."""


class Dispenser(Protocol):
    """A kiosk's ticket dispenser: columns hold deals; dispensing returns what came out."""

    def dispense(self, column: str, count: int) -> int:
        """Push out up to `count` tickets from `column`; return how many came out (jams and
        an empty column give fewer). Raises DispenserFault when nothing can be tried."""
        ...
