"""Winning tickets (DEAL, OWNER, C1, C2, B, W2G): paid once by the deal's holder, in a session
on a game date the deal sold, never when voided; a prize the IRS hears of needs the winner's
data; a ticket paid twice or one winner too many is flagged for the manager and paid nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pos.domain.checks import Refusal
from pos.domain.flare import GameType
from pos.domain.hlc import local_minute
from pos.domain.money import format_amount

W2G_PULL_TAB_MULTIPLE = 300  # a pull-tab prize is reportable only at 300 times the ticket price


def deal_known(serial: str, *, known: bool) -> Refusal | None:
    """DEAL: a ticket's deal is on file at this station."""
    if not known:
        return Refusal("DEAL", f"deal {serial} is not known at this station")
    return None


def pays_here(
    serial: str, *, holder: str | None, released_to: str | None, here: str
) -> Refusal | None:
    """OWNER: only the station holding the deal (`here`), not having released it, pays."""
    if holder != here:
        return Refusal(
            "OWNER",
            f"deal {serial} is held by {holder or 'no station'}; only its holder pays its winners",
        )
    if released_to is not None:
        return Refusal(
            "OWNER",
            f"deal {serial} was released to {released_to}; only its holder pays its winners",
        )
    return None


@dataclass(frozen=True)
class Void:
    """A ticket's void on file: when (a clock stamp), by whom, why."""

    hlc: str
    by: str
    reason: str


def not_voided(code: str, void: Void | None, *, time_zone: str) -> Refusal | None:
    """C1: a voided ticket never pays."""
    if void is not None:
        return Refusal(
            "C1",
            f"ticket {code} was voided at {local_minute(void.hlc, time_zone)}"
            f" by badge {void.by} ({void.reason}); it never pays",
        )
    return None


@dataclass(frozen=True)
class Flag:
    """A redemption the manager must see (an ExceptionFlagged `kind` with its `detail`); the
    ticket is paid nothing."""

    kind: str  # "double-payment" or "probable-counterfeit"
    detail: str

    def refusal(self, code: str) -> Refusal:
        rule = "C2" if self.kind == "double-payment" else "DEAL"
        return Refusal(rule, f"ticket {code}: {self.detail}; pay nothing")


def double_payment(*, paid_hlc: str, by: str, origin: str, time_zone: str) -> Flag:
    """C2: the ticket was paid already (at `paid_hlc`, by badge `by`, at station `origin`)."""
    return Flag(
        "double-payment",
        f"already paid at {local_minute(paid_hlc, time_zone)} by badge {by} at {origin}",
    )


def counterfeit(serial: str, *, amount: int, winners_left: int) -> Flag | None:
    """DEAL: every winner of the tier is paid already: one more is a probable counterfeit."""
    if winners_left <= 0:
        return Flag(
            "probable-counterfeit",
            f"every ${format_amount(amount)} winner of "
            f"deal {serial} is already paid: a probable counterfeit",
        )
    return None


def session_for_claim(session_game_date: str | None, today: date) -> Refusal | None:
    """B: a prize is paid during a session of today's game date (`session_game_date`: the open
    session's, None when none is open)."""
    if session_game_date is None or session_game_date != today.isoformat():
        return Refusal(
            "B",
            "prizes are paid during a session, on the game date they were sold;"
            " no session is open today",
        )
    return None


def sold_today(serial: str, today: date, *, sold: bool, last_sale: str | None) -> Refusal | None:
    """B: an ordinary prize is claimed on the game date its ticket sold: the deal sold today
    (`sold`; else `last_sale`, the last date it sold, if any)."""
    if not sold:
        return Refusal(
            "B",
            f"deal {serial} sold no tickets today ({today.isoformat()}); its prizes were to be "
            f"claimed on the game date of sale" + (f" (last {last_sale})" if last_sale else ""),
        )
    return None


def w2g_reportable(game: GameType, *, price: int, amount: int, threshold: int) -> bool:
    """W2G: a prize at or above the threshold; a pull-tab's also at least 300 times its price."""
    if amount < threshold:
        return False
    return not (game == GameType.PULL_TAB and amount < W2G_PULL_TAB_MULTIPLE * price)


def winner_recorded(amount: int, *, recorded: bool) -> Refusal | None:
    """W2G: a reportable prize is paid only with the winner's data recorded."""
    if not recorded:
        return Refusal(
            "W2G",
            f"a ${format_amount(amount)} prize is reportable on Form W-2G: record the "
            "winner's name, address, taxpayer ID and photo ID (--winner-name, --winner-address, "
            "--winner-tin, --winner-id)",
        )
    return None


def voidable(code: str, *, voided: bool, paid: bool) -> Refusal | None:
    """A ticket is voided once (C1), and never once paid (C2)."""
    if voided:
        return Refusal("C1", f"ticket {code} is already voided")
    if paid:
        return Refusal("C2", f"ticket {code} was already paid; it cannot be voided")
    return None


def sale_voidable(receipt: int, *, voided: bool) -> Refusal | None:
    """DEAL: a sale is voided once."""
    if voided:
        return Refusal("DEAL", f"the sale on receipt {receipt} is already voided")
    return None
