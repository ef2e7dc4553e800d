"""Cash the manager counts per drawer (station) and session."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import placeholders

SCHEMA = """
CREATE TABLE p_drawer_counts (
    session TEXT NOT NULL, station TEXT NOT NULL, amount INTEGER NOT NULL, by TEXT NOT NULL,
    hlc TEXT NOT NULL, origin TEXT NOT NULL DEFAULT '', seq INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session, station)
)
"""


def _counted(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_drawer_counts VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session, station) "
        "DO UPDATE SET amount = excluded.amount, by = excluded.by, hlc = excluded.hlc, "
        "origin = excluded.origin, seq = excluded.seq "
        "WHERE excluded.hlc > p_drawer_counts.hlc",
        (
            body["session"],
            body["station"],
            int(body["amount"]),
            body["by"],
            event.hlc,
            event.origin,
            event.seq,
        ),
    )


# version 2: the count's event (origin, seq), which a second person verifies (CountVerified)
CASH = Projection(name="cash", version=2, schema=SCHEMA, handlers={"DrawerCounted": _counted})


def counted(conn: sqlite3.Connection, station: str, sessions: Sequence[str]) -> int | None:
    """Cents the manager counted in a station's drawer over `sessions`; None if never counted."""
    row = conn.execute(
        f"SELECT sum(amount) FROM p_drawer_counts WHERE station = ? "
        f"AND session IN ({placeholders(sessions)})",
        (station, *sessions),
    ).fetchone()
    return int(row[0]) if row[0] is not None else None


def count_of(conn: sqlite3.Connection, session: str, station: str) -> tuple[Any, ...] | None:
    """(origin, seq, cents, by, hlc) of the count standing for a drawer in a session."""
    row = conn.execute(
        "SELECT origin, seq, amount, by, hlc FROM p_drawer_counts "
        "WHERE session = ? AND station = ?",
        (session, station),
    ).fetchone()
    return tuple(row) if row else None


def counts_in(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[Any, ...]]:
    """(session, station, cents, by, hlc, origin, seq) of every count standing in `sessions`."""
    return [
        tuple(row)
        for row in conn.execute(
            f"SELECT session, station, amount, by, hlc, origin, seq FROM p_drawer_counts "
            f"WHERE session IN ({placeholders(sessions)}) ORDER BY session, station",
            tuple(sessions),
        )
    ]
