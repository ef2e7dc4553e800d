"""The manager's phone: pairing links, web sessions and the staff PINs they are checked against.

Local tables (migration m010), never replicated: a pairing link or a session is good only at the
station that serves the web app. A pairing link is stored as the hash of its token, never the
token itself.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.ledger.rows import dict_row, dict_rows, placeholders


def add_pairing(
    conn: sqlite3.Connection, token_hash: str, role: str, created_at: str, expires_at: str
) -> None:
    conn.execute(
        "INSERT INTO web_pairings (token_hash, role, created_at, expires_at) VALUES (?, ?, ?, ?)",
        (token_hash, role, created_at, expires_at),
    )


def pairing(conn: sqlite3.Connection, token_hash: str) -> dict[str, Any] | None:
    """A pairing link by its token's hash: role, created_at, expires_at, used_at, failures."""
    return dict_row(conn, "SELECT * FROM web_pairings WHERE token_hash = ?", (token_hash,))


def pairing_failed(conn: sqlite3.Connection, token_hash: str) -> int:
    """One more wrong badge or PIN on this link; how many so far."""
    conn.execute(
        "UPDATE web_pairings SET failures = failures + 1 WHERE token_hash = ?", (token_hash,)
    )
    row = conn.execute(
        "SELECT failures FROM web_pairings WHERE token_hash = ?", (token_hash,)
    ).fetchone()
    return int(row[0]) if row else 0


def use_pairing(conn: sqlite3.Connection, token_hash: str, at: str) -> bool:
    """Spend a pairing link; False when it was spent already (by another sign-in)."""
    cursor = conn.execute(
        "UPDATE web_pairings SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
        (at, token_hash),
    )
    return cursor.rowcount == 1


def add_session(
    conn: sqlite3.Connection, session: str, role: str, badge: str, created_at: str, expires_at: str
) -> None:
    conn.execute(
        "INSERT INTO web_sessions (id, role, badge, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
        (session, role, badge, created_at, expires_at),
    )


def session(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    """A web session: id, role, badge, created_at, expires_at, revoked_at, revoked_by."""
    return dict_row(conn, "SELECT * FROM web_sessions WHERE id = ?", (session_id,))


def sessions(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every web session, newest first."""
    return dict_rows(conn, "SELECT * FROM web_sessions ORDER BY created_at DESC, id")


def revoke(conn: sqlite3.Connection, session_id: str | None, at: str, by: str) -> list[str]:
    """Revoke one session (or, with None, every session not revoked yet); the ids revoked."""
    if session_id is None:
        rows = conn.execute("SELECT id FROM web_sessions WHERE revoked_at IS NULL").fetchall()
    else:
        rows = conn.execute(
            "SELECT id FROM web_sessions WHERE id = ? AND revoked_at IS NULL", (session_id,)
        ).fetchall()
    ids = [str(row[0]) for row in rows]
    conn.executemany(
        "UPDATE web_sessions SET revoked_at = ?, revoked_by = ? WHERE id = ?",
        [(at, by, i) for i in ids],
    )
    return ids


def dispenser_faults(
    conn: sqlite3.Connection, sessions: list[str] | tuple[str, ...]
) -> list[dict[str, Any]]:
    """The kiosk sales over `sessions` whose dispenser failed or gave short: station, receipt,
    hlc, fault (the dispenser's error, or None), requested, qty."""
    if not sessions:
        return []
    return dict_rows(
        conn,
        "SELECT s.station, s.receipt, s.hlc, json_extract(e.body, '$.fault') AS fault, "
        "json_extract(e.body, '$.requested') AS requested, s.qty "
        "FROM p_sales s JOIN p_receipts r ON r.station = s.station AND r.number = s.receipt "
        "JOIN events e ON e.origin = r.origin AND e.seq = r.seq "
        f"WHERE s.session IN ({placeholders(sessions)}) "
        "AND s.station IN (SELECT station FROM p_stations WHERE role = 'kiosk') "
        "AND (json_extract(e.body, '$.fault') IS NOT NULL "
        "OR json_extract(e.body, '$.requested') > s.qty) ORDER BY s.hlc DESC",
        tuple(sessions),
    )


RECENT_RECEIPTS = 50  # a printer that fails now leaves the newest receipts waiting


def printer_faults(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Receipts waiting for a printer that failed, among each station's newest
    RECENT_RECEIPTS: station, number, last_error (by the primary key: no scan of old ones)."""
    out: list[dict[str, Any]] = []
    for (station,) in conn.execute("SELECT station FROM p_stations ORDER BY station").fetchall():
        rows = dict_rows(
            conn,
            "SELECT station, number, printed, last_error FROM p_receipts WHERE station = ? "
            "ORDER BY number DESC LIMIT ?",
            (station, RECENT_RECEIPTS),
        )
        out += [
            {k: r[k] for k in ("station", "number", "last_error")}
            for r in reversed(rows)
            if not r["printed"] and r["last_error"] is not None
        ]
    return out
