"""Sign-on: each person's PIN (only its slow hash, from StaffPinSet) and the house's sign-on
settings (HouseSettingSet: `sign-on` badge or badge-and-pin, `lock-minutes`). Replicated as
events, so a badge and its PIN work at every station of the hall."""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_staff_pins (
    badge TEXT PRIMARY KEY, hash TEXT NOT NULL, by TEXT, hlc TEXT NOT NULL
);
CREATE TABLE p_house_settings (
    key TEXT PRIMARY KEY, value TEXT NOT NULL, by TEXT, hlc TEXT NOT NULL
)
"""

PRIVATE_COLUMNS = {"p_staff_pins": frozenset({"hash"})}  # never written to an export


def _pin_set(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_staff_pins VALUES (?, ?, ?, ?) ON CONFLICT (badge) DO UPDATE SET "
        "hash = excluded.hash, by = excluded.by, hlc = excluded.hlc "
        "WHERE excluded.hlc > p_staff_pins.hlc",
        (str(body["badge"]), str(body["hash"]), body.get("by"), event.hlc),
    )


def _setting_set(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_house_settings VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
        "value = excluded.value, by = excluded.by, hlc = excluded.hlc "
        "WHERE excluded.hlc > p_house_settings.hlc",
        (str(body["key"]), str(body["value"]), body.get("by"), event.hlc),
    )


SIGNON = Projection(
    name="signon",
    version=1,
    schema=SCHEMA,
    handlers={"StaffPinSet": _pin_set, "HouseSettingSet": _setting_set},
)


def pin_hash(conn: sqlite3.Connection, badge: str) -> str | None:
    """The stored hash of `badge`'s PIN (None: no PIN set)."""
    row = conn.execute("SELECT hash FROM p_staff_pins WHERE badge = ?", (badge,)).fetchone()
    return str(row[0]) if row else None


def pins_set(conn: sqlite3.Connection) -> dict[str, str]:
    """badge -> when (hlc) its PIN was last set; never the hash."""
    return {str(b): str(h) for b, h in conn.execute("SELECT badge, hlc FROM p_staff_pins")}


def house_settings(conn: sqlite3.Connection) -> dict[str, str]:
    return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM p_house_settings")}
