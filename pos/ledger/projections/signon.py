"""Sign-on: each person's PIN (only its slow hash, from StaffPinSet). Replicated as events, so a
badge and its PIN work at every station of the hall (the manager's phone signs in with them)."""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_staff_pins (
    badge TEXT PRIMARY KEY, hash TEXT NOT NULL, by TEXT, hlc TEXT NOT NULL
)
"""


def _pin_set(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_staff_pins VALUES (?, ?, ?, ?) ON CONFLICT (badge) DO UPDATE SET "
        "hash = excluded.hash, by = excluded.by, hlc = excluded.hlc "
        "WHERE excluded.hlc > p_staff_pins.hlc",
        (str(body["badge"]), str(body["hash"]), body.get("by"), event.hlc),
    )


SIGNON = Projection(
    name="signon",
    version=1,
    schema=SCHEMA,
    handlers={"StaffPinSet": _pin_set},
)


def pin_hash(conn: sqlite3.Connection, badge: str) -> str | None:
    """The stored hash of `badge`'s PIN (None: no PIN set)."""
    row = conn.execute("SELECT hash FROM p_staff_pins WHERE badge = ?", (badge,)).fetchone()
    return str(row[0]) if row else None
