"""Incidents this station recorded (the local `incidents` table, never replicated): events it
refused as forged, out of order or forked, with the evidence."""

from __future__ import annotations

import sqlite3
from datetime import datetime


def forks(conn: sqlite3.Connection) -> list[tuple[str, int, str, str]]:
    """(origin, seq, detail, recorded at) of each fork refused here, once per (origin, seq):
    two different signed events under one key, e.g. a second instance of a station joined from
    a copy of its bundle. The earliest record of each."""
    return [
        (str(origin), int(seq), str(detail), str(recorded))
        for origin, seq, detail, recorded in conn.execute(
            "SELECT origin, seq, detail, min(recorded_at) FROM incidents WHERE kind = 'fork' "
            "GROUP BY origin, seq ORDER BY origin, seq"
        )
    ]


def stamp_ahead_noted(conn: sqlite3.Connection, origin: str, since: datetime) -> bool:
    """Whether a `stamp-ahead` incident was recorded for `origin` at or after `since`."""
    row = conn.execute(
        "SELECT 1 FROM incidents WHERE kind = 'stamp-ahead' AND origin = ? AND recorded_at >= ? "
        "LIMIT 1",
        (origin, since.isoformat()),
    ).fetchone()
    return row is not None


def stamps_ahead(conn: sqlite3.Connection) -> list[tuple[str, int, str, str]]:
    """(origin, seq, detail, recorded at) of the latest `stamp-ahead` incident of each origin:
    a peer whose clock runs too far ahead of this station's to be followed."""
    return [
        (str(origin), int(seq), str(detail), str(recorded))
        for origin, seq, detail, recorded in conn.execute(
            "SELECT origin, seq, detail, recorded_at FROM incidents WHERE id IN "
            "(SELECT max(id) FROM incidents WHERE kind = 'stamp-ahead' GROUP BY origin) "
            "ORDER BY origin"
        )
    ]
