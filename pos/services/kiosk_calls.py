"""A kiosk's open calls for staff: what it told a player "Staff have been called" about (a bill
jammed in the acceptor, a dispenser that gave too few tickets, a bill found in escrow at
start-up...), and staff clearing them at the kiosk.

A call is an exception the kiosk flagged itself (ExceptionFlagged, its own origin) that nobody
has cleared or decided yet: one query over the flags, so a kind of call added later is listed
and can be cleared with no change here. Clearing one is a decision on the record
(ExceptionResolved, `noted`, with the badge of who cleared it), the same the manager's
Exceptions tab records: cleared at the kiosk, it is no longer open there either.

Credit a player walked away from (KioskCreditKept, recorded in the call's own transaction, the
event before it) is money owed: its call is not cleared alone but paid out, as a voucher, and
cleared with it in one transaction (`pay_out_and_clear`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pos.domain import event_time
from pos.errors import BadInput, NotFound
from pos.ledger.projections import winners as winners_read
from pos.services import exceptions, kiosk_cash
from pos.services.station import Station

#: the note a call cleared at the kiosk carries on the record
CLEARED_AT_KIOSK = "cleared at the kiosk by staff"
#: the kind of call a bill stuck in the acceptor raises (pos.services.kiosk_cash)
ACCEPTOR_JAM = "acceptor-jam"


@dataclass(frozen=True)
class KioskCall:
    """One open call: the flag's event (`origin`, `seq`), its kind and the kiosk's detail, when
    it was raised (hall time) and the money it concerns in cents (None: not recorded)."""

    origin: str
    seq: int
    kind: str
    detail: str
    at: datetime
    amount: int | None
    #: credit kept for a player that this call is about, not paid out yet: pay it out to clear
    pay_out: str | None = None


def open_calls(st: Station) -> list[KioskCall]:
    """Every exception this station flagged that is not cleared or decided, oldest first."""
    rows = winners_read.open_flags_raised_by(st.ledger.conn, st.id)
    kept_open = {c.kept: c.amount for c in kiosk_cash.credit_left_open(st)}
    calls = []
    for origin, seq, kind, detail in rows:
        event = st.ledger.get(str(origin), int(seq))
        if event is None:  # a flag is projected from its event: never without it
            continue
        body = event.body
        amount = body.get("amount")
        cents = amount if isinstance(amount, int) and not isinstance(amount, bool) else None
        kept = _credit_kept(st, str(origin), int(seq))
        if kept is not None and cents is None:
            cents = kept[1]
        calls.append(
            KioskCall(
                origin=str(origin),
                seq=int(seq),
                kind=str(kind),
                detail=str(detail),
                at=event_time.event_instant(event.hlc, body, st.hall.time_zone),
                amount=cents,
                pay_out=kept[0] if kept is not None and kept[0] in kept_open else None,
            )
        )
    return calls


def _credit_kept(st: Station, origin: str, seq: int) -> tuple[str, int] | None:
    """(kept, cents) of the credit kept for a player in the call's transaction (the event just
    before it: pos.services.kiosk_cash.keep_credit), if that is what the call is about."""
    before = st.ledger.get(origin, seq - 1) if seq > 1 else None
    if before is None or before.kind != "KioskCreditKept":
        return None
    body = before.body
    return str(body["kept"]), int(body["amount"])


def acceptor_jammed(st: Station) -> bool:
    """A bill jam at this kiosk that staff have not cleared yet."""
    return any(call.kind == ACCEPTOR_JAM for call in open_calls(st))


def clear_call(st: Station, origin: str, seq: int, *, operator: str | None) -> KioskCall:
    """Staff cleared the call `origin`:`seq` at this kiosk: recorded with their badge (a
    manager's: the services check the role). Once: a call cleared already is not open."""
    with st.ledger.transaction():
        call = next((c for c in open_calls(st) if (c.origin, c.seq) == (origin, seq)), None)
        if call is None:
            raise NotFound("that call is not open at this kiosk (cleared already?)")
        if call.pay_out is not None:
            raise BadInput("call", "a player's credit is owed: pay it out to clear the call")
        exceptions.resolve_exception(
            st, origin, seq, decision="noted", note=CLEARED_AT_KIOSK, operator=operator
        )
    return call


def pay_out_and_clear(
    st: Station, origin: str, seq: int, *, operator: str | None
) -> kiosk_cash.PaidOut:
    """Staff pay out the credit a player left (the call `origin`:`seq` is about) as a voucher,
    printed by the print queue, and the call is cleared: one transaction, once."""
    with st.ledger.transaction():
        call = next((c for c in open_calls(st) if (c.origin, c.seq) == (origin, seq)), None)
        if call is None or call.pay_out is None:
            raise NotFound("no credit is owed on that call (paid out already?)")
        paid = kiosk_cash.pay_out_credit_left(st, call.pay_out, operator=operator)
        exceptions.resolve_exception(
            st,
            origin,
            seq,
            decision="noted",
            note=f"{CLEARED_AT_KIOSK}: paid out on voucher #{paid.voucher}",
            operator=operator,
        )
    return paid


__all__ = [
    "ACCEPTOR_JAM",
    "CLEARED_AT_KIOSK",
    "KioskCall",
    "acceptor_jammed",
    "clear_call",
    "pay_out_and_clear",
]
