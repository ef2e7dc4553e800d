"""Receipts and their print jobs, and vouchers.

Every event whose body carries a `receipt` number issued one: the number is the origin station's,
sequential and allocated in the event's own transaction, so none is skipped or reused.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from pos.domain import voucher_code
from pos.ledger.events import Event
from pos.ledger.projections.base import EVERY_EVENT, Projection
from pos.ledger.rows import dict_row, dict_rows

SCHEMA = """
CREATE TABLE p_receipt_numbers (station TEXT PRIMARY KEY, last INTEGER NOT NULL);
CREATE TABLE p_receipts (
    station TEXT NOT NULL, number INTEGER NOT NULL, type TEXT NOT NULL, origin TEXT NOT NULL,
    seq INTEGER NOT NULL, amount INTEGER, hlc TEXT NOT NULL,
    started INTEGER NOT NULL DEFAULT 0, printed INTEGER NOT NULL DEFAULT 0,
    reprints INTEGER NOT NULL DEFAULT 0, last_error TEXT, PRIMARY KEY (station, number)
);
CREATE INDEX p_receipts_unprinted ON p_receipts (station, printed);
CREATE TABLE p_vouchers (
    station TEXT NOT NULL, number INTEGER NOT NULL, amount INTEGER NOT NULL,
    reason TEXT NOT NULL, issued_hlc TEXT NOT NULL, redeemed_by_origin TEXT,
    redeemed_seq INTEGER, redeemed_hlc TEXT, code TEXT NOT NULL,
    PRIMARY KEY (station, number)
);
CREATE INDEX p_vouchers_code ON p_vouchers (code)
"""


def _amount(body: dict[str, Any]) -> int | None:
    for key in ("amount", "credit"):
        if isinstance(body.get(key), int):
            return int(body[key])
    return None


def _receipt(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    number = body.get("receipt")
    if not isinstance(number, int) or event.kind in JOB_KINDS:
        return
    conn.execute(
        "INSERT OR IGNORE INTO p_receipts (station, number, type, origin, seq, amount, hlc) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (event.origin, number, event.kind, event.origin, event.seq, _amount(body), event.hlc),
    )
    conn.execute(
        "INSERT INTO p_receipt_numbers VALUES (?, ?) ON CONFLICT (station) "
        "DO UPDATE SET last = max(last, excluded.last)",
        (event.origin, number),
    )


def _job(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    station, number = event.origin, int(body["receipt"])
    if event.kind == "PrintStarted":
        conn.execute(
            "UPDATE p_receipts SET started = started + 1 WHERE station = ? AND number = ?",
            (station, number),
        )
    elif event.kind == "ReceiptPrinted":
        column = "reprints" if body.get("reprint") else "printed"
        conn.execute(
            f"UPDATE p_receipts SET {column} = {column} + 1, last_error = NULL "
            "WHERE station = ? AND number = ?",
            (station, number),
        )
    elif event.kind == "PrintFailed":
        conn.execute(
            "UPDATE p_receipts SET last_error = ? WHERE station = ? AND number = ?",
            (body["error"], station, number),
        )


def typed_code(event: Event) -> str:
    """The short code printed under a voucher's QR (canonical, see voucher_code.py), from the
    signature its station put on the issue: only that station's key makes it, every station
    that synced the issue holds it, and a rebuild or a reprint gives the same code."""
    return voucher_code.derive(bytes.fromhex(event.sig))


def _voucher_issued(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_vouchers (station, number, amount, reason, issued_hlc, code) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            int(body["receipt"]),
            int(body["amount"]),
            body["reason"],
            event.hlc,
            typed_code(event),
        ),
    )


def _voucher_redeemed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_vouchers SET redeemed_by_origin = ?, redeemed_seq = ?, redeemed_hlc = ? "
        "WHERE station = ? AND number = ? AND redeemed_hlc IS NULL",
        (event.origin, event.seq, event.hlc, body["voucher_station"], int(body["voucher_number"])),
    )


JOB_KINDS = frozenset({"PrintStarted", "ReceiptPrinted", "PrintFailed"})

RECEIPTS = Projection(
    name="receipts",
    version=1,
    schema=SCHEMA,
    handlers={
        EVERY_EVENT: _receipt,
        "PrintStarted": _job,
        "ReceiptPrinted": _job,
        "PrintFailed": _job,
        "VoucherIssued": _voucher_issued,
        "VoucherRedeemed": _voucher_redeemed,
    },
)


# --- read models: receipts ----------------------------------------------------------------------


def receipt_row(conn: sqlite3.Connection, station: str, number: int) -> dict[str, Any] | None:
    """A receipt on file (every column of p_receipts), or None."""
    return dict_row(
        conn, "SELECT * FROM p_receipts WHERE station = ? AND number = ?", (station, number)
    )


def receipt_kind_and_amount(
    conn: sqlite3.Connection, station: str, number: int
) -> tuple[str, int | None] | None:
    """(event type, amount) of a receipt on file, or None."""
    row = conn.execute(
        "SELECT type, amount FROM p_receipts WHERE station = ? AND number = ?", (station, number)
    ).fetchone()
    return (row[0], row[1]) if row else None


def unprinted(conn: sqlite3.Connection, station: str) -> list[dict[str, Any]]:
    """A station's receipts not printed yet, oldest first: number, type, last_error."""
    return dict_rows(
        conn,
        "SELECT number, type, last_error FROM p_receipts WHERE station = ? AND printed = 0 "
        "ORDER BY number",
        (station,),
    )


# --- read models: vouchers ----------------------------------------------------------------------


@dataclass(frozen=True)
class Voucher:
    amount: int
    redeemed_by: str | None  # the origin of the redemption
    redeemed_hlc: str | None


def voucher(conn: sqlite3.Connection, station: str, number: int) -> Voucher | None:
    row = conn.execute(
        "SELECT amount, redeemed_by_origin, redeemed_hlc FROM p_vouchers WHERE station = ? "
        "AND number = ?",
        (station, number),
    ).fetchone()
    return Voucher(int(row[0]), row[1], row[2]) if row else None


def voucher_code_of(conn: sqlite3.Connection, station: str, number: int) -> str | None:
    """The short code (canonical) of voucher `number` of `station`, or None: not on file."""
    row = conn.execute(
        "SELECT code FROM p_vouchers WHERE station = ? AND number = ?", (station, number)
    ).fetchone()
    return str(row[0]) if row else None


def vouchers_with_code(conn: sqlite3.Connection, code: str) -> list[tuple[str, int]]:
    """(station, number) of the vouchers whose printed short code is `code` (canonical): one,
    or none when no voucher on file here has it."""
    rows = conn.execute(
        "SELECT station, number FROM p_vouchers WHERE code = ? ORDER BY station, number", (code,)
    ).fetchall()
    return [(str(row[0]), int(row[1])) for row in rows]


def vouchers_issued(
    conn: sqlite3.Connection, low: str, high: str, *, station: str | None = None
) -> tuple[int, int]:
    """(vouchers, cents) issued in [low, high), by every station or by `station`."""
    sql = "SELECT count(*), coalesce(sum(amount), 0) FROM p_vouchers WHERE "
    params: tuple[Any, ...] = (low, high)
    if station is not None:
        sql += "station = ? AND "
        params = (station, *params)
    row = conn.execute(sql + "issued_hlc >= ? AND issued_hlc < ?", params).fetchone()
    return int(row[0]), int(row[1])


def vouchers_redeemed(
    conn: sqlite3.Connection, low: str, high: str, *, by: str | None = None
) -> tuple[int, int]:
    """(vouchers, cents) redeemed in [low, high), at every station or at station `by`."""
    sql = "SELECT count(*), coalesce(sum(amount), 0) FROM p_vouchers WHERE "
    params: tuple[Any, ...] = (low, high)
    if by is not None:
        sql += "redeemed_by_origin = ? AND "
        params = (by, *params)
    row = conn.execute(sql + "redeemed_hlc >= ? AND redeemed_hlc < ?", params).fetchone()
    return int(row[0]), int(row[1])


def last_receipt_number(conn: sqlite3.Connection, station: str) -> int:
    """The last receipt number a station issued; 0 before its first."""
    row = conn.execute(
        "SELECT last FROM p_receipt_numbers WHERE station = ?", (station,)
    ).fetchone()
    return int(row[0]) if row else 0
