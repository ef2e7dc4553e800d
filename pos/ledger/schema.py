"""Versioned migrations of the log's own tables (sqlite-utils Migrations).

Projection tables are not migrated: they are derived, so a change to their schema rebuilds them
from the log (see projections.py).
"""

from __future__ import annotations

from sqlite_utils import Database, Migrations

migrations = Migrations("booth-ledger")


@migrations()
def m001_event_log(db: Database) -> None:
    db.execute(
        """
        CREATE TABLE events (
            rowid INTEGER PRIMARY KEY,
            origin TEXT NOT NULL,
            seq INTEGER NOT NULL CHECK (seq >= 1),
            type TEXT NOT NULL,
            hlc TEXT NOT NULL,
            prev TEXT NOT NULL,
            body TEXT NOT NULL,
            hash TEXT NOT NULL,
            sig TEXT NOT NULL,
            UNIQUE (origin, seq)
        )
        """
    )
    db.execute("CREATE INDEX events_hlc ON events (hlc)")
    # Append-only: nothing in Booth updates or deletes an event; these stop a bug from trying.
    db.execute(
        "CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events "
        "BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END"
    )
    db.execute(
        "CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events "
        "BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END"
    )


@migrations()
def m002_incidents_and_meta(db: Database) -> None:
    # Evidence of refused events (forks, bad signatures) kept for the manager and `booth verify`.
    db.table("incidents").create(
        {
            "id": int,
            "recorded_at": str,
            "kind": str,
            "origin": str,
            "seq": int,
            "detail": str,
            "evidence": str,
        },
        pk="id",
    )
    db.table("meta").create({"key": str, "value": str}, pk="key")


@migrations()
def m003_origin_heads(db: Database) -> None:
    # The highest seq ever stored per origin. Not a projection: a rebuild from a log whose last
    # rows were cut must not forget that they existed (`booth verify` reports the truncation).
    db.execute("CREATE TABLE origin_heads (origin TEXT PRIMARY KEY, last_seq INTEGER NOT NULL)")
    db.execute("INSERT INTO origin_heads SELECT origin, max(seq) FROM events GROUP BY origin")


@migrations()
def m004_last_stamp_in_heads(db: Database) -> None:
    # The newest clock stamp per origin, so a new event's stamp needs no index over all events
    # (one page write less per commit).
    db.execute("ALTER TABLE origin_heads ADD COLUMN last_hlc TEXT NOT NULL DEFAULT ''")
    db.execute(
        "UPDATE origin_heads SET last_hlc = "
        "(SELECT max(hlc) FROM events WHERE events.origin = origin_heads.origin)"
    )
    db.execute("DROP INDEX events_hlc")


@migrations()
def m005_sync_state(db: Database) -> None:
    # Local replication state: never events, never replicated.
    db.execute(
        "CREATE TABLE sync_local (id TEXT PRIMARY KEY, rev TEXT NOT NULL, doc TEXT NOT NULL)"
    )
    db.execute(
        "CREATE TABLE sync_peers (url TEXT PRIMARY KEY, station TEXT, uuid TEXT, source TEXT "
        "NOT NULL, last_contact TEXT, last_error TEXT, pulled INTEGER NOT NULL DEFAULT 0)"
    )


@migrations()
def m006_peer_heads(db: Database) -> None:
    # Each peer's per-origin high-water marks as it last told them (`booth sync status`).
    db.execute("ALTER TABLE sync_peers ADD COLUMN heads TEXT")
    db.execute("ALTER TABLE sync_peers ADD COLUMN heads_at TEXT")


@migrations()
def m007_requests(db: Database) -> None:
    # Each write command's request id, claimed in the transaction of its first event, and the
    # answer it gave: the same id again returns that answer and records nothing new. Local to
    # this station: never an event, never replicated.
    db.execute(
        "CREATE TABLE requests (request_id TEXT PRIMARY KEY, origin TEXT, first_seq INTEGER, "
        "last_seq INTEGER, claimed_at TEXT, exit_code INTEGER, answer TEXT)"
    )


@migrations()
def m010_web_access(db: Database) -> None:
    # The manager's phone (`booth serve --web`): one-time pairing links and the signed-in
    # sessions they opened, each limited to a role and revocable. Local to this station: never
    # an event, never replicated (a session is good only at the station that serves it).
    db.execute(
        "CREATE TABLE web_pairings (token_hash TEXT PRIMARY KEY, role TEXT NOT NULL, "
        "created_at TEXT NOT NULL, expires_at TEXT NOT NULL, used_at TEXT, failures INTEGER "
        "NOT NULL DEFAULT 0)"
    )
    db.execute(
        "CREATE TABLE web_sessions (id TEXT PRIMARY KEY, role TEXT NOT NULL, badge TEXT NOT "
        "NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL, revoked_at TEXT, "
        "revoked_by TEXT)"
    )


@migrations()
def m011_peer_release_and_clock(db: Database) -> None:
    # Each peer's release (its Booth version) and how far its wall clock was from this
    # station's at the last sync (`booth sync status`, the manager's Stations, the status bar).
    db.execute("ALTER TABLE sync_peers ADD COLUMN version TEXT")
    db.execute("ALTER TABLE sync_peers ADD COLUMN clock_offset_ms INTEGER")
    db.execute("ALTER TABLE sync_peers ADD COLUMN clock_at TEXT")
