"""Ports: what the services need from hardware, as Protocols. Adapters live in hardware/."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from pos.domain.receipt import Receipt


class DispenserFault(Exception):
    """The dispenser could not dispense at all (unplugged, door open)."""


class Dispenser(Protocol):
    """A kiosk's ticket dispenser: columns hold deals; dispensing returns what came out."""

    def dispense(self, column: str, count: int) -> int:
        """Push out up to `count` tickets from `column`; return how many came out (jams and
        an empty column give fewer). Raises DispenserFault when nothing can be tried."""
        ...


class Scanner(Protocol):
    """A barcode scanner: whole decoded strings to `on_scan`, problems to `on_error`, both from
    the scanner's own thread. `running` turns false when its input ends for good."""

    @property
    def running(self) -> bool: ...

    def start(self, on_scan: Callable[[str], None], on_error: Callable[[object], None]) -> None: ...

    def stop(self) -> None: ...


class PrinterFault(Exception):
    """The printer did not take the job: off, out of paper, cover open, unplugged."""


class ReceiptPrinter(Protocol):
    """A receipt printer: lays a receipt out for its paper and sends it, or raises PrinterFault
    (adapters translate their own errors). `kick_drawer` opens the cash drawer behind it."""

    def print_receipt(self, receipt: Receipt, *, name: str, kick_drawer: bool = False) -> None: ...

    def kick_drawer(self) -> None: ...

    def status(self) -> dict[str, object]: ...
