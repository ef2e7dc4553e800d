"""Replication's storage: the read models and the few local writes the sync layer needs.

Local replication state (the `sync_local` documents: checkpoints and peers' `_local` docs; the
`sync_peers` list) is never an event and never replicated. The changes feed and the event
lookups read the log in this station's insertion order (the rowid), which is what `_changes`
`since` counts. Every function takes the SQLite connection it works on: the station's ledger
connection, or a read-only one of the replication server's request threads (`open_reader`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from pos.ledger.events import Event

_COLUMNS = "origin, seq, type, hlc, prev, body, hash, sig"
BUSY_TIMEOUT_MS = 10_000


def open_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to the ledger file at `path` (WAL lets it read beside writers)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return conn


# --- the log, as the changes feed sees it ------------------------------------------------------


def update_seq(conn: sqlite3.Connection) -> int:
    """The newest position of the changes feed (0: no event)."""
    row = conn.execute("SELECT coalesce(max(rowid), 0) FROM events").fetchone()
    return int(row[0])


def event_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])


def changes(conn: sqlite3.Connection, since: int, limit: int) -> list[tuple[int, Event]]:
    """Up to `limit` events stored after position `since`, each with its position."""
    rows = conn.execute(
        f"SELECT rowid, {_COLUMNS} FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?",
        (since, limit),
    ).fetchall()
    return [(int(row[0]), Event(*row[1:])) for row in rows]


def event(conn: sqlite3.Connection, origin: str, seq: int) -> Event | None:
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM events WHERE origin = ? AND seq = ?", (origin, seq)
    ).fetchone()
    return Event(*row) if row else None


def event_hashes(
    conn: sqlite3.Connection, keys: Iterable[tuple[str, int]]
) -> dict[tuple[str, int], str]:
    """(origin, seq) -> hash of the events held among `keys`."""
    held: dict[tuple[str, int], str] = {}
    for origin, seq in keys:
        row = conn.execute(
            "SELECT hash FROM events WHERE origin = ? AND seq = ?", (origin, seq)
        ).fetchone()
        if row:
            held[(origin, seq)] = str(row[0])
    return held


# --- per-origin high-water marks ---------------------------------------------------------------


# --- local documents: checkpoints and peers' _local docs ---------------------------------------


def pull_checkpoint_id(peer_uuid: str, own: str) -> str:
    """Where this station keeps how far it pulled from the log with `peer_uuid`."""
    return f"booth-pull:{own}:{peer_uuid}"


def pull_checkpoint(since: Any, now: datetime, *, mark: str | None = None) -> dict[str, Any]:
    """A pull checkpoint's `_local` document: where the next pull starts, and when it was kept;
    `mark`, where the log gives one, names what it held at `since` (the hash of the event
    there), so the next pull can tell whether the log is still the one followed."""
    doc: dict[str, Any] = {"since": since, "at": now.isoformat()}
    if mark is not None:
        doc["mark"] = mark
    return doc


def local_doc(conn: sqlite3.Connection, local_id: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT doc FROM sync_local WHERE id = ?", (local_id,)).fetchone()
    if row is None:
        return None
    doc: dict[str, Any] = json.loads(row[0])
    return doc


def local_rev(conn: sqlite3.Connection, local_id: str) -> str | None:
    row = conn.execute("SELECT rev FROM sync_local WHERE id = ?", (local_id,)).fetchone()
    return str(row[0]) if row else None


def put_local_doc(
    conn: sqlite3.Connection, local_id: str, doc: dict[str, Any], *, rev: str = "0-1"
) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO sync_local VALUES (?, ?, ?)", (local_id, rev, json.dumps(doc))
    )


PEER_LOCAL_PREFIX = "peer:"


def peer_local_key(peer: str, local_id: str) -> str:
    """Where the `_local` document `local_id` of the peer station `peer` is kept: apart from
    this station's own checkpoints and from every other peer's."""
    return f"{PEER_LOCAL_PREFIX}{peer}/{local_id}"


def put_peer_local_doc(
    conn: sqlite3.Connection, key: str, doc: dict[str, Any], *, rev: str, keep: int
) -> None:
    """Store a peer's `_local` document under `key` (from `peer_local_key`); of that peer's,
    only the `keep` most recently written stay."""
    put_local_doc(conn, key, doc, rev=rev)
    prefix = key[: key.index("/") + 1]
    conn.execute(
        "DELETE FROM sync_local WHERE substr(id, 1, ?) = ? AND rowid NOT IN ("
        "SELECT rowid FROM sync_local WHERE substr(id, 1, ?) = ? ORDER BY rowid DESC LIMIT ?)",
        (len(prefix), prefix, len(prefix), prefix, keep),
    )


def delete_local_doc(conn: sqlite3.Connection, local_id: str) -> None:
    conn.execute("DELETE FROM sync_local WHERE id = ?", (local_id,))


# --- peers -------------------------------------------------------------------------------------


def record_contact(
    conn: sqlite3.Connection,
    url: str,
    *,
    now: str,
    station: str | None,
    error: str | None,
    pulled: int,
    source: str,
    heads: dict[str, int] | None = None,
    version: str | None = None,
    clock_offset_ms: int | None = None,
) -> None:
    """A contact with the peer at `url` at time `now` (ISO text): its station, the error if it
    failed, how many events it gave, its heads and its release as it said, and how far its
    clock was ahead of this station's (milliseconds; None: not measured this time)."""
    conn.execute(
        "INSERT INTO sync_peers (url, station, source, last_contact, last_error, pulled, heads, "
        "heads_at, version, clock_offset_ms, clock_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (url) DO UPDATE SET "
        "station = coalesce(excluded.station, station), "
        "last_contact = CASE WHEN excluded.last_error IS NULL THEN excluded.last_contact "
        "ELSE last_contact END, last_error = excluded.last_error, "
        "pulled = pulled + excluded.pulled, heads = coalesce(excluded.heads, heads), "
        "heads_at = coalesce(excluded.heads_at, heads_at), "
        "version = coalesce(excluded.version, version), "
        "clock_offset_ms = coalesce(excluded.clock_offset_ms, clock_offset_ms), "
        "clock_at = coalesce(excluded.clock_at, clock_at)",
        (
            url,
            station,
            source,
            now if error is None else None,
            error,
            pulled,
            json.dumps(heads, sort_keys=True) if heads is not None else None,
            now if heads is not None else None,
            version,
            clock_offset_ms,
            now if clock_offset_ms is not None else None,
        ),
    )


def peer_urls(conn: sqlite3.Connection, *, source: str | None = None) -> list[str]:
    """The known peers' URLs (only those of `source`, e.g. 'static', if given), sorted."""
    if source is None:
        rows = conn.execute("SELECT url FROM sync_peers ORDER BY url")
    else:
        rows = conn.execute("SELECT url FROM sync_peers WHERE source = ? ORDER BY url", (source,))
    return [str(row[0]) for row in rows]


def list_peer(conn: sqlite3.Connection, url: str) -> None:
    """List a peer by URL (a static peer; one found by zeroconf becomes static)."""
    conn.execute(
        "INSERT INTO sync_peers (url, source) VALUES (?, 'static') "
        "ON CONFLICT (url) DO UPDATE SET source = 'static'",
        (url,),
    )


def forget_peer(conn: sqlite3.Connection, url: str) -> None:
    conn.execute("DELETE FROM sync_peers WHERE url = ?", (url,))


def last_contacts(conn: sqlite3.Connection) -> dict[str, tuple[str | None, str | None]]:
    """station -> (last contact, last error), over every address the station was reached at."""
    return {
        station: (last_contact, last_error)
        for station, last_contact, last_error in conn.execute(
            "SELECT station, max(last_contact), max(last_error) FROM sync_peers "
            "WHERE station IS NOT NULL GROUP BY station"
        )
    }


def release_and_clock(conn: sqlite3.Connection) -> dict[str, tuple[str | None, int | None]]:
    """station -> (its release, how far its clock was ahead of this station's in ms), as last
    measured at any of its addresses."""
    found: dict[str, tuple[str | None, int | None]] = {}
    for station, version, offset in conn.execute(
        "SELECT station, version, clock_offset_ms FROM sync_peers WHERE station IS NOT NULL "
        "AND (version IS NOT NULL OR clock_offset_ms IS NOT NULL) ORDER BY clock_at, last_contact"
    ):
        found[station] = (version, offset)  # the newest measured last
    return found


def peers(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every known peer: url, station, source, last_contact, last_error, pulled, heads (as it
    last said, or None), heads_at, version (its release, as it said), clock_offset_ms (how far
    its clock was ahead of this station's) and clock_at (when that was measured)."""
    cursor = conn.execute(
        "SELECT url, station, source, last_contact, last_error, pulled, heads, heads_at, "
        "version, clock_offset_ms, clock_at FROM sync_peers ORDER BY url"
    )
    names = [column[0] for column in cursor.description]
    result = []
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        row["heads"] = json.loads(row["heads"]) if row["heads"] else None
        result.append(row)
    return result


def deal_holder_address(
    conn: sqlite3.Connection, serial: str
) -> tuple[str | None, str | None] | None:
    """(the station holding deal `serial`, that station's peer URL if known); None: no such
    deal here."""
    row = conn.execute(
        "SELECT d.holder, p.url FROM p_deals d LEFT JOIN sync_peers p "
        "ON p.station = d.holder WHERE d.serial = ?",
        (serial,),
    ).fetchone()
    return (row[0], row[1]) if row is not None else None
