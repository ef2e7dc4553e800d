"""A simulated bill acceptor: `booth acceptor set sim` (tests and the demo hall).

Bills go in with `insert(cents)` (tests), or as lines of cents appended to `acceptor-sim.in` in
the station directory (`echo 500 >> acceptor-sim.in`: a $5 bill, for the demo). Failures on the
next stack, from the spec or set by a test (`fail_next`):

- `jam`: the bill jams in escrow;
- `power-front`: power is lost with the bill in escrow; after the reset the acceptor says it
  pushed the bill back out of the front;
- `power-cashbox`: the same, and the bill went into the cash box;
- `power-unknown`: the same, and the acceptor cannot say where it went;
- `return`: the acceptor pushes the bill back instead of stacking it.

e.g. `sim:fail=jam` makes every stack jam.
"""

from __future__ import annotations

import threading
from collections import deque
from pathlib import Path

from pos.services.ports import AcceptorFault, BillEvent

INBOX = "acceptor-sim.in"
FAILURES = ("jam", "power-front", "power-cashbox", "power-unknown", "return")


class BadAcceptorSpec(ValueError):
    """An acceptor setting that names no device this driver can open."""


class SimulatedAcceptor:
    kind = "simulator"

    def __init__(self, options: str, station_dir: Path) -> None:
        settings = dict(item.split("=", 1) for item in options.split(",") if "=" in item)
        unknown = sorted(set(settings) - {"fail"})
        if unknown:
            raise BadAcceptorSpec(f"unknown simulator setting {unknown[0]!r} (known: fail)")
        self.failure = settings.get("fail") or None
        if self.failure is not None and self.failure not in FAILURES:
            raise BadAcceptorSpec(f"fail={self.failure!r}: use one of {', '.join(FAILURES)}")
        self.inbox = station_dir / INBOX
        self.enabled = False
        self.escrow: int | None = None
        self.cash_box: list[int] = []
        self.given_back: list[int] = []
        self.jammed: list[int] = []
        self._next: list[str] = []
        self._queue: deque[int] = deque()
        self._after_reset: list[BillEvent] = []
        self._lock = threading.Lock()

    # -- test controls ------------------------------------------------------------------------

    def insert(self, cents: int) -> None:
        """A player feeds a bill."""
        with self._lock:
            self._queue.append(int(cents))

    def fail_next(self, failure: str) -> None:
        if failure not in FAILURES:
            raise BadAcceptorSpec(f"{failure!r}: use one of {', '.join(FAILURES)}")
        with self._lock:
            self._next.append(failure)

    @property
    def pending(self) -> int:
        """Bills fed and not yet seen by a poll (tests wait for them)."""
        with self._lock:
            return len(self._queue)

    # -- the port -----------------------------------------------------------------------------

    def enable(self) -> None:
        self.enabled = True

    def disable(self) -> None:
        self.enabled = False

    def poll(self) -> list[BillEvent]:
        self._read_inbox()
        with self._lock:
            if self._after_reset:
                events, self._after_reset = self._after_reset, []
                return events
            if self.escrow is not None or not self._queue:
                return []
            amount = self._queue.popleft()
            if not self.enabled:
                self.given_back.append(amount)
                return [BillEvent("returned", amount, "the acceptor is not taking bills now")]
            self.escrow = amount
            return [BillEvent("escrow", amount)]

    def stack(self, timeout: float) -> BillEvent:
        with self._lock:
            amount = self._take()
            failure = self._next.pop(0) if self._next else self.failure
            if failure == "jam":
                self.jammed.append(amount)
                return BillEvent("jam", amount, "the bill jammed in escrow")
            if failure == "return":
                self.given_back.append(amount)
                return BillEvent("returned", amount, "the acceptor pushed the bill back")
            if failure is not None and failure.startswith("power-"):
                where = failure.removeprefix("power-")
                if where == "front":
                    self.given_back.append(amount)
                    self._after_reset = [BillEvent("returned", amount, cleared=True)]
                elif where == "cashbox":
                    self.cash_box.append(amount)
                    self._after_reset = [BillEvent("stacked", amount, cleared=True)]
                return BillEvent("reset", 0, "the acceptor lost power with a bill in escrow")
            self.cash_box.append(amount)
            return BillEvent("stacked", amount)

    def return_bill(self, timeout: float) -> BillEvent:
        with self._lock:
            amount = self._take()
            self.given_back.append(amount)
            return BillEvent("returned", amount, "given back")

    def _take(self) -> int:
        if self.escrow is None:
            raise AcceptorFault("no bill is in escrow")
        amount, self.escrow = self.escrow, None
        return amount

    def _read_inbox(self) -> None:
        try:
            lines = self.inbox.read_text().split()
        except OSError:
            return
        self.inbox.unlink(missing_ok=True)
        for line in lines:
            if line.isdigit() and int(line) > 0:
                self.insert(int(line))
