"""Every projection table whole, as the inspector's export writes them (one CSV a table)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any


def projection_tables(conn: sqlite3.Connection) -> list[str]:
    """The names of the projection (`p_`) tables in this ledger file, sorted."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'p\\_%' "
            "ESCAPE '\\' ORDER BY name"
        )
    ]


def table_rows(conn: sqlite3.Connection, table: str) -> tuple[list[str], Iterator[Any]]:
    """(column names, rows) of a projection table, every row, as stored."""
    if table not in projection_tables(conn):
        raise ValueError(f"{table!r} is not a projection table")
    cursor = conn.execute(f"SELECT * FROM {table}")
    return [column[0] for column in cursor.description], iter(cursor)
