"""A kiosk's cash, bill by bill: a bill is held in escrow and recorded (BillEscrowed), and when it
completes a purchase the sale is recorded with it (DispenseRequested, paid from the credit);
then the bill is stacked (BillStacked: the player's credit) and the tickets dispensed. If the
bill comes back (BillReturned) the sale is cancelled; if it jams inside (BillJammed) it is
credited, the sale cancelled, staff called (an exception for the manager) and the credit paid
out as a voucher. Credit left when the player touches Done is printed as a voucher; credit left
when the player walked away (the kiosk timed out, or someone else scanned in) is kept on the
record for staff (`keep_credit`, listed by `credit_left_open`), never printed to an empty kiosk
nor spent by the next player, until staff pay it out as a voucher (`pay_out_credit_left`).

Every step is on the record before the next one moves money, so a kiosk that stops between two
steps finds the step it was at when it starts again (`reconcile`): a bill in escrow is settled
as the acceptor says after its reset (returned, or stacked and credited; credited when it
cannot tell), a paid sale with no outcome is cancelled and credited, and any credit is paid out.
A customer's money is never lost, and nothing is dispensed unpaid."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from pos.domain.money import format_amount
from pos.errors import BoothError, HardwareFailure, NotFound
from pos.ledger.projections import kiosk_cash as cash_read
from pos.services import devices_rental, sales
from pos.services.numbering import next_receipt_number
from pos.services.ports import BillEvent, Dispenser
from pos.services.station import Station


@dataclass(frozen=True)
class Purchase:
    """What the player chose, priced, before any money moves: tickets of a deal, or (with
    `package`) a bingo device rental of `faces` x `games`."""

    serial: str
    qty: int
    buyer: str
    price: int  # cents a ticket (or the package)
    package: str = ""
    faces: int = 0
    games: int = 0

    @property
    def cost(self) -> int:
        return self.qty * self.price

    @property
    def rental(self) -> bool:
        return bool(self.package)


@dataclass(frozen=True)
class Taken:
    """A bill in escrow, recorded; `request`: the sale it completes (recorded); `refused`: why
    the sale it would complete cannot go ahead (the bill goes back)."""

    bill: str
    amount: int
    request: sales.KioskRequest | None = None
    refused: BoothError | None = None


def credit(st: Station) -> int:
    return cash_read.credit(st.ledger.conn, st.id)


def bills_in_escrow(st: Station) -> int:
    """How many bills the ledger says are in escrow (a kiosk that stopped between two steps)."""
    return len(cash_read.bills_in_escrow(st.ledger.conn, st.id))


def take_bill(st: Station, amount: int, purchase: Purchase | None) -> Taken:
    """A bill of `amount` cents is in escrow. When it (with the credit held) pays `purchase`,
    the sale is recorded in the same transaction; else the bill will just add to the credit."""
    bill = secrets.token_hex(6)
    try:
        with st.ledger.transaction():
            held = credit(st)
            request = None
            if purchase is not None and not purchase.rental and held + amount >= purchase.cost:
                request = sales.kiosk_request(
                    st,
                    purchase.serial,
                    purchase.qty,
                    sales.Buyers(buyer=purchase.buyer),
                    credit=held + amount,
                    bill=bill,
                )
            st.append(
                "BillEscrowed",
                {"bill": bill, "amount": amount, "sale": request.sale if request else None},
            )
        return Taken(bill, amount, request)
    except BoothError as refusal:
        with st.ledger.transaction():
            st.append("BillEscrowed", {"bill": bill, "amount": amount, "sale": None})
        return Taken(bill, amount, refused=refusal)


def bill_stacked(st: Station, bill: str, amount: int, *, cleared: bool = False) -> None:
    with st.ledger.transaction():
        body: dict[str, Any] = {"bill": bill, "amount": amount}
        if cleared:
            body["cleared"] = True
            body["detail"] = "found in the cash box after the acceptor restarted"
        st.append("BillStacked", body)


def bill_credited_after_reset(st: Station, taken: Taken) -> None:
    """The acceptor restarted holding the bill and says it went into the cash box: credited;
    the sale it was to pay waits for the player to pay again from the credit."""
    with st.ledger.transaction():
        bill_stacked(st, taken.bill, taken.amount, cleared=True)
        if taken.request is not None:
            sales.cancel_kiosk_request(
                st, taken.request.sale, "the bill acceptor restarted: the bill is credited"
            )


def bill_returned(st: Station, taken: Taken, reason: str) -> None:
    """The bill came back out: the sale it was to pay is cancelled (nothing dispensed)."""
    with st.ledger.transaction():
        st.append("BillReturned", {"bill": taken.bill, "amount": taken.amount, "reason": reason})
        if taken.request is not None:
            sales.cancel_kiosk_request(st, taken.request.sale, f"the bill came back: {reason}")


@dataclass(frozen=True)
class PaidOut:
    voucher: int
    amount: int


def bill_jammed(st: Station, taken: Taken, detail: str) -> PaidOut | None:
    """The bill is stuck inside: credited (it is the player's money, in the machine), the sale
    cancelled, staff called, and the credit paid out as a voucher."""
    with st.ledger.transaction():
        st.append("BillJammed", {"bill": taken.bill, "amount": taken.amount, "detail": detail})
        if taken.request is not None:
            sales.cancel_kiosk_request(st, taken.request.sale, f"the bill jammed: {detail}")
        _call_staff(
            st,
            "acceptor-jam",
            f"{st.id}: a ${format_amount(taken.amount)} bill is stuck in the bill acceptor "
            f"({detail}); the player was credited: clear it into the cash box",
            amount=taken.amount,
        )
        return cash_out(st, "bill acceptor jam")


def sell_paid(
    st: Station, taken: Taken, dispenser: Dispenser | None
) -> sales.Sale | sales.NothingDispensed:
    """The bill paying `taken.request` is stacked: the tickets come out (or are credited)."""
    assert taken.request is not None
    if dispenser is None:  # recorded, paid, and nothing can come out: credited
        with st.ledger.transaction():
            sales.cancel_kiosk_request(st, taken.request.sale, "no dispenser")
        return sales.NothingDispensed(taken.request.count)
    return sales.kiosk_dispense(st, taken.request, dispenser)


def sell_from_credit(st: Station, purchase: Purchase, dispenser: Dispenser | None) -> sales.Sale:
    """The credit already covers the purchase: record the sale, then dispense."""
    if dispenser is None:
        raise HardwareFailure("this kiosk has no dispenser configured: booth dispenser set ...")
    request = sales.kiosk_request(
        st,
        purchase.serial,
        purchase.qty,
        sales.Buyers(buyer=purchase.buyer),
        credit=credit(st),
    )
    return sales.kiosk_dispense(st, request, dispenser)


def rent_from_credit(st: Station, purchase: Purchase) -> devices_rental.Rental:
    """A device rental the credit covers: recorded and paid in one transaction (nothing is
    handed out before it is on the record)."""
    return devices_rental.rent(
        st,
        faces=purchase.faces,
        games=purchase.games,
        buyer=purchase.buyer,
        operator=None,
        credit=credit(st),
    )


def cash_out(st: Station, reason: str) -> PaidOut | None:
    """The kiosk's credit, all of it, on a voucher (printed by the print queue)."""
    with st.ledger.transaction():
        held = credit(st)
        if held <= 0:
            return None
        return _voucher(st, held, f"kiosk credit: {reason}", by=None, from_credit=True)


CreditLeft = cash_read.CreditLeft


def keep_credit(st: Station, reason: str) -> CreditLeft | None:
    """The player walked away from credit on the kiosk: all of it is kept on the record for
    staff (it leaves the kiosk's credit: the next player cannot spend it), staff are called,
    and nothing prints. None when there was no credit."""
    with st.ledger.transaction():
        held = credit(st)
        if held <= 0:
            return None
        kept = secrets.token_hex(6)
        st.append("KioskCreditKept", {"kept": kept, "amount": held, "reason": reason})
        _call_staff(
            st,
            "kiosk-credit-left",
            f"{st.id}: a player left ${format_amount(held)} of credit on the kiosk ({reason}); "
            "it is kept for them and nothing printed: pay it out as a voucher from the kiosk's "
            "staff screen when they ask",
            amount=held,
        )
    return next(c for c in credit_left_open(st) if c.kept == kept)


def credit_left_open(st: Station) -> list[CreditLeft]:
    """Credit players left on this kiosk and staff have not paid out yet, oldest first."""
    return cash_read.credit_left(st.ledger.conn, st.id)


def pay_out_credit_left(st: Station, kept: str, *, operator: str | None) -> PaidOut:
    """Staff pay out credit a player left (`kept`, from `credit_left_open`) as a voucher,
    printed by the print queue. Once: a second pay-out of the same credit is refused."""
    by = st.operator(operator, "seller")
    with st.ledger.transaction():
        found = next((c for c in credit_left_open(st) if c.kept == kept), None)
        if found is None:
            raise NotFound(f"no credit left on {st.id} is open under {kept!r}: paid out already?")
        return _voucher(
            st,
            found.amount,
            f"kiosk credit a player left: {found.reason}",
            by=by.badge,
            credit_left=kept,
        )


def _voucher(st: Station, amount: int, reason: str, *, by: str | None, **about: object) -> PaidOut:
    """The kiosk's credit leaves as a voucher under the next receipt number (the print queue
    prints it); `about` says which credit (`from_credit`, `credit_left`). In the caller's
    transaction."""
    number = next_receipt_number(st)
    st.append(
        "VoucherIssued",
        {"amount": amount, "reason": reason, "by": by, "receipt": number, **about},
    )
    return PaidOut(number, amount)


GIVEN_BACK_AT_START = "in escrow when the kiosk stopped: given back when it started"


def bill_given_back_at_start(st: Station, amount: int) -> list[str]:
    """At start-up the acceptor still held a bill in escrow (the kiosk stopped with it there)
    and gave it back: the player has it, so the ledger's bill in escrow is returned, not
    credited, and staff are told. `amount` 0: the acceptor could not say the bill's value."""
    with st.ledger.transaction():
        held = cash_read.bills_in_escrow(st.ledger.conn, st.id)
        bill = next((b for b in reversed(held) if amount in (0, b.amount)), None)
        value = bill.amount if bill is not None else amount
        money = f"${format_amount(value)} bill" if value else "bill of a value it did not say"
        if bill is not None:
            body = {"bill": bill.bill, "amount": bill.amount, "reason": GIVEN_BACK_AT_START}
            st.append("BillReturned", body)
        recorded = "" if bill is not None else " (none was on the record: nothing to settle)"
        _call_staff(
            st,
            "acceptor-returned",
            f"{st.id}: a {money} was in escrow when the kiosk stopped; the acceptor gave it "
            f"back to the player when the kiosk started: not credited{recorded}",
            amount=value or None,
        )
    name = f"bill {bill.bill}" if bill is not None else "a bill"
    return [f"{name} ({money}) was in escrow when the kiosk stopped: given back"]


def _call_staff(st: Station, flag: str, detail: str, *, amount: int | None = None) -> None:
    """Staff called: an exception this kiosk flags, listed on its staff screen until cleared
    (pos.services.kiosk_calls); `amount`: the cents it concerns."""
    body: dict[str, Any] = {
        "flag": flag,
        "serial": None,
        "ticket": None,
        "detail": detail,
        "by": None,
    }
    if amount is not None:
        body["amount"] = amount
    st.append("ExceptionFlagged", body)


def reconcile(st: Station, after_reset: list[BillEvent]) -> list[str]:
    """At start-up: settle what the ledger left half-done, with what the acceptor reported
    after its own reset (`stacked`/`returned` events with `cleared`). Returns what was done."""
    done: list[str] = []
    conn = st.ledger.conn
    cleared = [e for e in after_reset if e.cleared and e.kind in ("stacked", "returned")]
    with st.ledger.transaction():
        for held in cash_read.bills_in_escrow(conn, st.id):
            said = next((e for e in cleared if e.amount == held.amount), None)
            if said is None:  # a new driver may not know the value of a bill held before
                said = next((e for e in cleared if e.amount == 0), None)
            money = "$" + format_amount(held.amount)
            if said is not None:
                cleared.remove(said)
            if said is not None and said.kind == "returned":
                st.append(
                    "BillReturned",
                    {
                        "bill": held.bill,
                        "amount": held.amount,
                        "reason": "returned from the front when the acceptor restarted",
                    },
                )
                done.append(f"bill {held.bill} ({money}) was returned at the acceptor's reset")
            elif said is not None:
                bill_stacked(st, held.bill, held.amount, cleared=True)
                done.append(f"bill {held.bill} ({money}) was stacked: credited")
            else:
                st.append(
                    "BillStacked",
                    {
                        "bill": held.bill,
                        "amount": held.amount,
                        "detail": "the acceptor could not say where it went: credited",
                    },
                )
                _call_staff(
                    st,
                    "acceptor-unknown",
                    f"{st.id}: a {money} bill was in escrow when the kiosk stopped and the "
                    "acceptor could not say where it went; the player was credited: check the "
                    "cash box against the count",
                    amount=held.amount,
                )
                done.append(f"bill {held.bill} ({money}): not known, credited")
        for request in cash_read.open_paid_requests(conn, st.id):
            sale = str(request["sale"])
            bill = (request.get("pay") or {}).get("bill")
            state = cash_read.bill(conn, st.id, bill) if bill else None
            if state is not None and state.state == cash_read.RETURNED:
                sales.cancel_kiosk_request(st, sale, "the bill paying it came back")
                continue
            sales.cancel_kiosk_request(
                st, sale, "the kiosk stopped before the tickets were dispensed: credited"
            )
            _call_staff(
                st,
                "dispense-unknown",
                f"{st.id}: a paid sale of {request['qty']} x {request['serial']} was recorded "
                "but the kiosk stopped before its tickets were counted out; the player was "
                "credited: check the column",
            )
            done.append(f"sale {sale} cancelled and credited")
        # Nobody may be standing at a kiosk that restarted: the credit is kept for staff, as
        # when a player walks away, and nothing prints.
        kept = keep_credit(st, "left on the kiosk when it restarted")
        if kept is not None:
            done.append(f"credit of ${format_amount(kept.amount)} kept for staff to pay out")
    return done
