"""A kiosk's open calls for staff: what it told a player "Staff have been called" about (a bill
jammed in the acceptor, a dispenser that gave too few tickets, a bill found in escrow at
start-up...), and staff clearing them at the kiosk.

A call is an exception the kiosk flagged itself (ExceptionFlagged, its own origin) that nobody
has cleared or decided yet: one query over the flags, so a kind of call added later is listed
and can be cleared with no change here. Clearing one is a decision on the record
(ExceptionResolved, `noted`, with the badge of who cleared it), the same the manager's
Exceptions tab records: cleared at the kiosk, it is no longer open there either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pos.domain import event_time
from pos.errors import NotFound
from pos.services import exceptions
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


def open_calls(st: Station) -> list[KioskCall]:
    """Every exception this station flagged that is not cleared or decided, oldest first."""
    rows = st.ledger.conn.execute(
        "SELECT origin, seq, kind, detail FROM p_flags WHERE origin = ? AND resolved = 0 "
        "ORDER BY hlc, seq",
        (st.id,),
    ).fetchall()
    calls = []
    for origin, seq, kind, detail in rows:
        event = st.ledger.get(str(origin), int(seq))
        if event is None:  # a flag is projected from its event: never without it
            continue
        body = event.body
        amount = body.get("amount")
        calls.append(
            KioskCall(
                origin=str(origin),
                seq=int(seq),
                kind=str(kind),
                detail=str(detail),
                at=event_time.event_instant(event.hlc, body, st.hall.time_zone),
                amount=amount if isinstance(amount, int) and not isinstance(amount, bool) else None,
            )
        )
    return calls


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
        exceptions.resolve_exception(
            st, origin, seq, decision="noted", note=CLEARED_AT_KIOSK, operator=operator
        )
    return call


__all__ = ["ACCEPTOR_JAM", "CLEARED_AT_KIOSK", "KioskCall", "acceptor_jammed", "clear_call"]
