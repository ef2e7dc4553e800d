"""Settings as the log says they are: the rulebook's settings, the house's settings, and the
house rules posted (every version kept)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import dict_rows

SCHEMA = """
CREATE TABLE p_settings (
    scope TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, set_by TEXT, set_hlc TEXT,
    governs TEXT, origin TEXT, seq INTEGER, PRIMARY KEY (scope, key)
);
CREATE TABLE p_house_rules (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, text TEXT NOT NULL,
    posted_on TEXT NOT NULL, posted_by TEXT, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
)
"""


def _setting_set(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    scope = "house" if event.kind == "HouseRuleSet" else "rulebook"
    conn.execute(
        "INSERT INTO p_settings VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) "
        "DO UPDATE SET value = excluded.value, set_by = excluded.set_by, "
        "set_hlc = excluded.set_hlc, governs = excluded.governs, origin = excluded.origin, "
        "seq = excluded.seq WHERE excluded.set_hlc > p_settings.set_hlc",
        (
            scope,
            body["key"],
            body["value"],
            body.get("by"),
            event.hlc,
            _governs(body),
            event.origin,
            event.seq,
        ),
    )


def _governs(body: dict[str, Any]) -> str | None:
    governs = body.get("governs")
    return json.dumps(sorted(set(governs))) if governs else None


def _house_rule_posted(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_house_rules VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["key"],
            body["text"],
            body["posted_on"],
            body.get("by"),
            event.hlc,
        ),
    )


SETTINGS = Projection(
    name="settings",
    version=2,
    schema=SCHEMA,
    handlers={
        "HouseRuleSet": _setting_set,
        "RulebookSettingSet": _setting_set,
        "HouseRulePosted": _house_rule_posted,
    },
)


# --- read models --------------------------------------------------------------------------------


def settings(conn: sqlite3.Connection, scope: str) -> dict[str, str]:
    """The settings of a scope ('house' or 'rulebook') as set in the log: key -> value."""
    return dict(conn.execute("SELECT key, value FROM p_settings WHERE scope = ?", (scope,)))


def posted_house_rules(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every version of every posted house rule, by key and then in the order posted, each with
    its version number (1, 2, ... per key)."""
    rows = dict_rows(
        conn,
        "SELECT key, text, posted_on, posted_by, hlc FROM p_house_rules "
        "ORDER BY key, hlc, origin, seq",
    )
    versions: dict[str, int] = {}
    for row in rows:
        versions[row["key"]] = versions.get(row["key"], 0) + 1
        row["version"] = versions[row["key"]]
        del row["hlc"]
    return rows


@dataclass(frozen=True)
class StoredSetting:
    scope: str
    key: str
    value: str
    by: str | None
    governs: tuple[str, ...]
    origin: str
    seq: int
    hlc: str


def stored_settings(conn: sqlite3.Connection) -> list[StoredSetting]:
    """Every hall-wide setting the log holds, known to this release or not, with what it
    governs."""
    return [
        StoredSetting(
            scope, key, value, by, tuple(json.loads(governs)) if governs else (), origin, seq, hlc
        )
        for scope, key, value, by, governs, origin, seq, hlc in conn.execute(
            "SELECT scope, key, value, set_by, governs, origin, seq, set_hlc FROM p_settings "
            "ORDER BY scope, key"
        )
    ]


def any_governing(conn: sqlite3.Connection) -> bool:
    """Whether any setting names the functions it governs (only then may one be a newer
    release's that governs something here)."""
    return (
        conn.execute("SELECT 1 FROM p_settings WHERE governs IS NOT NULL LIMIT 1").fetchone()
        is not None
    )
