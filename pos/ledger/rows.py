"""Small helpers the read models share: rows as dicts, and `IN (...)` placeholders."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any


def dict_rows(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()
) -> list[dict[str, Any]]:
    """Every row of a query as a dict keyed by column name (as sqlite-utils' `query` gives)."""
    cursor = conn.execute(sql, params)
    keys = [column[0] for column in cursor.description]
    return [dict(zip(keys, row, strict=True)) for row in cursor]


def dict_row(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()
) -> dict[str, Any] | None:
    """The first row of a query as a dict, or None."""
    cursor = conn.execute(sql, params)
    row = cursor.fetchone()
    if row is None:
        return None
    return dict(zip([column[0] for column in cursor.description], row, strict=True))


def placeholders(values: Sequence[Any]) -> str:
    """`?, ?, ?` for an `IN (...)` of `values`; `NULL` when there are none (matches nothing)."""
    return ",".join("?" for _ in values) or "NULL"
