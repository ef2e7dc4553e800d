"""Redemptions, voids, seal card sheets and seals, and the exceptions flagged for the manager
and the manager's decisions on them.

`p_paid_twice` lists tickets that two stations paid while they could not see each other (a
deal forced away from a holder that was alive behind a cut): no station could refuse the
second payment, so the merge shows it. Both orders of arrival give the same row."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_redemptions (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, serial TEXT NOT NULL, ticket TEXT,
    amount INTEGER NOT NULL, kind TEXT NOT NULL, by TEXT NOT NULL, session TEXT,
    receipt INTEGER, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
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
    by TEXT NOT NULL, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
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
    ticket TEXT, detail TEXT NOT NULL, hlc TEXT NOT NULL,
    resolved INTEGER NOT NULL DEFAULT 0, decision TEXT, note TEXT, resolved_by TEXT,
    PRIMARY KEY (origin, seq)
);
CREATE TABLE p_flag_decisions (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, decision TEXT NOT NULL, note TEXT NOT NULL,
    by TEXT NOT NULL, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
)
"""


def _winner_redeemed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_redemptions VALUES (?, ?, ?, ?, ?, 'ticket', ?, ?, ?, ?)",
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
        ),
    )
    conn.execute(
        "UPDATE p_prize_tiers SET paid = paid + 1 WHERE serial = ? AND amount = ?",
        (body["serial"], int(body["amount"])),
    )
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
        "INSERT OR IGNORE INTO p_voids VALUES (?, ?, 'ticket', ?, ?, 1, 0, ?, ?, ?)",
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
    station, receipt = body["station"], int(body["sale_receipt"])
    row = conn.execute(
        "SELECT serial, qty, amount, session, voided FROM p_sales WHERE station = ? AND "
        "receipt = ?",
        (station, receipt),
    ).fetchone()
    if row is None or row[4]:
        return
    serial, qty, amount, session, _ = row
    conn.execute(
        "UPDATE p_sales SET voided = 1 WHERE station = ? AND receipt = ?", (station, receipt)
    )
    conn.execute(
        "UPDATE p_deals SET sold = sold - ?, gross = gross - ? WHERE serial = ?",
        (qty, amount, serial),
    )
    conn.execute(
        "UPDATE p_session_sales SET qty = qty - ?, gross = gross - ? WHERE session = ? AND "
        "serial = ?",
        (qty, amount, session, serial),
    )
    conn.execute(
        "INSERT OR IGNORE INTO p_voids VALUES (?, ?, 'sale', ?, NULL, ?, ?, ?, ?, ?)",
        (event.origin, event.seq, serial, qty, amount, body["reason"], body["by"], event.hlc),
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
        "INSERT OR IGNORE INTO p_redemptions VALUES (?, ?, ?, ?, ?, 'seal', ?, ?, ?, ?)",
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
        "INSERT OR IGNORE INTO p_flags (origin, seq, kind, serial, ticket, detail, hlc) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["flag"],
            body.get("serial"),
            body.get("ticket"),
            body["detail"],
            event.hlc,
        ),
    )
    _apply_decision(conn, event.origin, event.seq)


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
    version=6,
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
        "ExceptionResolved": _exception_resolved,
    },
)
