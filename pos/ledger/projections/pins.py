"""Staff PINs (StaffPinSet): each badge's newest PIN hash, for signing in to the manager's
phone. Only the slow hash is held, never a PIN."""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_staff_pins (
    badge TEXT PRIMARY KEY, pin_hash TEXT NOT NULL, by TEXT, hlc TEXT NOT NULL
)
"""


def _pin_set(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_staff_pins VALUES (?, ?, ?, ?) ON CONFLICT (badge) DO UPDATE SET "
        "pin_hash = excluded.pin_hash, by = excluded.by, hlc = excluded.hlc "
        "WHERE excluded.hlc > p_staff_pins.hlc",
        (body["badge"], body["pin_hash"], body.get("by"), event.hlc),
    )


PINS = Projection(name="pins", version=1, schema=SCHEMA, handlers={"StaffPinSet": _pin_set})


def pin_hash(conn: sqlite3.Connection, badge: str) -> str | None:
    """The newest PIN hash set for `badge`, or None when none was set."""
    row = conn.execute("SELECT pin_hash FROM p_staff_pins WHERE badge = ?", (badge,)).fetchone()
    return str(row[0]) if row else None
