"""The kiosk's bill acceptor beside the UI: one cash thread polls it, and every step with a bill
is recorded through the station worker before the next one moves money (pos.services.
kiosk_cash). The pay screen offers a purchase (the acceptor takes bills) and withdraws it (the
acceptor refuses them); what happened is posted to the UI as outcomes. No Kivy here.

When the acceptor is in trouble (it does not answer, its line vanished, it reports a jam or its
cash box out) the thread backs off (pos.backoff: doubling waits up to a few seconds) and tries
again until it answers; the status bar says which trouble in words, and the log gets one line
when the trouble starts or changes and one when the acceptor is ready again, not one a poll.

After the acceptor restarted (power lost with a bill in escrow) the driver leaves it disabled;
the thread waits to hear where the held bill went, keeping every other event it hears meanwhile
for after, in order, and only then enables it again (issue #29). At start-up a bill the acceptor
still holds in escrow (the kiosk died with it there) is given back and recorded so, not
credited."""

from __future__ import annotations

import contextlib
import logging
import termios
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from hardware.acceptor.line import AcceptorUnplugged, reason
from kiosk.viewmodels import kiosk as vm_kiosk
from kiosk.viewmodels.common import Outcome
from pos.backoff import Retrying
from pos.services import kiosk_cash
from pos.services.ports import AcceptorFault, BillAcceptor, BillEvent

if TYPE_CHECKING:
    from kiosk.runtime import StationRuntime
    from pos.services.station import Station

log = logging.getLogger(__name__)
STACK_TIMEOUT = 10.0
RESET_WAIT = 3.0  # how long the acceptor has to say, after its reset, where the bill went
RETRY_FIRST = 0.2  # s: the wait after the acceptor's first failure; it doubles with each one
RETRY_MOST = 3.0  # s: and never grows past this
LINE_ERRORS: tuple[type[BaseException], ...] = (OSError, termios.error)  # a driver let them out


@dataclass(frozen=True)
class CashNews:
    """What the pay screen hears: `credit` (a bill added to the credit), `sold` (the purchase
    is paid and done: `outcome`), `back` (a bill given back), `jam` (a bill stuck, credited as
    a voucher), `restarted` (the acceptor lost power), `fault` (the acceptor's trouble)."""

    kind: str
    outcome: Outcome | None = None
    credit: int = 0


class CashDesk:
    def __init__(
        self,
        runtime: StationRuntime,
        acceptor: BillAcceptor,
        *,
        interval: float = 0.05,
    ) -> None:
        self.runtime = runtime
        self.acceptor = acceptor
        self.interval = interval
        self.listeners: list[Callable[[CashNews], None]] = []
        self.fault = ""
        self.unplugged = False
        self._said = ""  # the trouble last logged and shown ("" when ready)
        self._retry = Retrying(RETRY_FIRST, RETRY_MOST)
        self._delay = interval
        self._purchase: kiosk_cash.Purchase | None = None
        self._want_enabled = False
        self._enabled: bool | None = None
        self._heard: deque[BillEvent] = deque()  # polled, not yet handled: in the order said
        self._lock = threading.Lock()
        self._busy = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="booth-cash", daemon=True)

    # -- the UI's side ------------------------------------------------------------------------

    def offer(self, purchase: kiosk_cash.Purchase) -> None:
        """The pay screen shows `purchase`: bills are taken towards it."""
        with self._lock:
            self._purchase, self._want_enabled = purchase, True

    def withdraw(self) -> None:
        """Off the pay screen: bills are refused at the mouth."""
        with self._lock:
            self._purchase, self._want_enabled = None, False

    @property
    def busy(self) -> bool:
        pending = int(getattr(self.acceptor, "pending", 0))
        with self._lock:
            return self._busy > 0 or pending > 0

    # -- lifetime -----------------------------------------------------------------------------

    def start(self) -> list[str]:
        """Reconcile what the ledger left half-done (with what the acceptor says after its own
        start), then poll on the cash thread. A bill the acceptor still holds in escrow is given
        back first: the player has it in hand, so it is not credited."""
        held = self.runtime.worker_call(kiosk_cash.bills_in_escrow)
        said: list[BillEvent] = []
        back: BillEvent | None = None
        try:
            said = self._first_words(waiting=held > 0)
            escrowed = next((e for e in said if e.kind == "escrow"), None)
            if escrowed is not None:
                said.remove(escrowed)
                back = self._give_back_at_start(escrowed)
                if back.kind == "stacked":  # it went into the cash box after all: credited
                    said.append(BillEvent("stacked", back.amount, back.detail, cleared=True))
                if back.kind != "returned":  # else stuck, or nobody can say: credited
                    back = None
        except AcceptorFault as fault:
            self._trouble(fault)
        except LINE_ERRORS as exc:
            self._trouble(self._line_gone(exc))
        self._show_state()

        def settle(st: Station) -> list[str]:
            done = [] if back is None else kiosk_cash.bill_given_back_at_start(st, back.amount)
            return done + kiosk_cash.reconcile(st, after_reset=said)

        done = self.runtime.worker_call(settle)
        if done:
            log.warning("kiosk cash reconciled at start-up: %s", "; ".join(done))
            self.runtime.print_queue()
        self._thread.start()
        return done

    def _first_words(self, *, waiting: bool) -> list[BillEvent]:
        """What the acceptor says as the kiosk starts. When it restarted and the ledger holds a
        bill in escrow (`waiting`), until it says where that bill went (or RESET_WAIT)."""
        said = self.acceptor.poll()
        if waiting and any(e.kind == "reset" for e in said):
            deadline = time.monotonic() + RESET_WAIT
            while not any(e.cleared for e in said) and time.monotonic() < deadline:
                time.sleep(self.interval)
                with contextlib.suppress(AcceptorFault):  # still coming back: ask again
                    said += self.acceptor.poll()
        return said

    def _give_back_at_start(self, held: BillEvent) -> BillEvent:
        """The acceptor holds a bill in escrow from before the kiosk started: give it back. What
        became of it (`returned`, or `stacked`/`jam` when the acceptor did otherwise)."""
        try:
            result = self.acceptor.return_bill(STACK_TIMEOUT)
        except AcceptorFault as fault:  # nobody can say: the ledger's escrow is credited
            result = BillEvent("jam", held.amount, str(fault))
        amount = result.amount or held.amount  # SSP cannot say the value of a bill held before
        log.warning("bill acceptor: a bill in escrow at start-up: %s", result.kind)
        return BillEvent(result.kind, amount, result.detail)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=STACK_TIMEOUT + 2)
        with contextlib.suppress(AcceptorFault, *LINE_ERRORS):
            self.acceptor.disable()
        close = getattr(self.acceptor, "close", None)
        if callable(close):
            close()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                self._busy += 1
            try:
                troubled = self._step()
            except AcceptorFault as fault:
                self._trouble(fault)
            except LINE_ERRORS as exc:
                self._trouble(self._line_gone(exc))
            except Exception as exc:  # a driver's surprise: said once, then backed off
                detail = f"the bill acceptor failed ({type(exc).__name__}: {exc})"
                self._trouble(AcceptorFault(detail), exc_info=exc)
            else:
                if not troubled:
                    self._working()
            finally:
                with self._lock:
                    self._busy -= 1
            self._stop.wait(self._delay)

    def _step(self) -> bool:
        """One poll and what it brought; True when the acceptor reported trouble."""
        with self._lock:
            want = self._want_enabled
        if want != self._enabled:
            (self.acceptor.enable if want else self.acceptor.disable)()
            self._enabled = want
        self._heard.extend(self.acceptor.poll())
        troubled = False
        while self._heard:
            troubled = self._handle(self._heard.popleft()) or troubled
        return troubled

    # -- trouble --------------------------------------------------------------------------------

    def _trouble(self, fault: AcceptorFault, exc_info: BaseException | None = None) -> None:
        """The acceptor is in trouble: wait longer before the next try, say it once."""
        self._delay = self._retry.next()
        self._enabled = None  # enable or disable it again once it answers
        self.fault, self.unplugged = str(fault), isinstance(fault, AcceptorUnplugged)
        state = "unplugged" if self.unplugged else self.fault
        if state != self._said:
            self._said = state
            log.warning("bill acceptor: %s (trying again)", fault, exc_info=exc_info)
            self._tell(CashNews("fault"))
            self._show_state()

    def _working(self) -> None:
        self._retry.reset()
        self._delay = self.interval
        if self._said or self.fault:
            if self._said:
                log.warning("bill acceptor: ready again")
            self._said, self.fault, self.unplugged = "", "", False
            self._show_state()

    def _line_gone(self, exc: BaseException) -> AcceptorUnplugged:
        """A driver let its line's error out: drop the dead port (opened again next time)."""
        close = getattr(self.acceptor, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
        return AcceptorUnplugged(f"the line to the bill acceptor is gone ({reason(exc)})")

    # -- a bill -------------------------------------------------------------------------------

    def _handle(self, event: BillEvent) -> bool:
        """One event from a poll; True when it is trouble (a jam, the acceptor's fault)."""
        if event.kind == "escrow":
            self._escrow(event.amount)
        elif event.kind == "returned" and not event.cleared:
            self._tell(CashNews("back", vm_kiosk.bill_back(event.amount, event.detail)))
        elif event.kind in ("jam", "fault"):
            self._trouble(AcceptorFault(event.detail or "the bill acceptor reports trouble"))
            return True
        elif event.kind == "reset":  # it restarted disabled: enabled again if bills are wanted
            self._enabled = None
        return False

    def _show_state(self) -> None:
        """The status bar's word on the acceptor: staff see a fault from across the hall."""
        if self.unplugged:  # in a word or two: the pay screen and the log have the details
            self.runtime.set_bills("Bills: unplugged", "error")
        elif self.fault:
            jammed = "jam" in self.fault.lower()
            self.runtime.set_bills(f"Bills: {'jammed' if jammed else 'out of service'}", "error")
        else:
            self.runtime.set_bills("Bills: ready", "ok")

    def _escrow(self, amount: int) -> None:
        with self._lock:
            purchase = self._purchase
        if purchase is None or amount <= 0:  # nothing offered now: it goes back, unrecorded
            self.acceptor.return_bill(STACK_TIMEOUT)
            self._tell(CashNews("back", vm_kiosk.bill_back(amount)))
            return
        taken = self.runtime.worker_call(
            partial(kiosk_cash.take_bill, amount=amount, purchase=purchase)
        )
        if taken.refused is not None:
            self.acceptor.return_bill(STACK_TIMEOUT)
            reason = getattr(taken.refused, "message", str(taken.refused))
            self.runtime.worker_call(partial(kiosk_cash.bill_returned, taken=taken, reason=reason))
            outcome = vm_kiosk.bill_back(amount, reason[:1].upper() + reason[1:])
            self._tell(CashNews("back", outcome))
            return
        try:
            result = self.acceptor.stack(STACK_TIMEOUT)
        except AcceptorFault as fault:
            result = BillEvent("jam", amount, f"the acceptor stopped answering: {fault}")
        if result.kind == "reset":
            self._enabled = None  # the driver left it disabled: enabled once this is settled
            result = self._after_reset(amount)
            if result.kind == "stacked":
                self.runtime.worker_call(partial(kiosk_cash.bill_credited_after_reset, taken=taken))
                self._tell(CashNews("restarted", vm_kiosk.credited_after_reset(amount)))
                return
            if result.kind == "returned":
                self.runtime.worker_call(
                    partial(
                        kiosk_cash.bill_returned,
                        taken=taken,
                        reason="the acceptor restarted and gave it back",
                    )
                )
                self._tell(CashNews("restarted", vm_kiosk.returned_after_reset(amount)))
                return
        if result.kind == "stacked":
            self.runtime.worker_call(
                partial(kiosk_cash.bill_stacked, bill=taken.bill, amount=amount)
            )
            if taken.request is None:
                rental = self.runtime.worker_call(partial(vm_kiosk.rent_if_paid, purchase=purchase))
                if rental is not None:  # a rental is recorded once paid: nothing before
                    self.runtime.print_queue()
                    self.withdraw()
                    self._tell(CashNews("sold", rental))
                    return
                self._tell(CashNews("credit"))
                return
            dispenser = self.runtime.dispenser
            sale = self.runtime.worker_call(
                lambda st: vm_kiosk.sold(kiosk_cash.sell_paid(st, taken, dispenser))
            )
            self.runtime.print_queue()
            self.withdraw()
            self._tell(CashNews("sold", sale))
            return
        if result.kind == "returned":
            self.runtime.worker_call(
                partial(kiosk_cash.bill_returned, taken=taken, reason=result.detail or "given back")
            )
            self._tell(CashNews("back", vm_kiosk.bill_back(amount, result.detail)))
            return
        detail = result.detail or "the acceptor could not say where the bill went"
        paid = self.runtime.worker_call(partial(kiosk_cash.bill_jammed, taken=taken, detail=detail))
        self.runtime.print_queue()
        self.withdraw()
        self._tell(CashNews("jam", vm_kiosk.bill_jammed(amount, paid)))

    def _after_reset(self, amount: int) -> BillEvent:
        """After the acceptor restarted: what it says of the bill it held (or `jam`: unknown).
        Anything else it says meanwhile is kept, in order, for the thread to handle after."""
        deadline = time.monotonic() + RESET_WAIT
        while time.monotonic() < deadline:
            try:
                said = self.acceptor.poll()
            except AcceptorFault:
                said = []  # still coming back, or a trouble the next step will show: ask again
            for index, event in enumerate(said):
                if event.cleared and event.kind in ("stacked", "returned"):
                    self._heard.extend(said[index + 1 :])
                    return event
                self._heard.append(event)
            time.sleep(self.interval)
        return BillEvent("jam", amount, "power was lost and the acceptor cannot say where it went")

    def _tell(self, news: CashNews) -> None:
        for listener in list(self.listeners):
            self.runtime.post(partial(listener, news))
