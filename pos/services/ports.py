"""Ports: what the services need from hardware, as Protocols. Adapters live in hardware/."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # a port's type only: a sale with no printer makes no Receipt
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


class AcceptorFault(Exception):
    """The bill acceptor could not be reached or refused a command (unplugged, no answer)."""


@dataclass(frozen=True)
class BillEvent:
    """What a bill acceptor reports, in cents. kinds:

    - `escrow`: a bill is read and held in escrow, waiting for `stack` or `return_bill`;
    - `stacked`: the bill is in the cash box (`cleared` when found there after a reset);
    - `returned`: the bill came back out of the front (or was refused while reading);
    - `jam`: the bill is stuck inside (`detail` says where); staff must clear it;
    - `reset`: the device restarted (power loss); what became of a bill it held follows as a
      `stacked` or `returned` event with `cleared=True`, or not at all when it cannot tell;
    - `fault`: anything else worth telling staff (cash box full or removed, fraud attempt).
    """

    kind: str
    amount: int = 0
    detail: str = ""
    cleared: bool = False


class BillAcceptor(Protocol):
    """A kiosk's bill acceptor: bills wait in escrow until the kiosk stacks or returns them.
    Every call is one short exchange with the device, on the kiosk's cash thread."""

    def enable(self) -> None:
        """Take bills (all channels)."""
        ...

    def disable(self) -> None:
        """Refuse bills (a bill fed meanwhile comes back out)."""
        ...

    def poll(self) -> list[BillEvent]:
        """What happened since the last poll; a bill in escrow stays there (held)."""
        ...

    def stack(self, timeout: float) -> BillEvent:
        """Move the bill in escrow into the cash box: `stacked`, `returned`, `jam`, or `reset`
        followed by what the device could tell. Raises AcceptorFault when it does not answer."""
        ...

    def return_bill(self, timeout: float) -> BillEvent:
        """Give the bill in escrow back: `returned`, `jam` or `reset`."""
        ...
