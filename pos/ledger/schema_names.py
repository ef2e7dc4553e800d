"""The names of the log's migrations (pos.ledger.schema), without sqlite-utils.

Opening a station checks that every migration is applied with one query on the table
sqlite-utils' Migrations keeps; only a file that lacks one imports sqlite-utils to migrate it.
tests/test_ledger_schema_names.py keeps this list the same as the migrations defined."""

from __future__ import annotations

import sqlite3

MIGRATION_SET = "booth-ledger"
MIGRATIONS_TABLE = "_sqlite_migrations"  # sqlite_utils.Migrations.migrations_table
MIGRATION_NAMES = (
    "m001_event_log",
    "m002_incidents_and_meta",
    "m003_origin_heads",
    "m004_last_stamp_in_heads",
    "m005_sync_state",
    "m006_peer_heads",
    "m007_requests",
    "m010_web_access",
    "m011_peer_release_and_clock",
)


def all_applied(conn: sqlite3.Connection) -> bool:
    """Whether every one of this version's migrations is recorded as applied in the file."""
    if not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)
    ).fetchone():
        return False
    applied = {
        name
        for (name,) in conn.execute(
            f"SELECT name FROM {MIGRATIONS_TABLE} WHERE migration_set = ?", (MIGRATION_SET,)
        )
    }
    return applied.issuperset(MIGRATION_NAMES)
