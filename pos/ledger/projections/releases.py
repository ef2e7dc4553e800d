"""The releases each station recorded: the one it began under (its first event's `release`,
none meaning 0.1.0) and each later one it ran (ReleaseInstalled). Where a rule's record begins
is read from here (pos.domain.rule_records)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

if TYPE_CHECKING:
    from pos.domain.rule_records import Release

SCHEMA = """
CREATE TABLE p_releases (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, release TEXT NOT NULL,
    introduced INTEGER NOT NULL, hlc TEXT NOT NULL, recorded_when TEXT,
    PRIMARY KEY (origin, seq)
)
"""

# pos.domain.rule_records is imported by what reads or writes a release's name: every write
# checks that its release is on the record, and it need not import them.


def _introduced(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    from pos.domain.rule_records import UNRECORDED_RELEASE

    conn.execute(
        "INSERT OR IGNORE INTO p_releases VALUES (?, ?, ?, 1, ?, ?)",
        (
            event.origin,
            event.seq,
            str(body.get("release") or UNRECORDED_RELEASE),
            event.hlc,
            body.get("when"),
        ),
    )


def _installed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_releases VALUES (?, ?, ?, 0, ?, ?)",
        (event.origin, event.seq, str(body["release"]), event.hlc, body.get("when")),
    )


RELEASES = Projection(
    name="releases",
    version=1,
    schema=SCHEMA,
    handlers={
        "HallCreated": _introduced,
        "StationJoined": _introduced,
        "ReleaseInstalled": _installed,
    },
)


def releases(conn: sqlite3.Connection) -> list[Release]:
    """Every release every station recorded, by station and sequence. `when` is the event's
    `when` as recorded (None when it carries none)."""
    from pos.domain.rule_records import Release

    return [
        Release(str(o), int(s), str(r), bool(i), str(h), w)
        for o, s, r, i, h, w in conn.execute(
            "SELECT origin, seq, release, introduced, hlc, recorded_when FROM p_releases "
            "ORDER BY origin, seq"
        )
    ]


def recorded(conn: sqlite3.Connection, origin: str, release: str) -> bool:
    """Whether `origin` began under `release` or recorded running it."""
    return (
        conn.execute(
            "SELECT 1 FROM p_releases WHERE origin = ? AND release = ?", (origin, release)
        ).fetchone()
        is not None
    )


def latest(conn: sqlite3.Connection, origin: str) -> str | None:
    """The release `origin` last recorded (None: no event of it is held here)."""
    row = conn.execute(
        "SELECT release FROM p_releases WHERE origin = ? ORDER BY seq DESC LIMIT 1", (origin,)
    ).fetchone()
    return None if row is None else str(row[0])
