"""May this buyer buy this, now? Age, ID expiry, and rule D (workers) from roster and ledger.

A refusal is recorded (PurchaseBlocked) for the day's report before it is raised; a near match
to a worker asks a manager, whose decision is recorded (OverrideGranted).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, Protocol
from zoneinfo import ZoneInfo

from pos.domain.eligibility import Involvement, check_bingo_play, check_pull_tab_purchase
from pos.domain.roster import Shift
from pos.domain.rulebook import Decision, Verdict
from pos.errors import RuleRefused
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import roster as roster_read
from pos.services.current_session import hall_date, open_session_now
from pos.services.settings import rulebook_settings
from pos.services.station import Operator, Station

if TYPE_CHECKING:  # who the buyer is: resolved where a buyer is named (pos.services.players)
    from pos.services.players import Buyer


def _shifts(
    st: Station, badge: str, days: tuple[date, ...], session: str | None = None
) -> list[Shift]:
    """The person's active shifts starting on `days` (a shift touches a day only if it starts
    that day or, past midnight, the day before), and those that work `session`."""
    return roster_read.shifts_starting(st.ledger.conn, badge, days, session)


def _shifts_and_day(st: Station, badge: str, today: date) -> tuple[list[Shift], list[Involvement]]:
    """In one query: the shifts that can touch `today` (starting today, or yesterday past
    midnight) and what the ledger says the person did today."""
    return roster_read.shifts_and_involvement(st.ledger.conn, badge, today)


def _involvement(st: Station, badge: str, *, serial: str) -> list[Involvement]:
    """Whether the ledger says the person sold or redeemed this deal (one row is enough)."""
    return roster_read.involvement_in(st.ledger.conn, badge, serial)


def identity_decision(st: Station, buyer: Buyer) -> Decision:
    if buyer.expired_on:
        return Decision.refuse(
            "ID",
            f"the ID of buyer {buyer.initials} expired on "
            f"{buyer.expired_on}: an expired ID is not accepted",
        )
    if not buyer.adult:
        return Decision.refuse(
            "AGE",
            f"buyer {buyer.initials} is under "
            f"{rulebook_settings(st).minimum_age}: no sale, play or redemption",
        )
    return Decision.allow()


def _near_match(buyer: Buyer) -> Decision:
    if buyer.near_staff:
        who = ", ".join(
            f"{badge} ({why})"
            for badge, why in zip(
                buyer.near_staff,
                buyer.near_why or ("same date of birth, similar name",) * len(buyer.near_staff),
                strict=True,
            )
        )
        return Decision.needs_override(
            "D", f"buyer {buyer.initials} may be staff member {who}: a manager decides"
        )
    return Decision.allow()


def purchase_decision(st: Station, buyer: Buyer, serial: str) -> Decision:
    """Pull-tabs, instant bingo, seal cards: may `buyer` buy from deal `serial` now?"""
    for decision in (
        identity_decision(st, buyer),
        _pull_tab_rule_d(st, buyer, serial),
        _near_match(buyer),
    ):
        if not decision.allowed:
            return decision
    return Decision.allow()


def _pull_tab_rule_d(st: Station, buyer: Buyer, serial: str) -> Decision:
    if buyer.staff_badge is None:
        return Decision.allow()
    today = hall_date(st, st.clock.now())
    badge = buyer.staff_badge
    # The deal's block never ends: when it applies, nothing else needs reading.
    involvement = _involvement(st, badge, serial=serial)
    shifts: list[Shift] = []
    if not involvement:
        shifts, involvement = _shifts_and_day(st, badge, today)
    return check_pull_tab_purchase(
        who=buyer.initials,
        organisation=st.hall.organisation,
        serial=serial,
        today=today,
        zone=ZoneInfo(st.hall.time_zone),
        shifts=shifts,
        involvement=involvement,
    )


def bingo_decision(
    st: Station,
    buyer: Buyer,
    game_date: date,
    session: str | None = None,
    *,
    seller: str | None = None,
) -> Decision:
    """Bingo products (paper, entries, device rentals): may `buyer` play at `session`, on
    `game_date`? Not if the roster or the record shows them working it, nor if they are the
    `seller` ringing up this sale."""
    for decision in (identity_decision(st, buyer), _near_match(buyer)):
        if not decision.allowed:
            return decision
    badge = buyer.staff_badge
    if badge is None:
        return Decision.allow()
    return check_bingo_play(
        who=buyer.initials,
        organisation=st.hall.organisation,
        game_date=game_date,
        zone=ZoneInfo(st.hall.time_zone),
        shifts=_shifts(st, badge, (game_date, game_date - timedelta(days=1)), session),
        session=session,
        worked=roster_read.bingo_work(st.ledger.conn, badge, session, game_date),
        working_now=seller == badge,
    )


def enforce_for_buyer(
    st: Station,
    decision: Decision,
    buyer: Buyer,
    *,
    subject: str,
    by: str | None,
    manager: Operator | None,
    reason: str | None,
) -> None:
    """Inside the command's transaction: an allowed decision passes; a near match passes with a
    manager's recorded decision; anything else raises BuyerRefused (recorded by the caller)."""
    if decision.allowed:
        return
    if decision.verdict is Verdict.NEEDS_OVERRIDE and manager is not None and reason:
        st.append(
            "OverrideGranted",
            {
                "rule": decision.rule,
                "reason": reason.strip(),
                "manager": manager.badge,
                "subject": subject,
                "buyer": buyer.code,
                "detail": decision.message,
            },
        )
        return
    raise BuyerRefused(decision, buyer, subject, by)


class _BingoSession(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def game_date(self) -> str: ...


@dataclass(frozen=True)
class BingoPlayers:
    """Rule D for bingo, inside one command's transaction: nobody working `session` plays in
    it, whether buying its paper, entering its decision or chest game, renting a device or
    taking part. A near match passes with a manager's decision (`manager`, `reason`)."""

    st: Station
    session: _BingoSession
    by: str | None
    manager: str | None = None
    reason: str | None = None

    def check(self, player: str | None, what: str = "") -> str | None:
        """The player's code to record (None when nobody was identified); a worker raises
        BuyerRefused for "session ID, `what`", recorded by the caller (`refusals_recorded`)."""
        if not player:
            return None
        from pos.services.players import resolve_buyer

        person = resolve_buyer(self.st, player)
        assert person is not None
        session = self.session
        decision = bingo_decision(
            self.st, person, date.fromisoformat(session.game_date), session.id, seller=self.by
        )
        approver = self.st.operator(self.manager, "manager") if self.manager else None
        enforce_for_buyer(
            self.st,
            decision,
            person,
            subject=f"session {session.id}" + (f", {what}" if what else ""),
            by=self.by,
            manager=approver,
            reason=self.reason,
        )
        return person.code


class BuyerRefused(RuleRefused):
    """A purchase refused because of who the buyer is; recorded as PurchaseBlocked."""

    def __init__(self, decision: Decision, buyer: Buyer, subject: str, by: str | None) -> None:
        message = decision.message
        if decision.verdict is Verdict.NEEDS_OVERRIDE:
            message += " (a manager may allow it: --manager BADGE --reason TEXT)"
        super().__init__(decision.rule or "D", message)
        self.verdict = decision.verdict
        self.buyer = buyer
        self.subject = subject
        self.by = by

    def record(self, st: Station) -> None:
        with st.ledger.transaction():
            st.append(
                "PurchaseBlocked",
                {
                    "rule": self.rule,
                    "buyer": self.buyer.code,
                    "initials": self.buyer.initials,
                    "serial": self.subject,
                    "reason": self.message,
                    "by": self.by,
                    # the decision and whom it concerns, as fields: never read back from words
                    "verdict": self.verdict.value,
                    "near_staff": list(self.buyer.near_staff)
                    if self.verdict is Verdict.NEEDS_OVERRIDE
                    else [],
                },
            )


def buyer_report(st: Station, buyer: Buyer) -> dict[str, Any]:
    """`booth check-buyer`: what this buyer may buy now, deal by deal, and why not."""
    deals = []
    for serial, name, game, _ in deals_read.deals_in_play(st.ledger.conn):
        decision = purchase_decision(st, buyer, serial)
        deals.append(
            {
                "serial": serial,
                "name": name,
                "game": game,
                "allowed": decision.allowed,
                "verdict": decision.verdict.value,
                "rule": decision.rule,
                "why": decision.message or None,
            }
        )
    today = hall_date(st, st.clock.now())
    session = open_session_now(st)
    if session is not None:
        today = date.fromisoformat(session.game_date)
    bingo = bingo_decision(st, buyer, today, session.id if session else None)
    return {
        "buyer": buyer.code,
        "kind": buyer.kind,
        "initials": buyer.initials,
        "adult": buyer.adult,
        "staff": buyer.staff_badge is not None,
        "deals": deals,
        "bingo": {
            "game_date": today.isoformat(),
            "session": session.id if session else None,
            "allowed": bingo.allowed,
            "rule": bingo.rule,
            "why": bingo.message or None,
        },
    }


@contextmanager
def refusals_recorded(st: Station) -> Iterator[None]:
    """Around a command's transaction: a buyer refused is recorded (PurchaseBlocked) after the
    transaction rolled back, then the refusal goes on to the caller."""
    try:
        yield
    except BuyerRefused as refusal:
        refusal.record(st)
        raise
