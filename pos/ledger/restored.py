"""A station restored from a backup, catching up: it records nothing until its peers gave back
its own events newer than the backup.

A backup is as old as it is: after it, the station may have recorded events that peers pulled.
Restored, its log ends at the backup, so a new event of its own would take a number (sequence,
receipt, voucher) one of those already has: a fork of the hall. `booth restore` marks the
restored ledger (a row of the local `meta` table, never replicated); while the mark is there,
`Ledger.append` refuses. Events of its own origin come back through the ordinary apply path
(they are signed by its own key and follow its chain), and every number is a projection of the
log, so once they are back the station's counters go on from where they were.

The mark goes when every peer this station lists has been heard from since the restore, each
saying it holds no more of this station's events than it now holds (`confirm`); or when a
manager ends it deliberately, for a station whose peers are all gone (`finish`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pos.errors import StorageFailure

KEY = "restored"
GUIDE = "docs/backup-and-restore.md, 'Restoring'"


class CatchingUp(StorageFailure):
    """A write on a station restored from a backup that has not caught up yet (exit 3: it is
    waiting for the network, and the same request may be tried again later)."""


@dataclass(frozen=True)
class Restored:
    """The mark of a restored ledger."""

    station: str
    backup_created: str | None  # when the backup was made, as its manifest says
    own_seq: int  # the station's own last seq in the backup
    restored_at: str
    # peer station -> its last seq of this station, as it said at a pull since the restore
    heard: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Restored:
        data = json.loads(text)
        return cls(
            station=str(data["station"]),
            backup_created=data.get("backup_created"),
            own_seq=int(data["own_seq"]),
            restored_at=str(data["restored_at"]),
            heard={str(k): int(v) for k, v in (data.get("heard") or {}).items()},
        )


def state(conn: sqlite3.Connection) -> Restored | None:
    """The mark, if this ledger was restored and has not caught up yet."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    except sqlite3.OperationalError:  # a ledger older than the meta table: never restored
        return None
    return Restored.from_json(row[0]) if row else None


def mark(conn: sqlite3.Connection, restored: Restored) -> None:
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (KEY, restored.to_json()))


def finish(conn: sqlite3.Connection) -> Restored | None:
    """End the catching up (the mark removed); the mark it had, if any."""
    held = state(conn)
    conn.execute("DELETE FROM meta WHERE key = ?", (KEY,))
    return held


def refuse_writes(conn: sqlite3.Connection, station: str) -> None:
    """Raise CatchingUp while the ledger is marked restored (called where events are appended)."""
    held = state(conn)
    if held is None:
        return
    raise CatchingUp(
        f"station {station} was restored from a backup (made {held.backup_created or '?'}, "
        f"its own events up to {station}:{held.own_seq}) and records nothing until it has "
        f"caught up: let it sync with the hall's other stations ('booth sync now'), which "
        f"give back its events newer than the backup; nothing was recorded ({GUIDE})"
    )


def listed_peers(conn: sqlite3.Connection, own: str) -> set[str]:
    """The stations this one lists as peers (by any address), itself left out."""
    return {
        str(row[0])
        for row in conn.execute(
            "SELECT DISTINCT station FROM sync_peers WHERE station IS NOT NULL AND station != ?",
            (own,),
        )
    }


def confirm(conn: sqlite3.Connection, peer: str, peer_holds: int, own_held: int) -> bool:
    """A pull from `peer` is done: it said it holds this station's events up to `peer_holds`,
    and this station now holds its own up to `own_held`. True when that ended the catching up
    (every listed peer heard from, none holding more than this station now does)."""
    held = state(conn)
    if held is None:
        return False
    heard = {**held.heard, peer: peer_holds}
    if max(heard.values()) <= own_held and listed_peers(conn, held.station) <= set(heard):
        finish(conn)
        return True
    mark(conn, Restored(**{**asdict(held), "heard": heard}))
    return False


def forget_answers(conn: sqlite3.Connection) -> None:
    """Forget the answers kept for request ids (the local `requests` table): a backup does not
    carry them and a restore drops them, so a restored station never answers a retry with text
    from a timeline it no longer holds. A claim whose events the ledger holds is kept without
    its answer: a retry of it is then answered from those events ("done before"), never run a
    second time; a claim that recorded nothing (a refusal) is forgotten, and may run again."""
    conn.execute("PRAGMA secure_delete=ON")  # not left in free pages of the copy either
    conn.execute(
        "DELETE FROM requests WHERE origin IS NULL OR last_seq IS NULL OR NOT EXISTS "
        "(SELECT 1 FROM events e WHERE e.origin = requests.origin AND e.seq = requests.last_seq)"
    )
    conn.execute("UPDATE requests SET exit_code = NULL, answer = NULL")


def forget_answers_in_file(path: Path) -> None:
    """`forget_answers` on a ledger file no station has open (a backup's copy)."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        forget_answers(conn)
        conn.execute("COMMIT")
    finally:
        conn.close()


def start(conn: sqlite3.Connection, restored: Restored) -> None:
    """A restore's last step on the ledger: the answers of the old timeline forgotten, the mark
    set. Inside a transaction."""
    forget_answers(conn)
    mark(conn, restored)
