"""Rule D: workers may not buy what they help sell, nor play the bingo they work.

Pure: the roster's shifts and the ledger's record of who sold or redeemed what, and who worked
which bingo session, are passed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from zoneinfo import ZoneInfo

from pos.domain.roster import BINGO_DUTIES, PULL_TAB_DUTIES, Shift
from pos.domain.rulebook import Decision

_DUTY_WORDS = {
    "sell": "sell pull-tabs",
    "redeem": "redeem winners",
    "count": "count the booth",
    "manage": "manage",
    "bingo": "work bingo",
}


@dataclass(frozen=True)
class Involvement:
    """From the ledger: this person sold or redeemed tickets of a deal on a (hall) day."""

    serial: str
    day: date
    what: str  # "sold" or "redeemed"


@dataclass(frozen=True)
class SessionWork:
    """From the ledger: this person worked a bingo session (on its hall day), doing `what`
    ("sold bingo paper", "paid a bingo prize", "counted the cash", ...)."""

    session: str
    day: date
    what: str


def same_organisation(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def _when(shift: Shift, today: date) -> str:
    day = "today" if shift.day == today else f"on {shift.day.isoformat()}"
    return f"{day} {shift.start:%H:%M}-{shift.end:%H:%M}"


def check_pull_tab_purchase(
    *,
    who: str,
    organisation: str,
    serial: str,
    today: date,
    zone: ZoneInfo,
    shifts: Iterable[Shift],
    involvement: Iterable[Involvement],
) -> Decision:
    """May `who` buy pull-tabs (or instant bingo, seal cards) of deal `serial` today?

    Refused (rule D) when they sold or redeemed that deal at any time (the deal's block lasts as
    long as the deal is sold), or when they work for this organisation today: rostered to sell,
    redeem, count or manage for any part of today (hall time, even later today), or recorded
    selling or redeeming today.
    """
    involved = list(involvement)
    for item in sorted(involved, key=lambda i: i.day):
        if item.serial == serial:
            return Decision.refuse(
                "D",
                f"{who} {item.what} deal {serial} on {item.day.isoformat()}: workers never "
                "buy from a deal they helped sell or redeem",
            )
    for shift in shifts:
        if (
            shift.duty in PULL_TAB_DUTIES
            and same_organisation(shift.organisation, organisation)
            and today in shift.hall_days(zone)
        ):
            return Decision.refuse(
                "D",
                f"{who} is rostered to {_DUTY_WORDS[shift.duty]} {_when(shift, today)}: "
                "workers do not buy pull-tabs on a day they work",
            )
    for item in involved:
        if item.day == today:
            return Decision.refuse(
                "D",
                f"{who} {item.what} deal {item.serial} today: workers do not buy pull-tabs "
                "on a day they work",
            )
    return Decision.allow()


def check_bingo_play(
    *,
    who: str,
    organisation: str,
    game_date: date,
    zone: ZoneInfo,
    shifts: Iterable[Shift],
    session: str | None = None,
    worked: Iterable[SessionWork] = (),
    working_now: bool = False,
) -> Decision:
    """May `who` play bingo (buy its paper, enter its games, rent a device) at `session`, held
    on `game_date`? Not at a session they work or intend to work (rule D): rostered to work
    bingo (or manage) for this organisation at that session (a shift that names it), or that
    day (a shift that names no session), from before the shift starts; nor when the record
    shows them working that session (`worked`: selling, paying, counting, recording its games,
    on a roster or not), or they are the one ringing up this very sale (`working_now`)."""
    if working_now:
        return Decision.refuse(
            "D",
            f"{who} is working session {session or game_date.isoformat()} at this sale: no one "
            "who works a bingo session plays at it",
        )
    for item in worked:
        if item.session == session or (session is None and item.day == game_date):
            return Decision.refuse(
                "D",
                f"{who} {item.what} at session {item.session} (the ledger's record): no one who "
                "works a bingo session plays at it",
            )
    for shift in shifts:
        if shift.duty not in BINGO_DUTIES or not same_organisation(
            shift.organisation, organisation
        ):
            continue
        if shift.session is not None and session is not None:
            if shift.session != session:
                continue  # a shift at another session of the day
            return Decision.refuse(
                "D",
                f"{who} is rostered to {_DUTY_WORDS[shift.duty]} at session {shift.session} "
                f"({_when(shift, game_date)}): no one who works a bingo session plays at it",
            )
        if game_date in shift.hall_days(zone):
            return Decision.refuse(
                "D",
                f"{who} is rostered to {_DUTY_WORDS[shift.duty]} {_when(shift, game_date)}:"
                " no one who works a bingo session plays at it",
            )
    return Decision.allow()
