"""Closing a session: each station's close marker, who was missing, and events that arrived
after the session closed here (late: reported, never folded silently into a closed day)."""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import EVERY_EVENT, Projection, remembered, session_state_key

SCHEMA = """
CREATE TABLE p_close_markers (
    session TEXT NOT NULL, station TEXT NOT NULL, last_seq INTEGER NOT NULL,
    hlc TEXT NOT NULL, PRIMARY KEY (session, station)
);
CREATE TABLE p_missing_at_close (
    session TEXT NOT NULL, station TEXT NOT NULL, reason TEXT NOT NULL, manager TEXT NOT NULL,
    PRIMARY KEY (session, station)
);
CREATE TABLE p_late_events (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, session TEXT NOT NULL,
    hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
)
"""

_NOT_LATE = frozenset(
    {
        "SessionClosed",
        "StationClosedSession",
        "StationMissingAtClose",
        "ExceptionFlagged",
        "PrintStarted",
        "ReceiptPrinted",
        "PrintFailed",
    }
)


def _marker(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_close_markers VALUES (?, ?, ?, ?)",
        (body["session"], event.origin, event.seq, event.hlc),
    )


def _missing(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_missing_at_close VALUES (?, ?, ?, ?)",
        (body["session"], body["station"], body["reason"], body["manager"]),
    )


def _late(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    session = body.get("session")
    if not isinstance(session, str) or event.kind in _NOT_LATE:
        return
    row = remembered(
        session_state_key(session),
        lambda: conn.execute(
            "SELECT state FROM p_sessions WHERE session = ?", (session,)
        ).fetchone(),
    )
    if row is not None and row[0] == "closed":
        conn.execute(
            "INSERT OR IGNORE INTO p_late_events VALUES (?, ?, ?, ?, ?)",
            (event.origin, event.seq, event.kind, session, event.hlc),
        )


CLOSING = Projection(
    name="closing",
    version=1,
    schema=SCHEMA,
    handlers={
        "StationClosedSession": _marker,
        "SessionClosed": _marker,
        "StationMissingAtClose": _missing,
        EVERY_EVENT: _late,
    },
)
