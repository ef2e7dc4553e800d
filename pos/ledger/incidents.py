"""Incidents this station recorded (the local `incidents` table, never replicated): events it
refused as forged, out of order or forked, with the evidence."""

from __future__ import annotations

import sqlite3


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
