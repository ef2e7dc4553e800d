"""Sign-on: each person's PIN (only its slow hash, from StaffPinSet) and the house's sign-on
settings (HouseSettingSet: `sign-on` badge or badge-and-pin, `lock-minutes`). Replicated as
events, so a badge and its PIN work at every station of the hall."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_staff_pins (
    badge TEXT PRIMARY KEY, hash TEXT NOT NULL, by TEXT, hlc TEXT NOT NULL
);
CREATE TABLE p_house_settings (
    key TEXT PRIMARY KEY, value TEXT NOT NULL, by TEXT, hlc TEXT NOT NULL, governs TEXT,
    origin TEXT, seq INTEGER
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
        "INSERT INTO p_house_settings VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE "
        "SET value = excluded.value, by = excluded.by, hlc = excluded.hlc, "
        "governs = excluded.governs, origin = excluded.origin, seq = excluded.seq "
        "WHERE excluded.hlc > p_house_settings.hlc",
        (
            str(body["key"]),
            str(body["value"]),
            body.get("by"),
            event.hlc,
            json.dumps(sorted(set(body["governs"]))) if body.get("governs") else None,
            event.origin,
            event.seq,
        ),
    )


SIGNON = Projection(
    name="signon",
    version=2,
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


def house_setting_rows(conn: sqlite3.Connection) -> list[HouseSettingRow]:
    """Every sign-on setting the log holds, known to this release or not."""
    return [
        HouseSettingRow(
            str(key),
            str(value),
            by,
            tuple(json.loads(governs)) if governs else (),
            origin,
            seq,
            hlc,
        )
        for key, value, by, governs, origin, seq, hlc in conn.execute(
            "SELECT key, value, by, governs, origin, seq, hlc FROM p_house_settings ORDER BY key"
        )
    ]


@dataclass(frozen=True)
class HouseSettingRow:
    key: str
    value: str
    by: str | None
    governs: tuple[str, ...]
    origin: str
    seq: int
    hlc: str


def any_governing(conn: sqlite3.Connection) -> bool:
    """Whether any setting names the functions it governs (only then may one be a newer
    release's that governs something here)."""
    return (
        conn.execute("SELECT 1 FROM p_house_settings WHERE governs IS NOT NULL LIMIT 1").fetchone()
        is not None
    )
