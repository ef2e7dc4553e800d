"""Closing a session: each station's close marker, who was missing, and events that arrived
after the session closed here (late: reported, never folded silently into a closed day)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import EVERY_EVENT, Projection, remembered, session_state_key
from pos.ledger.rows import placeholders

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
        "StationReopenedSession",
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


def _reopened(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """A manager reopened the station for the session: its marker is gone until it closes
    again (a station reopens only itself, so its own events keep the order)."""
    conn.execute(
        "DELETE FROM p_close_markers WHERE session = ? AND station = ?",
        (body["session"], event.origin),
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
        "StationReopenedSession": _reopened,
        "SessionClosed": _marker,
        "StationMissingAtClose": _missing,
        EVERY_EVENT: _late,
    },
)


# --- read models --------------------------------------------------------------------------------


def stations_not_closed(conn: sqlite3.Connection, session: str, *, here: str) -> list[str]:
    """Stations other than `here` whose close marker for `session`, or whose events up to it,
    this ledger does not hold."""
    rows = conn.execute(
        "SELECT s.station, m.last_seq, coalesce(h.last_seq, 0) FROM p_stations s "
        "LEFT JOIN p_close_markers m ON m.station = s.station AND m.session = ? "
        "LEFT JOIN origin_heads h ON h.origin = s.station WHERE s.station != ? "
        "ORDER BY s.station",
        (session, here),
    ).fetchall()
    return [name for name, marker, held in rows if marker is None or held < marker]


@dataclass(frozen=True)
class CloseMarker:
    """A station's close marker for a session: its last seq and when (a clock stamp)."""

    session: str
    station: str
    last_seq: int
    hlc: str


def close_marker(conn: sqlite3.Connection, session: str, station: str) -> CloseMarker | None:
    row = conn.execute(
        "SELECT session, station, last_seq, hlc FROM p_close_markers "
        "WHERE session = ? AND station = ?",
        (session, station),
    ).fetchone()
    return None if row is None else CloseMarker(row[0], row[1], int(row[2]), row[3])


def has_close_marker(conn: sqlite3.Connection, session: str, station: str) -> bool:
    return close_marker(conn, session, station) is not None


def missing_at_close(conn: sqlite3.Connection, station: str, sessions: Sequence[str]) -> list[str]:
    """The reasons a station was closed without, over `sessions`."""
    return [
        row[0]
        for row in conn.execute(
            f"SELECT reason FROM p_missing_at_close WHERE station = ? "
            f"AND session IN ({placeholders(sessions)})",
            (station, *sessions),
        )
    ]


def late_events(
    conn: sqlite3.Connection, sessions: Sequence[str]
) -> list[tuple[str, str, int, str]]:
    """(origin, type, seq, session) of the events that arrived after their session closed."""
    return [
        (row[0], row[1], int(row[2]), row[3])
        for row in conn.execute(
            f"SELECT origin, type, seq, session FROM p_late_events "
            f"WHERE session IN ({placeholders(sessions)}) ORDER BY hlc",
            tuple(sessions),
        )
    ]
