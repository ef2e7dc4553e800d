"""Winning tickets (DEAL, OWNER, C1, C2, B, W2G): paid once by the deal's holder, in a session
on a game date the deal sold, never when voided; a prize the IRS hears of needs the winner's
data; a ticket paid twice or one winner too many is flagged for the manager and paid nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from pos.domain.checks import Refusal, handover_hint
from pos.domain.hlc import local_minute
from pos.domain.money import format_amount


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
            f"deal {serial} is held by {holder or 'no station'}; only its holder pays its winners"
            + handover_hint(serial, holder),
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


def ticket_in_deal(serial: str, ticket: str | None, *, tickets: int) -> Refusal | None:
    """C1: a ticket's number is one of its deal's, 1..tickets; any other is no ticket of the
    deal (a probable counterfeit) and never pays."""
    if ticket is None:
        return None
    number = int(ticket)
    if not 1 <= number <= tickets:
        return Refusal(
            "C1",
            f"ticket number {ticket} is outside deal {serial}'s tickets 1..{tickets}: "
            "a probable counterfeit; pay nothing",
        )
    return None


def deal_in_play(serial: str, *, state: str, sold_today: bool) -> Refusal | None:
    """C1: a winner pays only from a deal that was put in play. A deal marked tampered never
    pays; a deal never opened sold no ticket; a closed deal pays only the winners of tickets
    it sold on today's game date (B), so a closed deal that did not sell today pays none."""
    if state == "tampered":
        return Refusal(
            "C1", f"deal {serial} is marked as tampered with; none of its tickets ever pays"
        )
    if state in ("received", "unknown"):
        return Refusal(
            "C1",
            f"deal {serial} was never put in play, so none of its tickets was sold: "
            "a probable counterfeit; pay nothing",
        )
    if state == "closed" and not sold_today:
        return Refusal(
            "C1",
            f"deal {serial} is closed and sold nothing today: its tickets are out of play; "
            "pay nothing",
        )
    return None


@dataclass(frozen=True)
class Flag:
    """A redemption the manager must see (an ExceptionFlagged `kind` with its `detail`); the
    ticket is paid nothing."""

    kind: str  # "double-payment" or "probable-counterfeit"
    detail: str
    rule: str = ""  # the rule cited; by default C2 for a double payment, else DEAL

    def refusal(self, code: str) -> Refusal:
        rule = self.rule or ("C2" if self.kind == "double-payment" else "DEAL")
        return Refusal(rule, f"ticket {code}: {self.detail}; pay nothing")


#: C2: a second scan of a winner confirms its punch only from the person who paid it, at the
#: station that paid it, this soon after; any later or other scan reads "already paid".
SECOND_SCAN_WINDOW = timedelta(minutes=2)


def double_payment(*, paid_hlc: str, by: str, origin: str, time_zone: str) -> Flag:
    """C2: the ticket was paid already (at `paid_hlc`, by `by`, "Sam Seller (S1)", at station
    `origin`): pay nothing."""
    return Flag(
        "double-payment",
        f"already paid at {local_minute(paid_hlc, time_zone)} by {by} at {origin}",
    )


def second_scan_confirms_punch(
    *,
    paid_here: bool,
    punched: bool,
    same_person: bool,
    since_payment: timedelta,
    window: timedelta = SECOND_SCAN_WINDOW,
) -> bool:
    """C2: whether a scan of a ticket paid before confirms its punch (rather than reading
    "already paid: pay nothing"): the same person, at the paying station, within `window`."""
    return paid_here and not punched and same_person and timedelta(0) <= since_payment <= window


def counterfeit(serial: str, *, amount: int, winners_left: int) -> Flag | None:
    """DEAL: every winner of the tier is paid already: one more is a probable counterfeit."""
    if winners_left <= 0:
        return Flag(
            "probable-counterfeit",
            f"every ${format_amount(amount)} winner of "
            f"deal {serial} is already paid: a probable counterfeit",
        )
    return None


def presenter(player: str | None) -> str:
    """Who presented a ticket, as a flag tells the manager."""
    return f"presented by player {player}" if player else "presenter not identified (no --player)"


def beyond_sales(
    serial: str, *, sold: int, winners_paid: int, player: str | None, redeemer: str
) -> Flag | None:
    """C1: winners paid from a deal never exceed the tickets sold from it; one more is a
    probable counterfeit (`winners_paid`: the ticket winners already paid from the deal)."""
    if winners_paid + 1 > sold:
        return Flag(
            "probable-counterfeit",
            f"deal {serial} sold {sold} ticket(s) and has paid {winners_paid} winner(s): "
            f"one more would be winner {winners_paid + 1} of {sold} sold, a probable "
            f"counterfeit ({presenter(player)}, at badge {redeemer})",
            rule="C1",
        )
    return None


MANY_WINNERS = 3  # a player's winners from one deal in one day at which the manager looks


def many_winners(
    serial: str, *, player: str | None, winners_today: int, bought_today: int
) -> str | None:
    """C1 (a mark, not a refusal): one player presents more winners of one deal in one game
    date than the hall sold them identified tickets of it, and at least MANY_WINNERS of them
    (`winners_today`: this one included). Winners they did not buy were passed to them by
    someone: the manager looks. Returns the flag's detail, or None."""
    if player is None or winners_today < MANY_WINNERS or winners_today <= bought_today:
        return None
    return (
        f"player {player} has presented {winners_today} winners of deal {serial} today but "
        f"bought {bought_today} identified ticket(s) of it: paid, for the manager to look at"
    )


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


def punchable(
    code: str,
    *,
    paid: bool,
    punched_by: str | None,
    punched_hlc: str | None,
    time_zone: str,
) -> Refusal | None:
    """C2: a punch is confirmed for a ticket that was paid, once."""
    if not paid:
        return Refusal("C2", f"ticket {code} was not paid: there is no punch to confirm")
    if punched_hlc is not None:
        return Refusal(
            "C2",
            f"ticket {code} was already confirmed punched at "
            f"{local_minute(punched_hlc, time_zone)} by badge {punched_by}",
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
