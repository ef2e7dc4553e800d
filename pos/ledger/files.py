"""Ledger files as files: copied whole by SQLite's online backup, probed, and opened read-only
as they are (backups and restores)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from pos.ledger.store import Ledger


def _read_only(path: Path, *, autocommit: bool = False) -> sqlite3.Connection:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if autocommit:
        return sqlite3.connect(uri, uri=True, isolation_level=None)
    return sqlite3.connect(uri, uri=True)


def copy_ledger_file(source: Path, target: Path) -> None:
    """SQLite's online backup of `source` (opened read-only) into the file `target`, made one
    self-contained file (rollback journal, not WAL)."""
    src = _read_only(source)
    try:
        src.execute("PRAGMA busy_timeout=10000")
        dst = sqlite3.connect(str(target), isolation_level=None)
        try:
            # pages=-1: the whole database in one step, i.e. in one read transaction of the
            # source: a consistent snapshot, and no restart when the station commits meanwhile.
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file on the stick
            dst.execute("PRAGMA synchronous=FULL")
        finally:
            dst.close()
    finally:
        src.close()


def probe_ledger_file(path: Path) -> None:
    """Read the log's own tables; raises sqlite3.DatabaseError when `path` is not a ledger."""
    conn = _read_only(path)
    try:
        conn.execute("SELECT count(*) FROM events").fetchone()
        conn.execute("SELECT count(*) FROM origin_heads").fetchone()
    finally:
        conn.close()


def open_read_only(path: Path, *, station: str, hall_public_key: str) -> Ledger:
    """A ledger file opened read-only, as it is: no migrations, no projections rebuilt."""
    conn = _read_only(path, autocommit=True)
    return Ledger(conn, station=station, key=None, hall_public_key=hall_public_key)


def bodies_of_kinds(ledger: Ledger, kinds: Iterable[str]) -> list[tuple[str, str]]:
    """(type, body JSON) of every event of `kinds`, in the order the ledger stored them."""
    wanted = tuple(kinds)
    return [
        (row[0], row[1])
        for row in ledger.conn.execute(
            f"SELECT type, body FROM events WHERE type IN ({','.join('?' * len(wanted))})"
            " ORDER BY rowid",
            wanted,
        )
    ]
