"""pos.ledger.schema_names lists the log's migrations as pos.ledger.schema defines them, so a
station opened by this version finds a file migrated only when every migration is applied."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from pos.ledger.schema import migrations
from pos.ledger.schema_names import MIGRATION_NAMES, MIGRATION_SET, MIGRATIONS_TABLE, all_applied


def test_the_names_are_the_migrations_defined_in_their_order() -> None:
    db = Database(sqlite3.connect(":memory:"))
    assert [m.name for m in migrations.pending(db)] == list(MIGRATION_NAMES)
    assert migrations.name == MIGRATION_SET
    assert migrations.migrations_table == MIGRATIONS_TABLE


def test_a_file_is_migrated_only_with_every_migration_applied(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "ledger.db", isolation_level=None)
    assert not all_applied(conn)  # a new file: no migrations table
    db = Database(conn)
    migrations.apply(db, stop_before=MIGRATION_NAMES[-1])
    assert not all_applied(conn)  # an older release's file: the last migration is pending
    migrations.apply(db)
    assert all_applied(conn)
