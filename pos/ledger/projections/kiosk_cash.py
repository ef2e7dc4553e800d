"""A kiosk's cash: each bill its acceptor took (escrowed, then stacked, returned or jammed), the
credit the player has on the kiosk (bills in, less what sales and credit vouchers took out), the
sales paid from that credit whose outcome is not recorded yet (a crash between the steps: the
kiosk reconciles them when it starts), and credit a player walked away from: kept on the record
(no longer the kiosk's to spend) until staff pay it out as a voucher."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_bills (
    station TEXT NOT NULL, bill TEXT NOT NULL, amount INTEGER NOT NULL, state TEXT NOT NULL,
    sale TEXT, detail TEXT, hlc TEXT NOT NULL, PRIMARY KEY (station, bill)
);
CREATE INDEX p_bills_state ON p_bills (station, state);
CREATE TABLE p_kiosk_credit (station TEXT PRIMARY KEY, cents INTEGER NOT NULL);
CREATE TABLE p_paid_requests (
    station TEXT NOT NULL, sale TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL,
    PRIMARY KEY (station, sale)
);
CREATE TABLE p_kiosk_credit_left (
    station TEXT NOT NULL, kept TEXT NOT NULL, amount INTEGER NOT NULL, reason TEXT NOT NULL,
    hlc TEXT NOT NULL, voucher INTEGER, PRIMARY KEY (station, kept)
)
"""

ESCROW, STACKED, RETURNED, JAMMED = "escrow", "stacked", "returned", "jammed"


def _credit(conn: sqlite3.Connection, station: str, cents: int) -> None:
    conn.execute(
        "INSERT INTO p_kiosk_credit VALUES (?, ?) ON CONFLICT (station) "
        "DO UPDATE SET cents = cents + excluded.cents",
        (station, cents),
    )


def _escrowed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_bills VALUES (?, ?, ?, ?, ?, NULL, ?)",
        (event.origin, body["bill"], int(body["amount"]), ESCROW, body.get("sale"), event.hlc),
    )


def _settled(state: str) -> Any:
    def handle(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
        amount = int(body["amount"])
        detail = body.get("reason") or body.get("detail")
        changed = conn.execute(
            "UPDATE p_bills SET state = ?, detail = ?, hlc = ? "
            "WHERE station = ? AND bill = ? AND state = ?",
            (state, detail, event.hlc, event.origin, body["bill"], ESCROW),
        ).rowcount
        if not changed:  # settled without an escrow on file (or twice): keep the first outcome
            conn.execute(
                "INSERT OR IGNORE INTO p_bills VALUES (?, ?, ?, ?, NULL, ?, ?)",
                (event.origin, body["bill"], amount, state, detail, event.hlc),
            )
            if conn.execute("SELECT changes()").fetchone()[0] == 0:
                return
        if state in (STACKED, JAMMED):  # the money is in the machine: the player's credit
            _credit(conn, event.origin, amount)

    return handle


def _requested(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    if "pay" not in body:
        return
    conn.execute(
        "INSERT OR IGNORE INTO p_paid_requests VALUES (?, ?, ?, 'open')",
        (event.origin, body["sale"], json.dumps(body, sort_keys=True)),
    )


def _sold(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    if "sale" in body:
        conn.execute(
            "UPDATE p_paid_requests SET state = 'sold' WHERE station = ? AND sale = ?",
            (event.origin, body["sale"]),
        )
    if int(body.get("paid_credit") or 0):
        _credit(conn, event.origin, -int(body["paid_credit"]))


def _rented(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    if int(body.get("paid_credit") or 0):
        _credit(conn, event.origin, -int(body["paid_credit"]))


def _cancelled(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_paid_requests SET state = 'cancelled' WHERE station = ? AND sale = ?",
        (event.origin, body["sale"]),
    )


def _voucher(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    if body.get("from_credit"):
        _credit(conn, event.origin, -int(body["amount"]))
    if body.get("credit_left"):  # credit a player left, paid out: once (the first voucher)
        conn.execute(
            "UPDATE p_kiosk_credit_left SET voucher = ? "
            "WHERE station = ? AND kept = ? AND voucher IS NULL",
            (int(body["receipt"]), event.origin, body["credit_left"]),
        )


def _kept(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """The player walked away: their credit leaves the kiosk's credit (the next player cannot
    spend it) and is kept on the record for staff."""
    added = conn.execute(
        "INSERT OR IGNORE INTO p_kiosk_credit_left VALUES (?, ?, ?, ?, ?, NULL)",
        (event.origin, body["kept"], int(body["amount"]), body["reason"], event.hlc),
    ).rowcount
    if added:
        _credit(conn, event.origin, -int(body["amount"]))


KIOSK_CASH = Projection(
    name="kiosk_cash",
    version=2,
    schema=SCHEMA,
    handlers={
        "BillEscrowed": _escrowed,
        "BillStacked": _settled(STACKED),
        "BillReturned": _settled(RETURNED),
        "BillJammed": _settled(JAMMED),
        "DispenseRequested": _requested,
        "TicketsSold": _sold,
        "DispenseCancelled": _cancelled,
        "DeviceRented": _rented,
        "VoucherIssued": _voucher,
        "KioskCreditKept": _kept,
    },
)


@dataclass(frozen=True)
class Bill:
    bill: str
    amount: int
    state: str
    sale: str | None


def credit(conn: sqlite3.Connection, station: str) -> int:
    """Cents of credit the kiosk holds for its player (bills in, less what was spent or paid
    out as a voucher)."""
    row = conn.execute("SELECT cents FROM p_kiosk_credit WHERE station = ?", (station,)).fetchone()
    return int(row[0]) if row else 0


def bill(conn: sqlite3.Connection, station: str, bill_id: str) -> Bill | None:
    row = conn.execute(
        "SELECT bill, amount, state, sale FROM p_bills WHERE station = ? AND bill = ?",
        (station, bill_id),
    ).fetchone()
    return Bill(row[0], int(row[1]), row[2], row[3]) if row else None


def bills_in_escrow(conn: sqlite3.Connection, station: str) -> list[Bill]:
    """Bills the ledger says are in escrow: each must be stacked, returned or credited."""
    return [
        Bill(row[0], int(row[1]), row[2], row[3])
        for row in conn.execute(
            "SELECT bill, amount, state, sale FROM p_bills WHERE station = ? AND state = ? "
            "ORDER BY hlc",
            (station, ESCROW),
        )
    ]


def open_paid_requests(conn: sqlite3.Connection, station: str) -> list[dict[str, Any]]:
    """Sales paid from credit, recorded, with neither tickets sold nor a cancel on file."""
    return [
        json.loads(row[0])
        for row in conn.execute(
            "SELECT body FROM p_paid_requests WHERE station = ? AND state = 'open' ORDER BY sale",
            (station,),
        )
    ]


def bills_between(conn: sqlite3.Connection, station: str, low: str, high: str) -> int:
    """Cents of bills that went into `station`'s cash box (stacked or jammed inside) stamped in
    [low, high)."""
    row = conn.execute(
        "SELECT coalesce(sum(amount), 0) FROM p_bills WHERE station = ? AND state IN (?, ?) "
        "AND hlc >= ? AND hlc < ?",
        (station, STACKED, JAMMED, low, high),
    ).fetchone()
    return int(row[0])


@dataclass(frozen=True)
class CreditLeft:
    """Credit a player left on a kiosk (they walked away): `voucher` is the voucher staff paid
    it out with (None while it is open)."""

    station: str
    kept: str
    amount: int
    reason: str
    hlc: str
    voucher: int | None


def credit_left(
    conn: sqlite3.Connection, station: str | None = None, *, open_only: bool = True
) -> list[CreditLeft]:
    """Credit players left on kiosks (on `station`, or on every kiosk), oldest first."""
    sql = "SELECT station, kept, amount, reason, hlc, voucher FROM p_kiosk_credit_left WHERE 1"
    args: list[Any] = []
    if station is not None:
        sql += " AND station = ?"
        args.append(station)
    if open_only:
        sql += " AND voucher IS NULL"
    return [
        CreditLeft(str(s), str(k), int(a), str(r), str(h), None if v is None else int(v))
        for s, k, a, r, h, v in conn.execute(sql + " ORDER BY hlc", args)
    ]
