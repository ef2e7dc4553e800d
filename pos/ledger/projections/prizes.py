"""Prizes paid, one row per prize: the identity that makes "paid once" one check for every game.

A prize's identity comes from the event that paid it, for events of every release (so history
written before this table existed has its rows too):

- a pull-tab, seal card or event game ticket: `ticket:SERIAL/TICKET` (WinnerRedeemed);
- a seal card's seal line: `seal:SERIAL/LINE` (SealPrizePaid);
- a bingo game's prize in a session, the decision pool and a progressive's included:
  `bingo:SESSION/GAME` (BingoPrizePaid; a split is one event whose shares add up to it);
- the treasure chest of a session's game, once opened: `chest:SESSION/GAME` (ChestOpened);
- a raffle's prize: `raffle:RAFFLE/PLACE` (RafflePrizeClaimed);
- a voucher: `voucher:STATION/NUMBER` (VoucherRedeemed).

The first payment stays; a second one that arrives by sync (two stations paid offline) is kept
in p_prize_repeats for the manager's exception list, never folded into the first. A ticket's
second payment is the winners projection's p_paid_twice, with its own detail, so it is not
repeated here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_prize_payments (
    prize TEXT PRIMARY KEY, kind TEXT NOT NULL, origin TEXT NOT NULL, seq INTEGER NOT NULL,
    hlc TEXT NOT NULL, amount INTEGER NOT NULL, paid_by TEXT, receipt INTEGER
);
CREATE TABLE p_prize_repeats (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, prize TEXT NOT NULL, first_origin TEXT NOT NULL,
    first_seq INTEGER NOT NULL, amount INTEGER NOT NULL, hlc TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
)
"""


def ticket_prize(serial: str, ticket: str | int | None) -> str | None:
    return None if ticket is None else f"ticket:{serial}/{ticket}"


def seal_prize(serial: str, line: int) -> str:
    return f"seal:{serial}/{line}"


def bingo_prize(session: str, game: int) -> str:
    return f"bingo:{session}/{game}"


def chest_prize(session: str, game: int) -> str:
    return f"chest:{session}/{game}"


def raffle_prize(raffle: str, place: int) -> str:
    return f"raffle:{raffle}/{place}"


def voucher_prize(station: str, number: int) -> str:
    return f"voucher:{station}/{number}"


_WORDS = {
    "ticket": "ticket {}",
    "seal": "seal line {1} of {0}",
    "bingo": "game {1} of session {0}",
    "chest": "the treasure chest of game {1}, session {0}",
    "raffle": "prize {1} of raffle {0}",
    "voucher": "voucher {1} of {0}",
}


def described(prize: str) -> str:
    """A prize's identity as a manager reads it: "game 1 of session 2026-11-28/1"."""
    kind, _, rest = prize.partition(":")
    if kind == "ticket":
        return _WORDS[kind].format(rest)
    head, _, tail = rest.rpartition("/")
    return _WORDS[kind].format(head, tail) if kind in _WORDS else prize


def _identity(kind: str, body: dict[str, Any]) -> tuple[str | None, int]:
    """(the prize's identity or None, the amount paid) of a paying event's body."""
    if kind == "WinnerRedeemed":
        return ticket_prize(body["serial"], body.get("ticket")), int(body["amount"])
    if kind == "SealPrizePaid":
        return seal_prize(body["serial"], int(body["line"])), int(body["amount"])
    if kind == "BingoPrizePaid":
        return bingo_prize(body["session"], int(body["game"])), int(body["amount"])
    if kind == "ChestOpened":
        value = int(body.get("prize") or 0)
        if not body.get("opened") or not value:
            return None, 0
        return chest_prize(body["session"], int(body["game"])), value
    if kind == "RafflePrizeClaimed":
        return raffle_prize(body["raffle"], int(body["place"])), int(body["value"])
    if kind == "VoucherRedeemed":
        key = voucher_prize(body["voucher_station"], int(body["voucher_number"]))
        return key, int(body["amount"])
    raise ValueError(f"{kind} pays no prize")


def _paid(kind: str) -> Callable[[sqlite3.Connection, Event, dict[str, Any]], None]:
    def handle(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
        prize, amount = _identity(kind, body)
        if prize is None:
            return
        first = conn.execute(
            "SELECT origin, seq FROM p_prize_payments WHERE prize = ?", (prize,)
        ).fetchone()
        if first is None:
            conn.execute(
                "INSERT INTO p_prize_payments VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    prize,
                    kind,
                    event.origin,
                    event.seq,
                    event.hlc,
                    amount,
                    body.get("by"),
                    body.get("receipt"),
                ),
            )
        elif kind != "WinnerRedeemed" and (first[0], first[1]) != (event.origin, event.seq):
            conn.execute(
                "INSERT OR IGNORE INTO p_prize_repeats VALUES (?, ?, ?, ?, ?, ?, ?)",
                (event.origin, event.seq, prize, first[0], first[1], amount, event.hlc),
            )

    return handle


PAYING_KINDS = (
    "WinnerRedeemed",
    "SealPrizePaid",
    "BingoPrizePaid",
    "ChestOpened",
    "RafflePrizeClaimed",
    "VoucherRedeemed",
)

PRIZES = Projection(
    name="prizes",
    version=1,
    schema=SCHEMA,
    handlers={kind: _paid(kind) for kind in PAYING_KINDS},
)


# --- read models --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrizePayment:
    """The payment on file for a prize: where, when (a clock stamp), by whom, how much."""

    prize: str
    kind: str
    origin: str
    seq: int
    hlc: str
    amount: int
    paid_by: str | None
    receipt: int | None


def payment(conn: sqlite3.Connection, prize: str) -> PrizePayment | None:
    row = conn.execute(
        "SELECT prize, kind, origin, seq, hlc, amount, paid_by, receipt FROM p_prize_payments "
        "WHERE prize = ?",
        (prize,),
    ).fetchone()
    return None if row is None else PrizePayment(*row)


@dataclass(frozen=True)
class RepeatedPayment:
    """A second payment of a prize (two stations paid it while cut apart): the exception."""

    origin: str
    seq: int
    prize: str
    first_origin: str
    first_seq: int
    amount: int
    hlc: str


def repeats(conn: sqlite3.Connection) -> list[RepeatedPayment]:
    """Every second payment of a prize other than a ticket (those are p_paid_twice's)."""
    return [
        RepeatedPayment(row[0], int(row[1]), row[2], row[3], int(row[4]), int(row[5]), row[6])
        for row in conn.execute(
            "SELECT origin, seq, prize, first_origin, first_seq, amount, hlc "
            "FROM p_prize_repeats ORDER BY hlc DESC"
        )
    ]
