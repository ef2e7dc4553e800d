"""Bingo game programs and every version of each, as the log says they are."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_bingo_programs (
    name TEXT NOT NULL, version INTEGER NOT NULL, program TEXT NOT NULL, by TEXT,
    hlc TEXT NOT NULL, origin TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (name, version)
);
CREATE INDEX p_bingo_programs_hlc ON p_bingo_programs (hlc)
"""


def _program(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    program = body["program"]
    conn.execute(
        "INSERT OR IGNORE INTO p_bingo_programs VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            body["name"],
            int(body["version"]),
            json.dumps(program, sort_keys=True),
            body.get("by"),
            event.hlc,
            event.origin,
            event.seq,
        ),
    )


BINGO_PROGRAMS = Projection(
    name="bingo_programs",
    version=1,
    schema=SCHEMA,
    handlers={
        "ProgramDefined": _program,
    },
)


# --- read models ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProgramVersion:
    name: str
    version: int
    program: dict[str, Any]  # the interchange mapping (pos.domain.bingo_program.parse_program)
    by: str | None
    hlc: str


def _version(row: Sequence[Any]) -> ProgramVersion:
    return ProgramVersion(row[0], int(row[1]), json.loads(row[2]), row[3], row[4])


def current_program(conn: sqlite3.Connection) -> ProgramVersion | None:
    """The latest version of the program defined last: the one in effect."""
    row = conn.execute(
        "SELECT name, version, program, by, hlc FROM p_bingo_programs ORDER BY hlc DESC LIMIT 1"
    ).fetchone()
    return _version(row) if row else None


def program_version(
    conn: sqlite3.Connection, name: str, version: int | None = None
) -> ProgramVersion | None:
    """A program's version `version`, or its latest."""
    if version is None:
        row = conn.execute(
            "SELECT name, version, program, by, hlc FROM p_bingo_programs WHERE name = ? "
            "ORDER BY version DESC LIMIT 1",
            (name,),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT name, version, program, by, hlc FROM p_bingo_programs "
            "WHERE name = ? AND version = ?",
            (name, version),
        ).fetchone()
    return _version(row) if row else None


def program_versions(conn: sqlite3.Connection, name: str | None = None) -> list[ProgramVersion]:
    """Every version of every program (or of one), oldest first."""
    where, params = ("WHERE name = ?", (name,)) if name else ("", ())
    return [
        _version(row)
        for row in conn.execute(
            f"SELECT name, version, program, by, hlc FROM p_bingo_programs {where} "
            "ORDER BY name, version",
            params,
        )
    ]
