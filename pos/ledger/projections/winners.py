"""Redemptions, voids, seal card sheets and seals, and the exceptions flagged for the manager
and the manager's decisions on them.

`p_paid_twice` lists tickets that two stations paid while they could not see each other (a
deal forced away from a holder that was alive behind a cut): no station could refuse the
second payment, so the merge shows it. Both orders of arrival give the same row."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections.base import Projection
from pos.ledger.rows import dict_row, dict_rows, placeholders

SCHEMA = """
CREATE TABLE p_redemptions (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, serial TEXT NOT NULL, ticket TEXT,
    amount INTEGER NOT NULL, kind TEXT NOT NULL, by TEXT NOT NULL, session TEXT,
    receipt INTEGER, hlc TEXT NOT NULL,
    player TEXT,  -- who presented it, when identified
    punched_by TEXT, punched_hlc TEXT,  -- C2: the punch confirmed (TicketPunched)
    PRIMARY KEY (origin, seq)
);
CREATE INDEX p_redemptions_ticket ON p_redemptions (serial, ticket);
CREATE INDEX p_redemptions_session ON p_redemptions (session);
CREATE TABLE p_paid_twice (
    serial TEXT NOT NULL, ticket TEXT NOT NULL, amount INTEGER NOT NULL,
    first_origin TEXT NOT NULL, first_seq INTEGER NOT NULL,
    second_origin TEXT NOT NULL, second_seq INTEGER NOT NULL,
    hlc TEXT NOT NULL, detail TEXT NOT NULL,
    PRIMARY KEY (first_origin, first_seq, second_origin, second_seq)
);
CREATE TABLE p_voids (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, serial TEXT NOT NULL,
    ticket TEXT, qty INTEGER NOT NULL, amount INTEGER NOT NULL, reason TEXT NOT NULL,
    by TEXT NOT NULL, hlc TEXT NOT NULL, sale_station TEXT, sale_receipt INTEGER,
    PRIMARY KEY (origin, seq)
);
CREATE INDEX p_voids_ticket ON p_voids (serial, ticket);
CREATE INDEX p_voids_hlc ON p_voids (hlc);
CREATE TABLE p_seal_lines (
    serial TEXT NOT NULL, line INTEGER NOT NULL, ticket TEXT NOT NULL, player TEXT,
    by TEXT, hlc TEXT NOT NULL, PRIMARY KEY (serial, line)
);
CREATE TABLE p_seals (
    serial TEXT PRIMARY KEY, lines TEXT NOT NULL, prize INTEGER NOT NULL,
    progressive INTEGER NOT NULL, opened_on TEXT NOT NULL, claim_until TEXT NOT NULL,
    carry_after TEXT, by TEXT NOT NULL, hlc TEXT NOT NULL
);
CREATE TABLE p_seal_prizes (
    serial TEXT NOT NULL, line INTEGER NOT NULL, amount INTEGER NOT NULL,
    state TEXT NOT NULL, settled_hlc TEXT, settled_by TEXT, carried_to TEXT,
    PRIMARY KEY (serial, line)
);
CREATE TABLE p_progressive_pool (
    serial TEXT PRIMARY KEY, amount INTEGER NOT NULL
);
CREATE TABLE p_flags (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, serial TEXT,
    ticket TEXT, detail TEXT NOT NULL, hlc TEXT NOT NULL, player TEXT,
    resolved INTEGER NOT NULL DEFAULT 0, decision TEXT, note TEXT, resolved_by TEXT,
    PRIMARY KEY (origin, seq)
);
CREATE TABLE p_punches (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, by TEXT NOT NULL, hlc TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
);
CREATE TABLE p_flag_decisions (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, decision TEXT NOT NULL, note TEXT NOT NULL,
    by TEXT NOT NULL, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
)
"""


def _winner_redeemed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_redemptions (origin, seq, serial, ticket, amount, kind, by, "
        "session, receipt, hlc, player) VALUES (?, ?, ?, ?, ?, 'ticket', ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["serial"],
            body.get("ticket"),
            int(body["amount"]),
            body["by"],
            body.get("session"),
            body.get("receipt"),
            event.hlc,
            body.get("player"),
        ),
    )
    _apply_punch(conn, event.origin, event.seq)
    ticket = body.get("ticket")
    if ticket is not None:
        _paid_twice(conn, event, body, str(ticket))


def _paid_twice(conn: sqlite3.Connection, event: Event, body: dict[str, Any], ticket: str) -> None:
    """Pair this payment with any other of the same ticket, the earlier (by stamp) first."""
    serial = body["serial"]
    this = (event.origin, event.seq, body["by"], event.hlc)
    for other in conn.execute(
        "SELECT origin, seq, by, hlc FROM p_redemptions WHERE serial = ? AND ticket = ? "
        "AND kind = 'ticket' AND NOT (origin = ? AND seq = ?)",
        (serial, ticket, event.origin, event.seq),
    ).fetchall():
        first, second = sorted([this, other], key=lambda r: (r[3], r[0], r[1]))
        conn.execute(
            "INSERT OR IGNORE INTO p_paid_twice VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                serial,
                ticket,
                int(body["amount"]),
                first[0],
                first[1],
                second[0],
                second[1],
                second[3],
                f"{serial}/{ticket} paid at {first[0]} by {first[2]} and again at {second[0]} "
                f"by {second[2]} (found after sync)",
            ),
        )


def _ticket_voided(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_voids VALUES (?, ?, 'ticket', ?, ?, 1, 0, ?, ?, ?, NULL, NULL)",
        (
            event.origin,
            event.seq,
            body["serial"],
            body["ticket"],
            body["reason"],
            body["by"],
            event.hlc,
        ),
    )


def _sale_voided(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """The void of a sale, once (a second void of the same sale, from a peer, is not listed).
    The deals projection takes the sale off its totals."""
    station, receipt = body["station"], int(body["sale_receipt"])
    if conn.execute(
        "SELECT 1 FROM p_voids WHERE sale_station = ? AND sale_receipt = ?", (station, receipt)
    ).fetchone():
        return
    row = deals_read.sale_on_receipt(conn, station, receipt)
    if row is None:
        return
    serial, qty, amount = row[0], row[1], row[2]
    conn.execute(
        "INSERT OR IGNORE INTO p_voids VALUES (?, ?, 'sale', ?, NULL, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            serial,
            qty,
            amount,
            body["reason"],
            body["by"],
            event.hlc,
            station,
            receipt,
        ),
    )


def _seal_line_signed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_seal_lines VALUES (?, ?, ?, ?, ?, ?)",
        (
            body["serial"],
            int(body["line"]),
            body["ticket"],
            body.get("player"),
            body.get("by"),
            event.hlc,
        ),
    )


def _seal_opened(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    lines = [int(line) for line in body["lines"]]
    conn.execute(
        "INSERT OR IGNORE INTO p_seals VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            body["serial"],
            json.dumps(lines),
            int(body["prize"]),
            int(body["progressive"]),
            body["opened_on"],
            body["claim_until"],
            body.get("carry_after"),
            body["by"],
            event.hlc,
        ),
    )
    pooled = conn.execute(
        "SELECT amount FROM p_progressive_pool WHERE serial = ?", (body["serial"],)
    ).fetchone()
    for line in lines:
        conn.execute(
            "INSERT OR IGNORE INTO p_seal_prizes (serial, line, amount, state) "
            "VALUES (?, ?, ?, 'open')",
            (body["serial"], line, int(body["prize"]) + (int(pooled[0]) if pooled else 0)),
        )


def _seal_prize_paid(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_seal_prizes SET state = 'paid', settled_hlc = ?, settled_by = ? "
        "WHERE serial = ? AND line = ? AND state = 'open'",
        (event.hlc, body["by"], body["serial"], int(body["line"])),
    )
    conn.execute(
        "INSERT OR IGNORE INTO p_redemptions (origin, seq, serial, ticket, amount, kind, by, "
        "session, receipt, hlc) VALUES (?, ?, ?, ?, ?, 'seal', ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["serial"],
            str(body["line"]),
            int(body["amount"]),
            body["by"],
            body.get("session"),
            body.get("receipt"),
            event.hlc,
        ),
    )


def _progressive_carried(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_seal_prizes SET state = 'carried', settled_hlc = ?, carried_to = ? "
        "WHERE serial = ? AND line = ? AND state = 'open'",
        (event.hlc, body["to_serial"], body["from_serial"], int(body["line"])),
    )
    conn.execute(
        "INSERT INTO p_progressive_pool VALUES (?, ?) ON CONFLICT (serial) "
        "DO UPDATE SET amount = amount + excluded.amount",
        (body["to_serial"], int(body["amount"])),
    )


def _flagged(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_flags (origin, seq, kind, serial, ticket, detail, hlc, player) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["flag"],
            body.get("serial"),
            body.get("ticket"),
            body["detail"],
            event.hlc,
            body.get("player"),
        ),
    )
    _apply_decision(conn, event.origin, event.seq)


def _ticket_punched(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """C2: the redeemer confirmed the punch of the payment `origin:seq`. Kept aside until the
    payment arrives (from another station, a punch may come first). The earliest punch by stamp
    stands, so stations that took two punches of one payment in either order agree."""
    conn.execute(
        "INSERT INTO p_punches VALUES (?, ?, ?, ?) ON CONFLICT (origin, seq) DO UPDATE SET "
        "by = excluded.by, hlc = excluded.hlc WHERE excluded.hlc < p_punches.hlc",
        (body["origin"], int(body["seq"]), body["by"], event.hlc),
    )
    _apply_punch(conn, body["origin"], int(body["seq"]))


def _apply_punch(conn: sqlite3.Connection, origin: str, seq: int) -> None:
    conn.execute(
        "UPDATE p_redemptions SET (punched_by, punched_hlc) = "
        "(SELECT by, hlc FROM p_punches WHERE origin = ? AND seq = ?) "
        "WHERE origin = ? AND seq = ? "
        "AND EXISTS (SELECT 1 FROM p_punches WHERE origin = ? AND seq = ?)",
        (origin, seq, origin, seq, origin, seq),
    )


def _exception_resolved(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """The first decision recorded on an exception stands: the earliest by stamp, so stations
    that took two managers' decisions (made while cut apart) in either order agree. Kept
    aside until a flag it decides arrives."""
    conn.execute(
        "INSERT INTO p_flag_decisions VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (origin, seq) "
        "DO UPDATE SET decision = excluded.decision, note = excluded.note, by = excluded.by, "
        "hlc = excluded.hlc WHERE (excluded.hlc, excluded.decision, excluded.note) "
        "< (p_flag_decisions.hlc, p_flag_decisions.decision, p_flag_decisions.note)",
        (
            body["origin"],
            int(body["seq"]),
            body["decision"],
            body["note"],
            body["by"],
            event.hlc,
        ),
    )
    _apply_decision(conn, body["origin"], int(body["seq"]))


def _apply_decision(conn: sqlite3.Connection, origin: str, seq: int) -> None:
    conn.execute(
        "UPDATE p_flags SET resolved = 1, decision = d.decision, note = d.note, "
        "resolved_by = d.by FROM (SELECT decision, note, by FROM p_flag_decisions "
        "WHERE origin = ? AND seq = ?) AS d WHERE p_flags.origin = ? AND p_flags.seq = ?",
        (origin, seq, origin, seq),
    )


WINNERS = Projection(
    name="winners",
    version=7,
    schema=SCHEMA,
    handlers={
        "WinnerRedeemed": _winner_redeemed,
        "TicketVoided": _ticket_voided,
        "SaleVoided": _sale_voided,
        "SealLineSigned": _seal_line_signed,
        "SealOpened": _seal_opened,
        "SealPrizePaid": _seal_prize_paid,
        "ProgressivePrizeCarried": _progressive_carried,
        "ExceptionFlagged": _flagged,
        "TicketPunched": _ticket_punched,
        "ExceptionResolved": _exception_resolved,
    },
)


# --- read models: redemptions and voids ---------------------------------------------------------


def ticket_paid(conn: sqlite3.Connection, serial: str, ticket: str) -> dict[str, Any] | None:
    """The payment of a ticket (origin, by, hlc, amount), if one is on file."""
    return dict_row(
        conn,
        "SELECT origin, by, hlc, amount FROM p_redemptions WHERE serial = ? AND ticket = ? "
        "AND kind = 'ticket' LIMIT 1",
        (serial, ticket),
    )


def ticket_payment(conn: sqlite3.Connection, serial: str, ticket: str) -> dict[str, Any] | None:
    """The first payment of a ticket (origin, seq, by, hlc, punched_by, punched_hlc), if any."""
    return dict_row(
        conn,
        "SELECT origin, seq, by, hlc, punched_by, punched_hlc FROM p_redemptions "
        "WHERE serial = ? AND ticket = ? AND kind = 'ticket' ORDER BY hlc LIMIT 1",
        (serial, ticket),
    )


def ticket_winners_paid(conn: sqlite3.Connection, serial: str) -> int:
    """How many ticket winners (not seal prizes) a deal has paid."""
    row = conn.execute(
        "SELECT count(*) FROM p_redemptions WHERE serial = ? AND kind = 'ticket'", (serial,)
    ).fetchone()
    return int(row[0])


def deal_prizes_paid(conn: sqlite3.Connection, serial: str) -> int:
    """Cents paid in prizes from a deal: ticket winners and seal prizes."""
    row = conn.execute(
        "SELECT coalesce(sum(amount), 0) FROM p_redemptions WHERE serial = ?", (serial,)
    ).fetchone()
    return int(row[0])


def player_winners_on(conn: sqlite3.Connection, serial: str, player: str, game_date: str) -> int:
    """Ticket winners of a deal paid to `player` in the sessions of `game_date`."""
    row = conn.execute(
        "SELECT count(*) FROM p_redemptions r JOIN p_sessions s USING (session) "
        "WHERE r.serial = ? AND r.player = ? AND r.kind = 'ticket' AND s.game_date = ?",
        (serial, player, game_date),
    ).fetchone()
    return int(row[0])


def unpunched(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[dict[str, Any]]:
    """C2: the ticket winners paid over `sessions` with no punch confirmed, oldest first."""
    return dict_rows(
        conn,
        f"SELECT serial, ticket, amount, by, origin, seq, receipt FROM p_redemptions "
        f"WHERE kind = 'ticket' AND punched_hlc IS NULL AND session IN ({placeholders(sessions)}) "
        f"ORDER BY hlc",
        tuple(sessions),
    )


def ticket_void(conn: sqlite3.Connection, serial: str, ticket: str) -> dict[str, Any] | None:
    """The void of a ticket (origin, by, hlc, reason), if one is on file."""
    return dict_row(
        conn,
        "SELECT origin, by, hlc, reason FROM p_voids WHERE serial = ? AND ticket = ? "
        "AND kind = 'ticket' LIMIT 1",
        (serial, ticket),
    )


def redemptions_of(conn: sqlite3.Connection, serial: str) -> list[dict[str, Any]]:
    """A deal's payments in order: ticket, amount, by, origin, session."""
    return dict_rows(
        conn,
        "SELECT ticket, amount, by, origin, session FROM p_redemptions WHERE serial = ? "
        "ORDER BY hlc",
        (serial,),
    )


def voids_of(conn: sqlite3.Connection, serial: str) -> list[dict[str, Any]]:
    """A deal's voids in order: kind, ticket, qty, amount, reason, by."""
    return dict_rows(
        conn,
        "SELECT kind, ticket, qty, amount, reason, by FROM p_voids WHERE serial = ? ORDER BY hlc",
        (serial,),
    )


def paid_by_tier(
    conn: sqlite3.Connection, sessions: Sequence[str]
) -> list[tuple[str, int, str, int, int]]:
    """(serial, amount, kind, payments, cents) over `sessions`."""
    return [
        (row[0], int(row[1]), row[2], int(row[3]), int(row[4]))
        for row in conn.execute(
            f"SELECT serial, amount, kind, count(*), sum(amount) FROM p_redemptions "
            f"WHERE session IN ({placeholders(sessions)}) GROUP BY serial, amount, kind",
            tuple(sessions),
        )
    ]


def station_paid(conn: sqlite3.Connection, station: str, sessions: Sequence[str]) -> int:
    """Cents a station paid out in prizes over `sessions`."""
    row = conn.execute(
        f"SELECT coalesce(sum(amount), 0) FROM p_redemptions WHERE origin = ? "
        f"AND session IN ({placeholders(sessions)})",
        (station, *sessions),
    ).fetchone()
    return int(row[0])


def redeemer_totals(
    conn: sqlite3.Connection, sessions: Sequence[str]
) -> list[tuple[str, int, int]]:
    """(redeemer's badge, payments, cents) over `sessions`."""
    return [
        (row[0], int(row[1]), int(row[2]))
        for row in conn.execute(
            f"SELECT by, count(*), sum(amount) FROM p_redemptions "
            f"WHERE session IN ({placeholders(sessions)}) GROUP BY by",
            tuple(sessions),
        )
    ]


def voids_between(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[str, int, int]]:
    """(kind, voids, cents) of the voids stamped in [low, high)."""
    return [
        (row[0], int(row[1]), int(row[2]))
        for row in conn.execute(
            "SELECT kind, count(*), coalesce(sum(amount), 0) FROM p_voids "
            "WHERE hlc >= ? AND hlc < ? GROUP BY kind",
            (low, high),
        )
    ]


# --- read models: seal cards --------------------------------------------------------------------


@dataclass(frozen=True)
class OpenSeal:
    lines: list[int]  # the winning lines
    claim_until: str


def seal(conn: sqlite3.Connection, serial: str) -> OpenSeal | None:
    """The opened seal of a deal, or None while it is closed."""
    row = conn.execute(
        "SELECT lines, claim_until FROM p_seals WHERE serial = ?", (serial,)
    ).fetchone()
    return OpenSeal(json.loads(row[0]), row[1]) if row else None


def line_signed_by_ticket(conn: sqlite3.Connection, serial: str, ticket: str) -> int | None:
    """The line a hold ticket signed, if it did."""
    row = conn.execute(
        "SELECT line FROM p_seal_lines WHERE serial = ? AND ticket = ?", (serial, ticket)
    ).fetchone()
    return int(row[0]) if row else None


def ticket_on_line(conn: sqlite3.Connection, serial: str, line: int) -> str | None:
    """The hold ticket that signed a line, if one did."""
    row = conn.execute(
        "SELECT ticket FROM p_seal_lines WHERE serial = ? AND line = ?", (serial, line)
    ).fetchone()
    return str(row[0]) if row else None


def signed_lines(conn: sqlite3.Connection, serial: str) -> dict[int, dict[str, Any]]:
    """line -> {ticket, player} of a deal's signed lines."""
    return {
        int(row[0]): {"ticket": row[1], "player": row[2]}
        for row in conn.execute(
            "SELECT line, ticket, player FROM p_seal_lines WHERE serial = ?", (serial,)
        )
    }


def seal_prizes(conn: sqlite3.Connection, serial: str) -> dict[int, tuple[int, str, str | None]]:
    """line -> (amount, state, carried_to) of a deal's seal prizes."""
    return {
        int(row[0]): (int(row[1]), row[2], row[3])
        for row in conn.execute(
            "SELECT line, amount, state, carried_to FROM p_seal_prizes WHERE serial = ?",
            (serial,),
        )
    }


@dataclass(frozen=True)
class SealPrize:
    amount: int
    state: str
    carried_to: str | None
    claim_until: str


def seal_prize(conn: sqlite3.Connection, serial: str, line: int) -> SealPrize | None:
    """The prize of a winning line and its claim window; None if the line did not win."""
    row = conn.execute(
        "SELECT p.amount, p.state, p.carried_to, s.claim_until FROM p_seal_prizes p "
        "JOIN p_seals s USING (serial) WHERE p.serial = ? AND p.line = ?",
        (serial, line),
    ).fetchone()
    return SealPrize(int(row[0]), row[1], row[2], row[3]) if row else None


def progressive_prizes_due(conn: sqlite3.Connection, today: str) -> list[tuple[str, int, int]]:
    """(serial, line, amount) of unclaimed progressive prizes past their carry date (C6)."""
    return [
        (row[0], int(row[1]), int(row[2]))
        for row in conn.execute(
            "SELECT p.serial, p.line, p.amount FROM p_seal_prizes p JOIN p_seals s USING (serial) "
            "WHERE p.state = 'open' AND s.progressive = 1 AND s.carry_after < ? "
            "ORDER BY s.opened_on, p.serial, p.line",
            (today,),
        )
    ]


# --- read models: exceptions --------------------------------------------------------------------


def flags(
    conn: sqlite3.Connection,
) -> list[tuple[str, int, str, str | None, str | None, str, str, str | None]]:
    """(origin, seq, kind, serial, ticket, detail, hlc, player) of every flag, newest first."""
    return [
        tuple(row)
        for row in conn.execute(
            "SELECT origin, seq, kind, serial, ticket, detail, hlc, player FROM p_flags "
            "ORDER BY hlc DESC"
        )
    ]


def open_flags_raised_by(conn: sqlite3.Connection, origin: str) -> list[tuple[str, int, str, str]]:
    """(origin, seq, kind, detail) of every flag station `origin` raised that is not resolved,
    oldest first: a kiosk's open calls."""
    return [
        (str(row[0]), int(row[1]), str(row[2]), str(row[3]))
        for row in conn.execute(
            "SELECT origin, seq, kind, detail FROM p_flags WHERE origin = ? AND resolved = 0 "
            "ORDER BY hlc, seq",
            (origin,),
        )
    ]


def flags_between(conn: sqlite3.Connection, low: str, high: str) -> list[dict[str, Any]]:
    """Flags stamped in [low, high), oldest first: kind, origin, detail."""
    return dict_rows(
        conn,
        "SELECT kind, origin, detail FROM p_flags WHERE hlc >= ? AND hlc < ? ORDER BY hlc",
        (low, high),
    )


def paid_twice(conn: sqlite3.Connection) -> list[tuple[str, int, str, str, str, str]]:
    """(second origin, second seq, serial, ticket, detail, hlc) of every ticket paid on both
    sides of a cut, newest first."""
    return [
        tuple(row)
        for row in conn.execute(
            "SELECT second_origin, second_seq, serial, ticket, detail, hlc FROM p_paid_twice "
            "ORDER BY hlc DESC"
        )
    ]


def paid_twice_between(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[str, str]]:
    """(second origin, detail) of the tickets paid twice found in [low, high), oldest first."""
    return [
        (row[0], row[1])
        for row in conn.execute(
            "SELECT second_origin, detail FROM p_paid_twice WHERE hlc >= ? AND hlc < ? "
            "ORDER BY hlc",
            (low, high),
        )
    ]


def decisions(conn: sqlite3.Connection) -> dict[tuple[str, int], tuple[str, str, str]]:
    """(origin, seq) of an exception -> (decision, note, by) of the manager's decision."""
    return {
        (origin, int(seq)): (decision, note, by)
        for origin, seq, decision, note, by in conn.execute(
            "SELECT origin, seq, decision, note, by FROM p_flag_decisions"
        )
    }
