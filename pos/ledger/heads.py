"""The log's high-water marks (`origin_heads`): the highest seq and clock stamp ever stored per
origin. Not a projection: a rebuild never forgets them (see schema.m003_origin_heads)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


def high_water_marks(conn: sqlite3.Connection) -> dict[str, int]:
    """origin -> the highest seq held of it."""
    return {
        origin: int(seq)
        for origin, seq in conn.execute("SELECT origin, last_seq FROM origin_heads")
    }


def heads(conn: sqlite3.Connection) -> dict[str, tuple[int, str]]:
    """origin -> (the highest seq held of it, the newest clock stamp of its events)."""
    return {
        row[0]: (int(row[1]), row[2])
        for row in conn.execute("SELECT origin, last_seq, last_hlc FROM origin_heads")
    }


def last_seq(conn: sqlite3.Connection, origin: str) -> int:
    """The highest seq held of an origin; 0 when none is."""
    row = conn.execute("SELECT last_seq FROM origin_heads WHERE origin = ?", (origin,)).fetchone()
    return int(row[0]) if row else 0


@dataclass(frozen=True)
class OriginHead:
    origin: str
    last_seq: int
    last_hlc: str


def detail(conn: sqlite3.Connection) -> list[OriginHead]:
    """Each origin's high-water mark and newest clock stamp, by origin."""
    return [
        OriginHead(str(origin), int(seq), str(stamp))
        for origin, seq, stamp in conn.execute(
            "SELECT origin, last_seq, last_hlc FROM origin_heads ORDER BY origin"
        )
    ]
