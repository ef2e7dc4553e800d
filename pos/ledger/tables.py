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
    """(column names, rows) of a projection table, every row, as stored; a private column (a
    PIN's hash) is left out."""
    from pos.ledger.projections.signon import PRIVATE_COLUMNS

    if table not in projection_tables(conn):
        raise ValueError(f"{table!r} is not a projection table")
    cursor = conn.execute(f"SELECT * FROM {table}")
    columns = [column[0] for column in cursor.description]
    private = PRIVATE_COLUMNS.get(table, frozenset())
    if not private:
        return columns, iter(cursor)
    keep = [i for i, name in enumerate(columns) if name not in private]
    return [columns[i] for i in keep], (tuple(row[i] for i in keep) for row in cursor)
