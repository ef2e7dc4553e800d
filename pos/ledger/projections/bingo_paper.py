"""Bingo paper by audit number, as the log says it is: lots received, sheets issued, voided,
sold and returned, admission packs and their sales. Every movement of a sheet (received, sold,
returned, voided) is kept in `p_paper_moves`, so a session's reconciliation counts each one."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import placeholders

SCHEMA = """
CREATE TABLE p_paper_lots (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, series TEXT NOT NULL, manufacturer TEXT NOT NULL,
    faces TEXT NOT NULL, progressive INTEGER NOT NULL, first INTEGER NOT NULL,
    last INTEGER NOT NULL, invoice TEXT NOT NULL, supplier TEXT, cost INTEGER, hlc TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
);
CREATE TABLE p_paper_series (
    series TEXT PRIMARY KEY, manufacturer TEXT NOT NULL, faces TEXT NOT NULL,
    progressive INTEGER NOT NULL
);
CREATE TABLE p_paper_sheets (
    series TEXT NOT NULL, audit INTEGER NOT NULL, holder TEXT NOT NULL, state TEXT NOT NULL,
    received_hlc TEXT NOT NULL, sold_hlc TEXT, sold_session TEXT, sale_origin TEXT,
    sale_seq INTEGER, voided_hlc TEXT, voided_session TEXT, PRIMARY KEY (series, audit)
);
CREATE INDEX p_paper_sheets_stock ON p_paper_sheets (holder, series, state, audit);
CREATE INDEX p_paper_sheets_sale ON p_paper_sheets (sale_origin, sale_seq);
CREATE TABLE p_paper_returns (
    series TEXT NOT NULL, audit INTEGER NOT NULL, session TEXT NOT NULL, hlc TEXT NOT NULL
);
CREATE INDEX p_paper_returns_session ON p_paper_returns (session);
CREATE TABLE p_paper_moves (
    series TEXT NOT NULL, audit INTEGER NOT NULL, kind TEXT NOT NULL, session TEXT,
    hlc TEXT NOT NULL, origin TEXT NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (origin, seq, series, audit)
);
CREATE INDEX p_paper_moves_session ON p_paper_moves (series, session);
CREATE INDEX p_paper_moves_hlc ON p_paper_moves (series, hlc);
CREATE TABLE p_bingo_packs (
    name TEXT PRIMARY KEY, price INTEGER NOT NULL, games TEXT NOT NULL, items TEXT NOT NULL,
    hlc TEXT NOT NULL
);
CREATE TABLE p_paper_sales (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, session TEXT NOT NULL, receipt INTEGER,
    pack TEXT, series TEXT, qty INTEGER NOT NULL, price INTEGER NOT NULL,
    amount INTEGER NOT NULL, buyer TEXT, by TEXT, sheets TEXT NOT NULL, hlc TEXT NOT NULL,
    returned INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_paper_sales_session ON p_paper_sales (session);
CREATE INDEX p_paper_sales_receipt ON p_paper_sales (origin, receipt)
"""


def _moves(
    conn: sqlite3.Connection,
    event: Event,
    kind: str,
    session: str | None,
    sheets: Iterable[tuple[str, int]],
) -> None:
    conn.executemany(
        "INSERT OR IGNORE INTO p_paper_moves VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            (series, audit, kind, session, event.hlc, event.origin, event.seq)
            for series, audit in sheets
        ),
    )


def _received(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    series, first, last = body["series"], int(body["first"]), int(body["last"])
    conn.execute(
        "INSERT OR IGNORE INTO p_paper_lots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            series,
            body["manufacturer"],
            body["faces"],
            int(bool(body.get("progressive"))),
            first,
            last,
            body["invoice"],
            body.get("supplier"),
            body.get("cost"),
            event.hlc,
        ),
    )
    conn.execute(
        "INSERT OR IGNORE INTO p_paper_series VALUES (?, ?, ?, ?)",
        (series, body["manufacturer"], body["faces"], int(bool(body.get("progressive")))),
    )
    holder = body.get("holder") or event.origin
    conn.executemany(
        "INSERT OR IGNORE INTO p_paper_sheets (series, audit, holder, state, received_hlc) "
        "VALUES (?, ?, ?, 'stock', ?)",
        ((series, audit, holder, event.hlc) for audit in range(first, last + 1)),
    )
    _moves(conn, event, "received", None, ((series, a) for a in range(first, last + 1)))


def _issued(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_paper_sheets SET holder = ? WHERE series = ? AND audit BETWEEN ? AND ? "
        "AND state = 'stock'",
        (body["to"], body["series"], int(body["first"]), int(body["last"])),
    )


def _voided(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    series = body["series"]
    in_stock = conn.execute(
        "SELECT audit FROM p_paper_sheets WHERE series = ? AND audit BETWEEN ? AND ? "
        "AND state = 'stock'",
        (series, int(body["first"]), int(body["last"])),
    ).fetchall()
    _moves(conn, event, "voided", body["session"], ((series, int(r[0])) for r in in_stock))
    conn.execute(
        "UPDATE p_paper_sheets SET state = 'voided', voided_hlc = ?, voided_session = ? "
        "WHERE series = ? AND audit BETWEEN ? AND ? AND state = 'stock'",
        (event.hlc, body["session"], body["series"], int(body["first"]), int(body["last"])),
    )


def _pack(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO p_bingo_packs VALUES (?, ?, ?, ?, ?)",
        (
            body["name"],
            int(body["price"]),
            body.get("games", ""),
            json.dumps(body["items"], sort_keys=True),
            event.hlc,
        ),
    )


def _sold(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    sheets = body["sheets"]
    conn.execute(
        "INSERT OR IGNORE INTO p_paper_sales VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
        (
            event.origin,
            event.seq,
            body["session"],
            body.get("receipt"),
            body.get("pack"),
            body.get("series"),
            int(body["qty"]),
            int(body["price"]),
            int(body["amount"]),
            body.get("buyer"),
            body.get("by"),
            json.dumps(sheets, sort_keys=True),
            event.hlc,
        ),
    )
    _moves(
        conn,
        event,
        "sold",
        body["session"],
        (
            (item["series"], audit)
            for item in sheets
            for audit in range(int(item["first"]), int(item["last"]) + 1)
        ),
    )
    # A sale from another station may arrive before the paper's receipt: its sheets are then
    # on file as sold, and the receipt (INSERT OR IGNORE) leaves them so.
    for item in sheets:
        conn.executemany(
            "INSERT INTO p_paper_sheets (series, audit, holder, state, received_hlc, sold_hlc, "
            "sold_session, sale_origin, sale_seq) VALUES (?, ?, ?, 'sold', ?, ?, ?, ?, ?) "
            "ON CONFLICT (series, audit) DO UPDATE SET state = 'sold', sold_hlc = "
            "excluded.sold_hlc, sold_session = excluded.sold_session, sale_origin = "
            "excluded.sale_origin, sale_seq = excluded.sale_seq",
            (
                (
                    item["series"],
                    audit,
                    event.origin,
                    event.hlc,
                    event.hlc,
                    body["session"],
                    event.origin,
                    event.seq,
                )
                for audit in range(int(item["first"]), int(item["last"]) + 1)
            ),
        )


def _returned(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    origin, seq = body["sale_origin"], int(body["sale_seq"])
    conn.execute(
        "UPDATE p_paper_sales SET returned = 1 WHERE origin = ? AND seq = ?", (origin, seq)
    )
    sale = conn.execute(
        "SELECT sheets FROM p_paper_sales WHERE origin = ? AND seq = ?", (origin, seq)
    ).fetchone()
    if sale is not None:
        _moves(
            conn,
            event,
            "returned",
            body["session"],
            (
                (item["series"], audit)
                for item in json.loads(sale[0])
                for audit in range(int(item["first"]), int(item["last"]) + 1)
            ),
        )
    for series, audit in conn.execute(
        "SELECT series, audit FROM p_paper_sheets WHERE sale_origin = ? AND sale_seq = ?",
        (origin, seq),
    ).fetchall():
        conn.execute(
            "INSERT INTO p_paper_returns VALUES (?, ?, ?, ?)",
            (series, audit, body["session"], event.hlc),
        )
    conn.execute(
        "UPDATE p_paper_sheets SET state = 'stock', sold_hlc = NULL, sold_session = NULL, "
        "sale_origin = NULL, sale_seq = NULL WHERE sale_origin = ? AND sale_seq = ?",
        (origin, seq),
    )


BINGO_PAPER = Projection(
    name="bingo_paper",
    version=2,
    schema=SCHEMA,
    handlers={
        "PaperReceived": _received,
        "PaperIssued": _issued,
        "PaperVoided": _voided,
        "BingoPackDefined": _pack,
        "PaperSold": _sold,
        "PaperReturned": _returned,
    },
)


# --- read models ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaperSeries:
    series: str
    manufacturer: str
    faces: str
    progressive: bool


def paper_series(conn: sqlite3.Connection, series: str) -> PaperSeries | None:
    row = conn.execute(
        "SELECT series, manufacturer, faces, progressive FROM p_paper_series WHERE series = ?",
        (series,),
    ).fetchone()
    return PaperSeries(row[0], row[1], row[2], bool(row[3])) if row else None


def all_series(conn: sqlite3.Connection) -> list[PaperSeries]:
    return [
        PaperSeries(row[0], row[1], row[2], bool(row[3]))
        for row in conn.execute(
            "SELECT series, manufacturer, faces, progressive FROM p_paper_series ORDER BY series"
        )
    ]


def overlapping_sheets(conn: sqlite3.Connection, series: str, first: int, last: int) -> int:
    row = conn.execute(
        "SELECT count(*) FROM p_paper_sheets WHERE series = ? AND audit BETWEEN ? AND ?",
        (series, first, last),
    ).fetchone()
    return int(row[0])


def stock_audits(
    conn: sqlite3.Connection, series: str, holder: str | None, limit: int | None = None
) -> list[int]:
    """Audit numbers of a series in stock (at `holder`, or anywhere), lowest first."""
    sql = "SELECT audit FROM p_paper_sheets WHERE series = ? AND state = 'stock'"
    params: list[Any] = [series]
    if holder is not None:
        sql += " AND holder = ?"
        params.append(holder)
    sql += " ORDER BY audit"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [int(row[0]) for row in conn.execute(sql, params)]


def sheet_states(
    conn: sqlite3.Connection, series: str, first: int, last: int
) -> list[tuple[int, str, str]]:
    """(audit, state, holder) of each sheet on file in a range."""
    return [
        (int(r[0]), r[1], r[2])
        for r in conn.execute(
            "SELECT audit, state, holder FROM p_paper_sheets WHERE series = ? AND audit "
            "BETWEEN ? AND ? ORDER BY audit",
            (series, first, last),
        )
    ]


@dataclass(frozen=True)
class StockLine:
    series: str
    holder: str
    state: str
    count: int
    first: int
    last: int


def stock(conn: sqlite3.Connection) -> list[StockLine]:
    """Sheets per series, holder and state, with the lowest and highest audit numbers."""
    return [
        StockLine(r[0], r[1], r[2], int(r[3]), int(r[4]), int(r[5]))
        for r in conn.execute(
            "SELECT series, holder, state, count(*), min(audit), max(audit) FROM p_paper_sheets "
            "GROUP BY series, holder, state ORDER BY series, holder, state"
        )
    ]


@dataclass(frozen=True)
class Pack:
    name: str
    price: int
    games: str
    items: list[dict[str, Any]]  # [{"series": ..., "count": ...}]


def pack(conn: sqlite3.Connection, name: str) -> Pack | None:
    row = conn.execute(
        "SELECT name, price, games, items FROM p_bingo_packs WHERE name = ?", (name,)
    ).fetchone()
    return Pack(row[0], int(row[1]), row[2], json.loads(row[3])) if row else None


def packs(conn: sqlite3.Connection) -> list[Pack]:
    return [
        Pack(row[0], int(row[1]), row[2], json.loads(row[3]))
        for row in conn.execute("SELECT name, price, games, items FROM p_bingo_packs ORDER BY name")
    ]


@dataclass(frozen=True)
class PaperSale:
    origin: str
    seq: int
    session: str
    receipt: int | None
    pack: str | None
    series: str | None
    qty: int
    price: int
    amount: int
    buyer: str | None
    by: str | None
    sheets: list[dict[str, Any]]
    returned: bool


def _sale(row: Sequence[Any]) -> PaperSale:
    return PaperSale(
        row[0],
        int(row[1]),
        row[2],
        row[3],
        row[4],
        row[5],
        int(row[6]),
        int(row[7]),
        int(row[8]),
        row[9],
        row[10],
        json.loads(row[11]),
        bool(row[12]),
    )


_SALE_COLUMNS = (
    "origin, seq, session, receipt, pack, series, qty, price, amount, buyer, by, sheets, returned"
)


def sale_on_receipt(conn: sqlite3.Connection, station: str, receipt: int) -> PaperSale | None:
    row = conn.execute(
        f"SELECT {_SALE_COLUMNS} FROM p_paper_sales WHERE origin = ? AND receipt = ?",
        (station, receipt),
    ).fetchone()
    return _sale(row) if row else None


def paper_sales(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[PaperSale]:
    return [
        _sale(row)
        for row in conn.execute(
            f"SELECT {_SALE_COLUMNS} FROM p_paper_sales WHERE session IN "
            f"({placeholders(sessions)}) ORDER BY hlc",
            tuple(sessions),
        )
    ]


def series_sales(conn: sqlite3.Connection, series: str, session: str) -> int:
    """Cents taken for sheets of a series sold on their own in a session (returns taken off)."""
    row = conn.execute(
        "SELECT coalesce(sum(amount), 0) FROM p_paper_sales WHERE series = ? AND session = ? "
        "AND pack IS NULL AND returned = 0",
        (series, session),
    ).fetchone()
    return int(row[0])


def session_bounds(conn: sqlite3.Connection, session: str) -> tuple[str, str | None] | None:
    """(opened hlc, closed hlc or None) of a session."""
    row = conn.execute(
        "SELECT opened_hlc, closed_hlc FROM p_sessions WHERE session = ?", (session,)
    ).fetchone()
    return (row[0], row[1]) if row else None


def paper_moves_before(conn: sqlite3.Connection, series: str, at: str) -> list[tuple[str, int]]:
    """(kind, audit) of every movement of a series' sheets recorded before clock stamp `at`."""
    return [
        (r[0], int(r[1]))
        for r in conn.execute(
            "SELECT kind, audit FROM p_paper_moves WHERE series = ? AND hlc < ?", (series, at)
        )
    ]


def paper_moves_in(
    conn: sqlite3.Connection, series: str, session: str, low: str, high: str
) -> list[tuple[str, int]]:
    """(kind, audit) of each movement of a series' sheets in a session: sold, returned and
    voided there, and received between its clock stamps `low` and `high`."""
    return [
        (r[0], int(r[1]))
        for r in conn.execute(
            "SELECT kind, audit FROM p_paper_moves WHERE series = ? AND (session = ? OR "
            "(kind = 'received' AND hlc >= ? AND hlc < ?))",
            (series, session, low, high),
        )
    ]
