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
    hlc TEXT NOT NULL, PRIMARY KEY (session, station)
)
"""


def _counted(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_drawer_counts VALUES (?, ?, ?, ?, ?) ON CONFLICT (session, station) "
        "DO UPDATE SET amount = excluded.amount, by = excluded.by, hlc = excluded.hlc "
        "WHERE excluded.hlc > p_drawer_counts.hlc",
        (body["session"], body["station"], int(body["amount"]), body["by"], event.hlc),
    )


CASH = Projection(name="cash", version=1, schema=SCHEMA, handlers={"DrawerCounted": _counted})


def counted(conn: sqlite3.Connection, station: str, sessions: Sequence[str]) -> int | None:
    """Cents the manager counted in a station's drawer over `sessions`; None if never counted."""
    row = conn.execute(
        f"SELECT sum(amount) FROM p_drawer_counts WHERE station = ? "
        f"AND session IN ({placeholders(sessions)})",
        (station, *sessions),
    ).fetchone()
    return int(row[0]) if row[0] is not None else None
