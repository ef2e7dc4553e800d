"""Raffles (11VAC15-40-60 F): each raffle and its prizes, its numbered tickets sold and voided,
the stubs counted into the receptacle, the numbers drawn and the prizes claimed.

The station that created a raffle holds it: its tickets and drawing are recorded there. When two
stations each created a raffle under one id (cut apart), every station keeps the earliest by
stamp, so all agree.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import dict_row, dict_rows

SCHEMA = """
CREATE TABLE p_raffles (
    raffle TEXT PRIMARY KEY, name TEXT NOT NULL, drawing_date TEXT NOT NULL,
    price INTEGER NOT NULL, holder TEXT NOT NULL, created_hlc TEXT NOT NULL, by TEXT,
    stubs INTEGER, stubs_sold INTEGER, stubs_voided INTEGER, witnesses TEXT, stubs_by TEXT,
    stubs_hlc TEXT
);
CREATE TABLE p_raffle_prizes (
    raffle TEXT NOT NULL, place INTEGER NOT NULL, description TEXT NOT NULL,
    value INTEGER NOT NULL, basis TEXT NOT NULL, ticket INTEGER, drawn_hlc TEXT, drawn_by TEXT,
    claimed_hlc TEXT, claimed_by TEXT, claim_origin TEXT, claim_seq INTEGER,
    w2g INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (raffle, place)
);
CREATE TABLE p_raffle_tickets (
    raffle TEXT NOT NULL, ticket INTEGER NOT NULL, station TEXT NOT NULL,
    receipt INTEGER NOT NULL, price INTEGER NOT NULL, seller TEXT, buyer TEXT, session TEXT,
    sold_hlc TEXT NOT NULL, voided_hlc TEXT, void_reason TEXT, voided_by TEXT,
    PRIMARY KEY (raffle, ticket)
);
CREATE INDEX p_raffle_tickets_receipt ON p_raffle_tickets (station, receipt);
CREATE INDEX p_raffle_tickets_sold ON p_raffle_tickets (sold_hlc);
CREATE INDEX p_raffle_tickets_voided ON p_raffle_tickets (voided_hlc)
"""


def _created(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    raffle = body["raffle"]
    row = conn.execute("SELECT created_hlc FROM p_raffles WHERE raffle = ?", (raffle,)).fetchone()
    if row is not None and row[0] <= event.hlc:
        return  # the earliest stands
    conn.execute("DELETE FROM p_raffles WHERE raffle = ?", (raffle,))
    conn.execute("DELETE FROM p_raffle_prizes WHERE raffle = ?", (raffle,))
    conn.execute(
        "INSERT INTO p_raffles (raffle, name, drawing_date, price, holder, created_hlc, by) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            raffle,
            body["name"],
            body["drawing_date"],
            int(body["price"]),
            event.origin,
            event.hlc,
            body.get("by"),
        ),
    )
    conn.executemany(
        "INSERT INTO p_raffle_prizes (raffle, place, description, value, basis) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            (raffle, int(p["place"]), p["description"], int(p["value"]), p["basis"])
            for p in body["prizes"]
        ],
    )


def _sold(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_raffle_tickets (raffle, ticket, station, receipt, price, "
        "seller, buyer, session, sold_hlc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            body["raffle"],
            int(body["ticket"]),
            event.origin,
            int(body["receipt"]),
            int(body["amount"]),
            body.get("seller"),
            body.get("buyer"),
            body.get("session"),
            event.hlc,
        ),
    )


def _voided(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_raffle_tickets SET voided_hlc = ?, void_reason = ?, voided_by = ? "
        "WHERE raffle = ? AND ticket = ? AND voided_hlc IS NULL",
        (event.hlc, body["reason"], body.get("by"), body["raffle"], int(body["ticket"])),
    )


def _stubs(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_raffles SET stubs = ?, stubs_sold = ?, stubs_voided = ?, witnesses = ?, "
        "stubs_by = ?, stubs_hlc = ? WHERE raffle = ? AND stubs IS NULL",
        (
            int(body["stubs"]),
            int(body["sold"]),
            int(body["voided"]),
            json.dumps(list(body["witnesses"])),
            body.get("by"),
            event.hlc,
            body["raffle"],
        ),
    )


def _drawn(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_raffle_prizes SET ticket = ?, drawn_hlc = ?, drawn_by = ? "
        "WHERE raffle = ? AND place = ? AND ticket IS NULL",
        (int(body["ticket"]), event.hlc, body.get("by"), body["raffle"], int(body["place"])),
    )


def _claimed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_raffle_prizes SET claimed_hlc = ?, claimed_by = ?, claim_origin = ?, "
        "claim_seq = ?, w2g = ? WHERE raffle = ? AND place = ? AND claimed_hlc IS NULL",
        (
            event.hlc,
            body.get("by"),
            event.origin,
            event.seq,
            int(bool(body.get("w2g"))),
            body["raffle"],
            int(body["place"]),
        ),
    )


RAFFLE = Projection(
    name="raffle",
    version=1,
    schema=SCHEMA,
    handlers={
        "RaffleCreated": _created,
        "RaffleTicketSold": _sold,
        "RaffleTicketVoided": _voided,
        "RaffleStubsCounted": _stubs,
        "RaffleNumberDrawn": _drawn,
        "RafflePrizeClaimed": _claimed,
    },
)


# --- read models --------------------------------------------------------------------------------


def raffle(conn: sqlite3.Connection, raffle_id: str) -> dict[str, Any] | None:
    """A raffle on file (every column of p_raffles, witnesses as a list), or None."""
    row = dict_row(conn, "SELECT * FROM p_raffles WHERE raffle = ?", (raffle_id,))
    if row is not None:
        row["witnesses"] = json.loads(row["witnesses"]) if row["witnesses"] else []
    return row


def raffle_ids(conn: sqlite3.Connection) -> list[str]:
    return [
        r[0] for r in conn.execute("SELECT raffle FROM p_raffles ORDER BY drawing_date, raffle")
    ]


def prizes(conn: sqlite3.Connection, raffle_id: str) -> list[dict[str, Any]]:
    """A raffle's prizes in place order, with the number drawn and the claim."""
    return dict_rows(
        conn, "SELECT * FROM p_raffle_prizes WHERE raffle = ? ORDER BY place", (raffle_id,)
    )


def ticket(conn: sqlite3.Connection, raffle_id: str, number: int) -> dict[str, Any] | None:
    return dict_row(
        conn,
        "SELECT * FROM p_raffle_tickets WHERE raffle = ? AND ticket = ?",
        (raffle_id, number),
    )


def ticket_by_receipt(
    conn: sqlite3.Connection, station: str, receipt: int
) -> dict[str, Any] | None:
    """The raffle ticket a station's receipt number printed, or None."""
    return dict_row(
        conn,
        "SELECT * FROM p_raffle_tickets WHERE station = ? AND receipt = ?",
        (station, receipt),
    )


def ticket_counts(conn: sqlite3.Connection, raffle_id: str) -> tuple[int, int, int]:
    """(tickets sold, of them voided, the highest number given) for a raffle."""
    row = conn.execute(
        "SELECT count(*), count(voided_hlc), coalesce(max(ticket), 0) FROM p_raffle_tickets "
        "WHERE raffle = ?",
        (raffle_id,),
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])


def place_won(conn: sqlite3.Connection, raffle_id: str, number: int) -> int | None:
    """The prize place a ticket already won, or None."""
    row = conn.execute(
        "SELECT min(place) FROM p_raffle_prizes WHERE raffle = ? AND ticket = ?",
        (raffle_id, number),
    ).fetchone()
    return int(row[0]) if row[0] is not None else None


def day_lines(conn: sqlite3.Connection, low: str, high: str) -> list[dict[str, Any]]:
    """Per raffle with anything in [low, high): tickets sold and voided, gross (sold less voided,
    at the ticket's price), and the fair market value of the prizes drawn in that time."""
    rows = dict_rows(
        conn,
        "SELECT r.raffle, r.name, r.drawing_date, r.price, "
        "(SELECT count(*) FROM p_raffle_tickets t WHERE t.raffle = r.raffle "
        " AND t.sold_hlc >= ?1 AND t.sold_hlc < ?2) AS sold, "
        "(SELECT coalesce(sum(price), 0) FROM p_raffle_tickets t WHERE t.raffle = r.raffle "
        " AND t.sold_hlc >= ?1 AND t.sold_hlc < ?2) AS sold_amount, "
        "(SELECT count(*) FROM p_raffle_tickets t WHERE t.raffle = r.raffle "
        " AND t.voided_hlc >= ?1 AND t.voided_hlc < ?2) AS voided, "
        "(SELECT coalesce(sum(price), 0) FROM p_raffle_tickets t WHERE t.raffle = r.raffle "
        " AND t.voided_hlc >= ?1 AND t.voided_hlc < ?2) AS voided_amount, "
        "(SELECT count(*) FROM p_raffle_prizes p WHERE p.raffle = r.raffle "
        " AND p.drawn_hlc >= ?1 AND p.drawn_hlc < ?2) AS prizes_drawn, "
        "(SELECT coalesce(sum(value), 0) FROM p_raffle_prizes p WHERE p.raffle = r.raffle "
        " AND p.drawn_hlc >= ?1 AND p.drawn_hlc < ?2) AS prizes_value "
        "FROM p_raffles r ORDER BY r.raffle",
        (low, high),
    )
    return [r for r in rows if r["sold"] or r["voided"] or r["prizes_drawn"]]


def station_takings(conn: sqlite3.Connection, station: str, low: str, high: str) -> int:
    """Cents a station took in for raffle tickets in [low, high), less the tickets it voided
    (handed back) then."""
    row = conn.execute(
        "SELECT (SELECT coalesce(sum(price), 0) FROM p_raffle_tickets WHERE station = ?1 "
        "AND sold_hlc >= ?2 AND sold_hlc < ?3) - (SELECT coalesce(sum(price), 0) "
        "FROM p_raffle_tickets WHERE station = ?1 AND voided_hlc >= ?2 AND voided_hlc < ?3)",
        (station, low, high),
    ).fetchone()
    return int(row[0])


# --- the state's figures, each with its event -----------------------------------------------------


def ticket_events(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[Any, ...]]:
    """(origin, seq, event type, raffle, ticket, cents) behind the raffle receipts of
    [low, high): each ticket sold then and not voided then (+ its price), and each ticket voided
    then that was sold before (- its price). A ticket sold and voided within the time counts
    neither way, so the sum is the day reports' gross (sold less voided) over the same days."""
    # events first (one pass over the log, no index on stamps), each looked up by its ticket
    sold = (
        "SELECT e.origin, e.seq, e.type, t.raffle, t.ticket, t.price, e.hlc "
        "FROM events e CROSS JOIN p_raffle_tickets t ON t.raffle = json_extract(e.body, "
        "'$.raffle') AND t.ticket = CAST(json_extract(e.body, '$.ticket') AS INTEGER) "
        "WHERE e.type = 'RaffleTicketSold' AND e.hlc >= ?1 AND e.hlc < ?2 "
        "AND t.station = e.origin AND t.sold_hlc = e.hlc "
        "AND NOT coalesce(t.voided_hlc >= ?1 AND t.voided_hlc < ?2, 0)"
    )
    voided = (
        "SELECT e.origin, e.seq, e.type, t.raffle, t.ticket, -t.price, e.hlc "
        "FROM events e CROSS JOIN p_raffle_tickets t ON t.raffle = json_extract(e.body, "
        "'$.raffle') AND t.ticket = CAST(json_extract(e.body, '$.ticket') AS INTEGER) "
        "WHERE e.type = 'RaffleTicketVoided' AND e.hlc >= ?1 AND e.hlc < ?2 "
        "AND t.voided_hlc = e.hlc AND NOT (t.sold_hlc >= ?1 AND t.sold_hlc < ?2)"
    )
    return [
        tuple(r[:6])
        for r in conn.execute(f"{sold} UNION ALL {voided} ORDER BY 7, 1, 2", (low, high))
    ]


def prize_claims(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[Any, ...]]:
    """(origin, seq, raffle, place, description, fair market value in cents, its basis) of each
    raffle prize claimed in [low, high)."""
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT claim_origin, claim_seq, raffle, place, description, value, basis "
            "FROM p_raffle_prizes WHERE claimed_hlc >= ? AND claimed_hlc < ? "
            "ORDER BY claimed_hlc, raffle, place",
            (low, high),
        )
    ]


def prizes_unclaimed(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[Any, ...]]:
    """(raffle, place, description, fair market value in cents, ticket) of each raffle prize
    drawn in [low, high) and not claimed (by now)."""
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT raffle, place, description, value, ticket FROM p_raffle_prizes "
            "WHERE drawn_hlc >= ? AND drawn_hlc < ? AND claimed_hlc IS NULL "
            "ORDER BY drawn_hlc, raffle, place",
            (low, high),
        )
    ]
