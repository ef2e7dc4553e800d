"""The bookkeeper's tables: counts verified by a second person, deposits and the bank's
confirmations, disbursements by check, bank balances; and the read models the quarter's and the
year's figures are gathered with (each figure with the events behind it)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import placeholders

SCHEMA = """
CREATE TABLE p_count_verifications (
    count_origin TEXT NOT NULL, count_seq INTEGER NOT NULL, session TEXT NOT NULL,
    station TEXT NOT NULL, amount INTEGER NOT NULL, by TEXT NOT NULL, hlc TEXT NOT NULL,
    origin TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (count_origin, count_seq)
);
CREATE TABLE p_deposits (
    bag TEXT PRIMARY KEY, sessions TEXT NOT NULL, cash INTEGER NOT NULL, checks INTEGER NOT NULL,
    taken_by TEXT NOT NULL, deposited_on TEXT NOT NULL, receipts TEXT NOT NULL, by TEXT,
    origin TEXT NOT NULL, seq INTEGER NOT NULL, hlc TEXT NOT NULL,
    credited INTEGER, credited_on TEXT, confirmed_by TEXT, confirm_origin TEXT, confirm_seq INTEGER
);
CREATE TABLE p_deposit_sessions (
    session TEXT PRIMARY KEY, bag TEXT NOT NULL
);
CREATE TABLE p_disbursements (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, payee TEXT NOT NULL, amount INTEGER NOT NULL,
    check_number TEXT NOT NULL, paid_on TEXT NOT NULL, category TEXT NOT NULL,
    invoice TEXT NOT NULL, note TEXT, by TEXT, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_disbursements_day ON p_disbursements (paid_on);
CREATE TABLE p_quarters_reported (
    quarter TEXT NOT NULL, by TEXT, origin TEXT NOT NULL, seq INTEGER NOT NULL,
    hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE TABLE p_bank_balances (
    balance_on TEXT PRIMARY KEY, amount INTEGER NOT NULL, by TEXT, origin TEXT NOT NULL,
    seq INTEGER NOT NULL, hlc TEXT NOT NULL
)
"""


def _verified(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    origin, _, seq = str(body["count"]).rpartition(":")
    conn.execute(
        "INSERT OR IGNORE INTO p_count_verifications VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            origin,
            int(seq),
            body["session"],
            body["station"],
            int(body["amount"]),
            body["by"],
            event.hlc,
            event.origin,
            event.seq,
        ),
    )


def _deposited(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    sessions = [str(s) for s in body["sessions"]]
    inserted = conn.execute(
        "INSERT OR IGNORE INTO p_deposits (bag, sessions, cash, checks, taken_by, deposited_on, "
        "receipts, by, origin, seq, hlc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            body["bag"],
            json.dumps(sessions),
            int(body["cash"]),
            int(body["checks"]),
            body["taken_by"],
            body["on"],
            body.get("receipts", "session"),
            body.get("by"),
            event.origin,
            event.seq,
            event.hlc,
        ),
    ).rowcount
    if inserted:
        conn.executemany(
            "INSERT OR IGNORE INTO p_deposit_sessions VALUES (?, ?)",
            [(s, body["bag"]) for s in sessions],
        )


def _confirmed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_deposits SET credited = ?, credited_on = ?, confirmed_by = ?, "
        "confirm_origin = ?, confirm_seq = ? WHERE bag = ? AND credited IS NULL",
        (int(body["credited"]), body["on"], body.get("by"), event.origin, event.seq, body["bag"]),
    )


def _disbursed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_disbursements VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["payee"],
            int(body["amount"]),
            body["check"],
            body["on"],
            body["category"],
            body["invoice"],
            body.get("note"),
            body.get("by"),
            event.hlc,
        ),
    )


def _balance(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_bank_balances VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (balance_on) DO UPDATE "
        "SET amount = excluded.amount, by = excluded.by, origin = excluded.origin, "
        "seq = excluded.seq, hlc = excluded.hlc WHERE excluded.hlc > p_bank_balances.hlc",
        (body["on"], int(body["amount"]), body.get("by"), event.origin, event.seq, event.hlc),
    )


def _quarter_reported(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_quarters_reported VALUES (?, ?, ?, ?, ?)",
        (body["quarter"], body.get("by"), event.origin, event.seq, event.hlc),
    )


def quarter_reported(conn: sqlite3.Connection, quarter: str) -> bool:
    """Whether the final report of `quarter` ("2026 Q3") has been produced."""
    row = conn.execute("SELECT 1 FROM p_quarters_reported WHERE quarter = ?", (quarter,))
    return row.fetchone() is not None


BOOKS = Projection(
    name="books",
    version=2,
    schema=SCHEMA,
    handlers={
        "CountVerified": _verified,
        "QuarterReported": _quarter_reported,
        "DepositRecorded": _deposited,
        "DepositConfirmed": _confirmed,
        "DisbursementRecorded": _disbursed,
        "BankBalanceRecorded": _balance,
    },
)


# -- counts ---------------------------------------------------------------------------------------


def verification(conn: sqlite3.Connection, origin: str, seq: int) -> tuple[Any, ...] | None:
    """(by, cents, hlc, origin, seq) of the verification of the count ORIGIN:SEQ."""
    row = conn.execute(
        "SELECT by, amount, hlc, origin, seq FROM p_count_verifications "
        "WHERE count_origin = ? AND count_seq = ?",
        (origin, seq),
    ).fetchone()
    return tuple(row) if row else None


def sellers_at(conn: sqlite3.Connection, station: str, session: str) -> list[str]:
    """Who rang sales or paid winners at a station in a session (the people on its drawer)."""
    rows = conn.execute(
        "SELECT seller FROM p_sales WHERE station = ? AND session = ? AND seller IS NOT NULL "
        "UNION SELECT by FROM p_redemptions WHERE origin = ? AND session = ?",
        (station, session, station, session),
    )
    return sorted(str(r[0]) for r in rows if r[0])


# -- deposits -------------------------------------------------------------------------------------

DEPOSIT_COLUMNS = (
    "bag, sessions, cash, checks, taken_by, deposited_on, receipts, by, origin, seq, hlc, "
    "credited, credited_on, confirmed_by, confirm_origin, confirm_seq"
)


def _deposit(row: sqlite3.Row | tuple[Any, ...]) -> dict[str, Any]:
    keys = [k.strip() for k in DEPOSIT_COLUMNS.split(",")]
    out = dict(zip(keys, row, strict=True))
    out["sessions"] = json.loads(out["sessions"])
    return out


def deposits(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [
        _deposit(r)
        for r in conn.execute(
            f"SELECT {DEPOSIT_COLUMNS} FROM p_deposits ORDER BY deposited_on, bag"
        )
    ]


def deposit(conn: sqlite3.Connection, bag: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {DEPOSIT_COLUMNS} FROM p_deposits WHERE bag = ?", (bag,)).fetchone()
    return _deposit(row) if row else None


def deposited_sessions(conn: sqlite3.Connection) -> dict[str, str]:
    """session -> the bag its receipts went to the bank in."""
    return {r[0]: r[1] for r in conn.execute("SELECT session, bag FROM p_deposit_sessions")}


def closed_sessions(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(session, game date) of every session closed hall-wide, oldest first."""
    return [
        (r[0], r[1])
        for r in conn.execute(
            "SELECT session, game_date FROM p_sessions WHERE state = 'closed' "
            "ORDER BY game_date, number"
        )
    ]


def sessions_between(conn: sqlite3.Connection, start: str, end: str) -> list[tuple[str, str]]:
    """(session, game date) of the sessions held from `start` to `end` (inclusive)."""
    return [
        (r[0], r[1])
        for r in conn.execute(
            "SELECT session, game_date FROM p_sessions WHERE game_date BETWEEN ? AND ? "
            "ORDER BY game_date, number",
            (start, end),
        )
    ]


# -- disbursements and balances -------------------------------------------------------------------

DISBURSEMENT_COLUMNS = (
    "origin, seq, payee, amount, check_number, paid_on, category, invoice, note, by, hlc"
)


def disbursements(
    conn: sqlite3.Connection, start: str = "0000-01-01", end: str = "9999-12-31"
) -> list[dict[str, Any]]:
    keys = [k.strip() for k in DISBURSEMENT_COLUMNS.split(",")]
    return [
        dict(zip(keys, r, strict=True))
        for r in conn.execute(
            f"SELECT {DISBURSEMENT_COLUMNS} FROM p_disbursements WHERE paid_on BETWEEN ? AND ? "
            "ORDER BY paid_on, origin, seq",
            (start, end),
        )
    ]


def invoices_paid(conn: sqlite3.Connection) -> set[str]:
    return {str(r[0]).strip().upper() for r in conn.execute("SELECT invoice FROM p_disbursements")}


def bank_balance(conn: sqlite3.Connection, on: str) -> tuple[Any, ...] | None:
    """(cents, by, origin, seq) of the bank balance a person recorded for the day `on`."""
    row = conn.execute(
        "SELECT amount, by, origin, seq FROM p_bank_balances WHERE balance_on = ?", (on,)
    ).fetchone()
    return tuple(row) if row else None


# -- the state's figures, each with its events ----------------------------------------------------


def sales_events(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[Any, ...]]:
    """(origin, seq, deal's game, serial, cents, session) of each sale not voided in
    `sessions`: the events behind the gross receipts of ticket sales."""
    return [
        tuple(r)
        for r in conn.execute(
            f"SELECT e.origin, e.seq, coalesce(d.game, '?'), s.serial, s.amount, s.session "
            f"FROM p_sales s JOIN events e ON e.origin = s.station AND e.hlc = s.hlc "
            f"AND e.type = 'TicketsSold' LEFT JOIN p_deals d ON d.serial = s.serial "
            f"WHERE s.session IN ({placeholders(sessions)}) AND s.voided = 0 "
            f"ORDER BY s.session, e.origin, e.seq",
            tuple(sessions),
        )
    ]


def rental_events(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[Any, ...]]:
    """(origin, seq, cents, session) of each device rental in `sessions`."""
    return [
        tuple(r)
        for r in conn.execute(
            f"SELECT origin, seq, amount, session FROM p_rentals "
            f"WHERE session IN ({placeholders(sessions)}) ORDER BY session, origin, seq",
            tuple(sessions),
        )
    ]


def prize_events(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[Any, ...]]:
    """(origin, seq, deal's game, serial, cents, session) of each prize paid in `sessions`."""
    return [
        tuple(r)
        for r in conn.execute(
            f"SELECT r.origin, r.seq, coalesce(d.game, '?'), r.serial, r.amount, r.session "
            f"FROM p_redemptions r LEFT JOIN p_deals d ON d.serial = r.serial "
            f"WHERE r.session IN ({placeholders(sessions)}) ORDER BY r.session, r.origin, r.seq",
            tuple(sessions),
        )
    ]


def deals_received_between(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[Any, ...]]:
    """(serial, name, invoice, supplier) of the deals taken in between two clock stamps."""
    out = []
    for serial, name, flare in conn.execute(
        "SELECT serial, name, flare FROM p_deals WHERE received_hlc >= ? AND received_hlc < ? "
        "ORDER BY received_hlc",
        (low, high),
    ):
        data = json.loads(flare) if flare else {}
        supplier = data.get("supplier") or {}
        out.append((serial, name, str(data.get("invoice") or ""), str(supplier.get("name") or "")))
    return out
