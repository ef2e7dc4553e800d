"""Events of kinds this release does not know (a newer Booth's), counted per origin and kind.
They are stored and chained like any other; this table only says that they are here."""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.domain.event_schemas import SCHEMAS
from pos.ledger.events import Event
from pos.ledger.projections.base import EVERY_EVENT, Projection

SCHEMA = """
CREATE TABLE p_newer_events (
    origin TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL, first_seq INTEGER NOT NULL,
    PRIMARY KEY (origin, kind)
)
"""


def _any_event(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    if event.kind in SCHEMAS:  # every kind this release writes has a schema
        return
    conn.execute(
        "INSERT INTO p_newer_events VALUES (?, ?, 1, ?) ON CONFLICT (origin, kind) "
        "DO UPDATE SET count = count + 1",
        (event.origin, event.kind, event.seq),
    )


NEWER = Projection(
    name="newer",
    version=1,
    schema=SCHEMA,
    handlers={EVERY_EVENT: _any_event},
)


def newer_events(conn: sqlite3.Connection) -> list[tuple[str, str, int, int]]:
    """(origin, kind, count, first seq) of every kind this release does not know."""
    return [
        (str(o), str(k), int(n), int(first))
        for o, k, n, first in conn.execute(
            "SELECT origin, kind, count, first_seq FROM p_newer_events ORDER BY origin, kind"
        )
    ]
