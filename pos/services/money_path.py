"""The one way money moves: every sale and every prize, whatever the game, passes here.

The guards the pull-tab booth earned first, once for every product kind:

- `session_for_money(st)`: the session a sale or a payment lands in. Open hall-wide, and this
  station not closed for it (CLOSE): after its close marker a station sells and pays nothing
  more in the session, until a manager reopens it with a reason on the record (`reopen`).
- `prize_unpaid(st, prize, what)`: a prize is paid once (PAID). Its identity is one of
  `pos.ledger.projections.prizes`' keys (a ticket, a seal line, a bingo game's prize, the chest,
  a raffle prize, a voucher); paying it again is refused and names the first payment.
- `once(st, attempt, run, repeated)`: exactly once. A write carries an attempt id (the CLI's
  request id, the control socket's, a screen button's); the same id again runs nothing and
  answers from the claim the first run left. The CLI, the control socket and every screen ask
  `done_before` here, and nowhere else.

Money is integer cents in every value here; formatting is the front end's.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from pos.domain.checks import sessions as session_checks
from pos.domain.hlc import local_minute
from pos.errors import BadInput, refuse
from pos.ledger import requests
from pos.ledger.projections import closing as closing_read
from pos.ledger.projections.sessions import Session
from pos.services import newer_release
from pos.services.current_session import hall_date, open_session_now, require_open_session
from pos.services.station import Station

if TYPE_CHECKING:
    from pos.domain.checks import prizes as prize_checks

T = TypeVar("T")

Claim = requests.Claim


# --- a station closed for the session ---------------------------------------------------------


def _when(st: Station, hlc: str) -> str:
    """A stamp as the hall's clock showed it: "19:05" today, "2026-11-27 19:05" before."""
    shown = local_minute(hlc, st.hall.time_zone)
    today = hall_date(st, st.clock.now()).isoformat()
    return shown[11:] if shown.startswith(today) else shown


def refuse_if_closed(st: Station, session: Session) -> None:
    """CLOSE: refused when this station recorded its close marker for `session`."""
    marker = closing_read.close_marker(st.ledger.conn, session.id, st.id)
    refuse(
        session_checks.station_open(
            session.id,
            closed_at=_when(st, marker.hlc) if marker else None,
        )
    )


def session_for_money(st: Station) -> Session:
    """The open session a sale or a payment lands in (SESSION), this station not closed for it
    (CLOSE). Inside the command's transaction."""
    newer_release.guard(st, "money")
    session = require_open_session(st)
    refuse_if_closed(st, session)
    return session


def session_if_any(st: Station) -> Session | None:
    """For what may also be sold outside a session (raffle tickets, vouchers): the session open
    now, or None; refused (CLOSE) when this station closed for it."""
    newer_release.guard(st, "money")
    session = open_session_now(st)
    if session is not None:
        refuse_if_closed(st, session)
    return session


@dataclass(frozen=True)
class Reopened:
    session: str
    station: str
    manager: str
    reason: str
    event: str


def reopen(st: Station, *, manager: str | None, reason: str) -> Reopened:
    """A manager reopens this station for the session open now, with a reason on the record
    (StationReopenedSession). It then closes again with a new close marker."""
    by = st.operator(manager, "manager")
    why = reason.strip()
    if not why:
        raise BadInput("reason", "say why the station reopens (it is kept on the record)")
    with st.ledger.transaction():
        session = require_open_session(st)
        closed = closing_read.close_marker(st.ledger.conn, session.id, st.id) is not None
        refuse(session_checks.reopenable(session.id, st.id, closed=closed))
        event = st.append(
            "StationReopenedSession", {"session": session.id, "manager": by.badge, "reason": why}
        )
    return Reopened(session.id, st.id, by.badge, why, f"{event.origin}:{event.seq}")


# --- a prize paid once ------------------------------------------------------------------------


# A prize's checks and its payments' projection are imported by the prize's path only (a sale
# imports this module for its session).


def first_payment(st: Station, prize: str) -> prize_checks.FirstPayment | None:
    from pos.domain.checks import prizes as prize_checks
    from pos.ledger.projections import prizes as prizes_read

    paid = prizes_read.payment(st.ledger.conn, prize)
    if paid is None:
        return None
    return prize_checks.FirstPayment(
        at=_when(st, paid.hlc),
        by=st.named(paid.paid_by) if paid.paid_by else None,
        station=paid.origin,
        amount=paid.amount,
        receipt=paid.receipt,
    )


def prize_unpaid(st: Station, prize: str, what: str) -> None:
    """PAID: refused when `prize` has a payment on file. Inside the paying transaction."""
    from pos.domain.checks import prizes as prize_checks

    newer_release.guard(st, "money")
    refuse(prize_checks.unpaid(what, first_payment(st, prize)))


# --- exactly once -----------------------------------------------------------------------------


def new_attempt() -> str:
    """A new attempt id for a write button (kept until its answer is shown)."""
    return uuid.uuid4().hex


def done_before(st: Station, attempt: str) -> Claim | None:
    """The claim a write with this attempt id left, if it ran before."""
    return requests.find(st.ledger.conn, attempt)


def once(st: Station, attempt: str, run: Callable[[], T], repeated: Callable[[Claim], T]) -> T:
    """`run()` as attempt `attempt`, unless it ran before: then `repeated(claim)`, and nothing
    is written again."""
    claim = done_before(st, attempt)
    if claim is not None:
        return repeated(claim)
    with requests.running(attempt):
        return run()
