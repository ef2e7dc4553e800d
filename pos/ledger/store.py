"""The ledger: one SQLite file holding the event log and its projections.

Every change is one `BEGIN IMMEDIATE` transaction: the command reads the projections, appends its
event(s), the projections follow, and the commit makes it durable (WAL, synchronous=FULL).
Events from other stations enter through `apply`, after their signature and chain are checked.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pos.clock import Clock, SystemClock
from pos.domain import hlc
from pos.domain.canonical import NotCanonical
from pos.domain.event_schemas import body_problem
from pos.errors import (
    BadInput,
    BoothError,
    ForkDetected,
    IntegrityFailure,
    StorageFailure,
)
from pos.ledger import damage, requests, restored
from pos.ledger import incidents as incidents_read
from pos.ledger.events import GENESIS, Event
from pos.ledger.keys import Certificate, PublicKey, StationKey
from pos.ledger.projections import ALL, ProjectionSet
from pos.ledger.projections.base import PROJECTION_ERRORS
from pos.ledger.projections.hall import HALL
from pos.ledger.schema_names import all_applied

if TYPE_CHECKING:
    from sqlite_utils import Database

    from pos.ledger.signature_worker import SignatureWorker

# Kinds that introduce an origin: their body carries the certificate of the station's key.
INTRODUCING_KINDS = frozenset({"HallCreated", "StationJoined"})

_COLUMNS = "origin, seq, type, hlc, prev, body, hash, sig"
_REBUILD_CHUNK = 1000
_CHECK_CHUNK = 128  # events a thread checks at a time


MISSING = "the ledger is missing: restore it (docs/backup-and-restore.md)"
LEDGER_MODE = 0o600


def _create_private(path: Path) -> None:
    """An empty ledger file, 0600 whatever the umask (an existing one is left as it is)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, LEDGER_MODE)
    except FileExistsError:
        return
    except OSError as exc:
        raise StorageFailure(f"cannot create the ledger {path}: {exc.strerror}") from None
    try:
        os.fchmod(fd, LEDGER_MODE)
    finally:
        os.close(fd)


def _keep_private(path: Path) -> None:
    """The ledger and SQLite's files beside it 0600: they hold staff names and dates of birth.
    A file this account does not own (a read-only copy) is left as it is."""
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if file.stat().st_mode & 0o777 != LEDGER_MODE:
                os.chmod(file, LEDGER_MODE)
        except FileNotFoundError:
            continue
        except PermissionError:
            continue
        except OSError as exc:
            raise StorageFailure(f"cannot keep {file} private: {exc.strerror}") from None


def _upgraded_copy(
    conn: sqlite3.Connection,
    *,
    station: str,
    hall_public_key: str,
    projections: ProjectionSet,
    rebuild: bool,
) -> sqlite3.Connection:
    """The ledger of `conn` copied into memory (one read transaction of SQLite's backup API),
    with this version's migrations and, if `rebuild`, its `projections` made from the log."""
    memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        conn.backup(memory)
        copy = Ledger(
            memory,
            station=station,
            key=None,
            hall_public_key=hall_public_key,
            projections=projections,
        )
        _migrate(copy.db)
        if rebuild:
            copy.rebuild()
    except BaseException:
        memory.close()
        raise
    finally:
        conn.close()
    return memory


def _minutes(minutes: int) -> str:
    if minutes < 120:
        return f"{minutes} min"
    if minutes < 48 * 60:
        return f"{minutes // 60} h {minutes % 60:02d} min"
    return f"{minutes // (24 * 60)} days"


def _row_to_event(row: tuple[Any, ...]) -> Event:
    return Event(*row)


# Ledgers this process opened: an SQLite error met outside any Ledger (the CLI's last resort)
# is judged against them (pos.ledger.damage: a dying disk or a damaged file).
_OPENED: set[Path] = set()


def is_damaged(exc: BaseException) -> bool:
    """Whether SQLite called the file malformed (not busy, full or read-only): damage or a
    dying disk, which `damaged` tells apart."""
    return damage.says_malformed(exc)


def damaged(exc: BaseException, path: Path | None = None) -> StorageFailure:
    """The error for a file SQLite called malformed: DiskFailure when it does not read end to
    end, else LedgerDamaged (and the file is marked so no write is taken on it)."""
    if path is None and len(_OPENED) == 1:
        path = next(iter(_OPENED))
    return damage.storage_error(exc, path)


def _migrate(db: Database) -> None:
    from pos.ledger.schema import migrations

    migrations.apply(db)


def ledger_error(exc: sqlite3.DatabaseError) -> StorageFailure:
    """An SQLite error no command caught, as the core's error: the file damaged, the disk
    failing, or the file not read."""
    if is_damaged(exc):
        return damaged(exc)
    return StorageFailure(f"the ledger could not be read: {exc}")


def _storage_error(exc: sqlite3.Error, path: Path | None) -> BoothError:
    text = str(exc)
    if is_damaged(exc):
        return damaged(exc, path)
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityFailure(f"the ledger refused a write: {text}")
    return StorageFailure(f"the ledger could not be written: {text}")


class Ledger:
    """An open ledger file. Not thread-safe: one per thread (SQLite's WAL lets readers overlap)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        station: str,
        key: StationKey | None,
        hall_public_key: str,
        projections: ProjectionSet = ALL,
        clock: Clock | None = None,
    ) -> None:
        self.conn = conn
        self.clock: Clock = clock or SystemClock()  # when an incident was recorded
        self.station = station
        self._key = key
        self.hall_public_key = hall_public_key
        self.projections = projections
        self._keys: dict[str, PublicKey] = {}
        self.read_only = False
        self.path: Path | None = None  # the file, once opened by path
        #: events replayed when opening found projections another version of Booth made
        self.rebuilt_on_open: int | None = None
        #: read-only: the file's projections were made by another version (read from memory)
        self.stale_projections = False

    @cached_property
    def db(self) -> Database:
        """sqlite-utils over this connection: imported when first wanted (a migration, the
        incidents read), not by every command that opens the station (20 ms a process)."""
        from sqlite_utils import Database

        return Database(self.conn, execute_plugins=False)

    # --- opening -----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        station: str,
        key: StationKey | None,
        hall_public_key: str,
        projections: ProjectionSet = ALL,
        clock: Clock | None = None,
        create: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> Ledger:
        """The ledger file at `path`, opened to write, migrated and projected. A missing file
        is StorageFailure unless `create` (a new station): it is made 0600 whatever the umask,
        and SQLite gives its -wal and -shm files the same mode. An existing file and its -wal
        and -shm are made 0600 too (a station set up by an older release kept them 0644).
        Projections another version made are rebuilt here, once, told to `progress`; the
        events replayed are then in `rebuilt_on_open`."""
        path = Path(path)
        if create:
            _create_private(path)
        elif not path.exists():
            raise StorageFailure(MISSING)
        else:
            damage.check_not_emptied(path)
            _keep_private(path)
        try:
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=10000")
            ledger = cls(
                conn,
                station=station,
                key=key,
                hall_public_key=hall_public_key,
                projections=projections,
                clock=clock,
            )
            ledger.path = path
            if not all_applied(conn):
                _migrate(ledger.db)
            ledger._ensure_projections(progress)
        except sqlite3.DatabaseError as exc:
            if is_damaged(exc):
                error = damaged(exc, path)
                raise type(error)(f"cannot open the ledger {path}: {error.message}") from None
            raise StorageFailure(f"cannot open the ledger {path}: {exc}") from None
        _OPENED.add(path)
        return ledger

    @classmethod
    def open_read_only(
        cls,
        path: Path | str,
        *,
        station: str,
        hall_public_key: str,
        projections: ProjectionSet = ALL,
        log_only: bool = False,
    ) -> Ledger:
        """The ledger for reading only: no lock, no migration, no write. Beside the station's
        running owner (WAL lets readers overlap its writes), or on a write-protected copy (an
        inspector's stick), where SQLite cannot create its shared-memory file and the file is
        read as immutable.

        A file another version of Booth wrote (its migrations or projections are not this
        version's: `stale_projections`) is read from a copy in memory, migrated, and projected
        from the log: every projection, or with `log_only` (a command that reads the log
        itself, as `verify` does) only the hall's, which opening a station needs."""
        path = Path(path)
        if not path.exists():
            raise StorageFailure(MISSING)
        damage.check_not_emptied(path)
        uri = path.resolve().as_uri()
        try:
            conn = sqlite3.connect(
                f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA busy_timeout=10000")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            if is_damaged(exc):
                raise damaged(exc, path) from None
            if os.access(path.parent, os.W_OK):
                raise StorageFailure(f"cannot open the ledger {path} to read it") from None
            conn = sqlite3.connect(
                f"{uri}?immutable=1", uri=True, isolation_level=None, check_same_thread=False
            )
        try:
            stored = conn.execute("SELECT value FROM meta WHERE key = 'projections'").fetchone()
            behind = not all_applied(conn)
            stale = stored is None or stored[0] != projections.fingerprint
            if behind or stale:
                # Another version of Booth wrote the file (an upgrade not yet started): this
                # read gets a copy in memory, migrated and projected by this version; the file
                # is left as it is until the station opens it to write.
                conn = _upgraded_copy(
                    conn,
                    station=station,
                    hall_public_key=hall_public_key,
                    projections=ProjectionSet([PROJECTION_ERRORS, HALL])
                    if log_only
                    else projections,
                    rebuild=stale,
                )
        except sqlite3.DatabaseError as exc:
            conn.close()
            if is_damaged(exc):
                raise damaged(exc, path) from None
            raise StorageFailure(f"cannot read the ledger {path}: {exc}") from None
        conn.execute("PRAGMA query_only=1")
        ledger = cls(
            conn,
            station=station,
            key=None,
            hall_public_key=hall_public_key,
            projections=projections,
        )
        ledger.read_only = True
        ledger.path = path
        ledger.stale_projections = stale
        _OPENED.add(path)
        return ledger

    def close(self) -> None:
        self.conn.close()

    def _ensure_projections(self, progress: Callable[[int, int], None] | None) -> None:
        stored = self.conn.execute("SELECT value FROM meta WHERE key = 'projections'").fetchone()
        if stored is None or stored[0] != self.projections.fingerprint:
            self.rebuilt_on_open = self.rebuild(progress=progress)

    # --- transactions ------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Ledger]:
        """One command: BEGIN IMMEDIATE ... COMMIT, rolled back whole on any error."""
        if self.conn.in_transaction:
            yield self
            return
        if self.read_only:
            raise StorageFailure("this command writes, but the ledger is open for reading only")
        if self.path is not None:
            damage.refuse_if_marked(self.path)
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _storage_error(exc, self.path) from None
        try:
            yield self
        except BaseException as exc:
            # Some errors (SQLITE_FULL, SQLITE_IOERR) have already rolled the transaction back.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if is_damaged(exc):  # a read or write inside the command met a malformed page
                raise damaged(exc, self.path) from None
            raise
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise _storage_error(exc, self.path) from None

    def roll_back_open_transaction(self) -> None:
        """Undo whatever transaction is still open on this connection (a pooled reader's, after
        a command that failed inside one), so the connection is clean for the next."""
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    # --- reading -----------------------------------------------------------------------------

    def head(self, origin: str) -> tuple[int, str]:
        """(last seq, last hash) of an origin in this ledger; (0, GENESIS) when none."""
        row = self.conn.execute(
            "SELECT seq, hash FROM events WHERE origin = ? ORDER BY seq DESC LIMIT 1", (origin,)
        ).fetchone()
        return (row[0], row[1]) if row else (0, GENESIS)

    def last_stamp(self) -> hlc.Stamp | None:
        row = self.conn.execute("SELECT max(last_hlc) FROM origin_heads").fetchone()
        return hlc.Stamp.parse(row[0]) if row and row[0] else None

    def stamp_to_follow(self, now: datetime) -> hlc.Stamp | None:
        """The stamp a new event here must pass: this station's own last, and every peer's
        that is not too far ahead of `now` (pos.domain.hlc)."""
        row = self.conn.execute(
            "SELECT max(last_hlc) FROM origin_heads WHERE origin = ? OR last_hlc <= ?",
            (self.station, hlc.follow_bound(now)),
        ).fetchone()
        return hlc.Stamp.parse(row[0]) if row and row[0] else None

    def get(self, origin: str, seq: int) -> Event | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM events WHERE origin = ? AND seq = ?", (origin, seq)
        ).fetchone()
        return _row_to_event(row) if row else None

    def events(self, after_rowid: int = 0, limit: int | None = None) -> Iterator[Event]:
        """Events in this station's insertion order (the order projections saw them)."""
        sql = f"SELECT {_COLUMNS} FROM events WHERE rowid > ? ORDER BY rowid"
        params: tuple[Any, ...] = (after_rowid,)
        if limit is not None:
            sql += " LIMIT ?"
            params += (limit,)
        for row in self.conn.execute(sql, params):
            yield _row_to_event(row)

    def origin_events(self, origin: str) -> Iterator[Event]:
        for row in self.conn.execute(
            f"SELECT {_COLUMNS} FROM events WHERE origin = ? ORDER BY seq", (origin,)
        ):
            yield _row_to_event(row)

    def origin_events_after(self, origin: str, after: int, limit: int) -> list[Event]:
        """Up to `limit` events of `origin` following seq `after`, in seq order."""
        return [
            _row_to_event(row)
            for row in self.conn.execute(
                f"SELECT {_COLUMNS} FROM events WHERE origin = ? AND seq > ? ORDER BY seq LIMIT ?",
                (origin, after, limit),
            )
        ]

    def count(self) -> int:
        row = self.conn.execute("SELECT count(*) FROM events").fetchone()
        return int(row[0])

    # --- writing -----------------------------------------------------------------------------

    def append(self, kind: str, body: dict[str, Any], *, now: datetime) -> Event:
        """Sign and store a new event of this station, and project it. Inside `transaction()`."""
        if self._key is None:
            raise IntegrityFailure(f"station {self.station} holds no signing key")
        with self.transaction():
            # A station restored from a backup takes nothing new before its peers gave back its
            # own newer events: its numbers would repeat theirs (pos/ledger/restored.py).
            restored.refuse_writes(self.conn, self.station)
            seq, prev = self.head(self.station)
            stamp = hlc.tick(self.stamp_to_follow(now), now)
            try:
                event = Event.create(
                    self._key,
                    origin=self.station,
                    seq=seq + 1,
                    kind=kind,
                    hlc=str(stamp),
                    prev=prev,
                    body=body,
                )
            except NotCanonical as exc:
                raise BadInput(kind, str(exc)) from None
            problem = body_problem(kind, event.body)
            if problem is not None:  # a bug of the command that made it: nothing is stored
                raise BadInput(kind, f"the event's body does not fit its kind: {problem}")
            self._store(event)
            requests.claim_in_transaction(self.conn, event.origin, event.seq, event.hlc)
        return event

    def apply(self, event: Event) -> bool:
        """Take in another station's event. True if new; False if already held (a no-op).

        Refused (recorded as an incident, nothing stored): a bad hash or signature, an origin
        with no certificate, a gap in the origin's sequence, a fork (a different event under a
        key already held, or one that does not follow the origin's last event), or a body that
        does not fit its kind's schema (pos.domain.event_schemas: signed by a stolen key, say).
        """
        nested = self.conn.in_transaction
        try:
            with self.transaction():
                held = self.get(event.origin, event.seq)
                if held is not None and held.hash == event.hash:
                    return False
                # Authentic first: an unsigned event under a held key is a forgery, not a fork.
                self._check_authentic(event)
                if held is not None:
                    raise _Refusal("fork", f"held hash {held.hash}", event)
                self._check_follows(event)
                self._check_body(event)
                self._store(event, strict=False)
        except _Refusal as refusal:
            if not nested:
                self._record_incident(refusal.kind, event, refusal.detail)
            raise refusal.error() from None
        self._note_stamps_ahead([event])
        return True

    def apply_batch(
        self, events: Iterable[Event], *, authentic: Sequence[bool] | None = None
    ) -> tuple[int, list[IntegrityFailure]]:
        """Apply many events in one transaction (one fsync). A refused event is recorded as an
        incident and skipped with the rest of its origin's events in the batch (they could not
        follow it); everything else is kept. Returns (new events, refusals).

        `authentic` may carry what a `SignatureCheck` found for each event, computed off this
        thread; an event it does not vouch for is checked here. Every check runs before
        anything is written, so a refusal has nothing to undo; each origin's head is read once
        and then followed in memory; the accepted events are then stored together."""
        refusals: list[IntegrityFailure] = []
        blocked: set[str] = set()
        incidents: list[tuple[str, Event, str]] = []
        accepted: list[Event] = []
        batch = list(events)
        if authentic is None:
            authentic = self.signature_check()(batch)
        heads: dict[str, tuple[int, str]] = {}
        introduced: dict[str, PublicKey] = {}
        with self.transaction():
            for event, verified in zip(batch, authentic, strict=True):
                if event.origin in blocked:
                    continue
                head = heads.get(event.origin) or self.head(event.origin)
                try:
                    if event.seq <= head[0]:
                        held = self.get(event.origin, event.seq)
                        if held is not None and held.hash == event.hash:
                            continue  # already held: applying twice changes nothing
                        if not verified:
                            self._check_authentic(event, introduced)
                        held_hash = held.hash if held else "?"
                        raise _Refusal("fork", f"held hash {held_hash}", event)
                    if not verified:  # re-check here, to refuse it with the exact reason
                        self._check_authentic(event, introduced)
                    if event.seq != head[0] + 1:
                        raise _Refusal("gap", f"it follows seq {head[0]} of its origin", event)
                    if event.prev != head[1]:
                        raise _Refusal(
                            "fork", f"prev {event.prev} but the head is {head[1]}", event
                        )
                    self._check_body(event)
                    heads[event.origin] = (event.seq, event.hash)
                    accepted.append(event)
                except _Refusal as refusal:
                    blocked.add(event.origin)
                    incidents.append((refusal.kind, event, refusal.detail))
                    refusals.append(refusal.error())
            self._store_many(accepted)
        for kind, event, detail in incidents:
            self._record_incident(kind, event, detail)
        self._note_stamps_ahead(accepted)
        return len(accepted), refusals

    def _note_stamps_ahead(self, events: Sequence[Event]) -> None:
        """An incident for an origin whose events are stamped too far ahead of this station's
        clock (they are kept, not followed): at most one an hour per origin."""
        if not events:
            return
        now = self.clock.now()
        bound = hlc.follow_bound(now)
        latest: dict[str, Event] = {}
        for event in events:
            if event.hlc > bound and event.hlc >= latest.get(event.origin, event).hlc:
                latest[event.origin] = event
        for origin, event in latest.items():
            if incidents_read.stamp_ahead_noted(self.conn, origin, now - timedelta(hours=1)):
                continue
            ahead = hlc.ahead_ms(event.hlc, now) // 60_000
            self._record_incident(
                "stamp-ahead",
                event,
                f"{origin}'s clock is {_minutes(ahead)} ahead of this station's: its events are "
                "kept but no stamp here follows them; set its clock (docs/hall-setup.md)",
            )

    def signature_check(self, worker: SignatureWorker | None = None) -> SignatureCheck:
        """A check of hashes and signatures against the keys held now, safe to run on any
        thread (it holds no connection); its signatures checked by `worker` while it works."""
        rows = self.conn.execute("SELECT station, public_key FROM p_stations").fetchall()
        return SignatureCheck({station: PublicKey(key) for station, key in rows}, worker)

    def _check_authentic(
        self, event: Event, introduced: dict[str, PublicKey] | None = None
    ) -> None:
        """Hash and signature, refused with the reason. `introduced` holds the keys of origins
        introduced earlier in the same batch (not yet in p_stations) and learns new ones."""
        if not event.hash_matches():
            raise _Refusal("bad-hash", "its hash does not match its content", event)
        key = (introduced or {}).get(event.origin) or self._public_key(event)
        if introduced is not None:
            introduced[event.origin] = key
        if not event.signed_by(key):
            raise _Refusal("bad-signature", "its signature does not verify", event)

    @staticmethod
    def _check_body(event: Event) -> None:
        """The body against its kind's schema: a signed body no projection can take (a sale of
        -5 tickets, signed by a stolen key) is refused like a bad signature."""
        problem = body_problem(event.kind, event.shared_body())
        if problem is not None:
            raise _Refusal("bad-body", f"its body does not fit {event.kind}: {problem}", event)

    def _check_follows(self, event: Event) -> None:
        last_seq, last_hash = self.head(event.origin)
        if event.seq != last_seq + 1:
            raise _Refusal("gap", f"it follows seq {last_seq} of its origin", event)
        if event.prev != last_hash:
            raise _Refusal("fork", f"prev {event.prev} but the head is {last_hash}", event)

    def _record_incident(self, kind: str, event: Event, detail: str) -> None:
        evidence = json.dumps(event.to_dict(), sort_keys=True)
        recorded = self.clock.now().isoformat()
        with self.transaction():
            self.conn.execute(
                "INSERT INTO incidents (recorded_at, kind, origin, seq, detail, evidence) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (recorded, kind, event.origin, event.seq, detail, evidence),
            )

    def incidents(self) -> list[dict[str, Any]]:
        return [dict(row) for row in self.db.query("SELECT * FROM incidents ORDER BY id")]

    def refused_events(self, kinds: Iterable[str]) -> list[tuple[str, int, str, str, str, str]]:
        """Events refused here as evidence of a forged or misused key (incidents of `kinds`),
        once each, first refusal first: (origin, seq, incident kind, event type, detail,
        recorded at)."""
        wanted = sorted(set(kinds))
        marks = ", ".join("?" for _ in wanted)
        rows = self.conn.execute(
            "SELECT origin, seq, kind, coalesce(json_extract(evidence, '$.type'), '?'), detail, "
            f"recorded_at FROM incidents WHERE id IN (SELECT min(id) FROM incidents "
            f"WHERE kind IN ({marks}) GROUP BY origin, seq) ORDER BY id",
            wanted,
        )
        return [(str(o), int(s), str(k), str(t), str(d), str(r)) for o, s, k, t, d, r in rows]

    def public_key(self, origin: str) -> PublicKey | None:
        """The key that signs `origin`'s events, from its certificate in the log."""
        cached = self._keys.get(origin)
        if cached is not None:
            return cached
        row = self.conn.execute(
            "SELECT public_key FROM p_stations WHERE station = ?", (origin,)
        ).fetchone()
        if row is None:
            return None
        key = PublicKey(row[0])
        self._keys[origin] = key
        return key

    def _public_key(self, event: Event) -> PublicKey:
        key = self.public_key(event.origin)
        if key is not None:
            return key
        if event.seq == 1 and event.kind in INTRODUCING_KINDS:
            try:
                return certified_key(event, self.hall_public_key)
            except IntegrityFailure as exc:
                raise _Refusal("bad-certificate", exc.message, event) from None
        raise _Refusal("unknown-origin", f"no certificate is held for {event.origin}", event)

    def _store(self, event: Event, *, strict: bool = True) -> None:
        try:
            self.conn.execute(
                f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    event.origin,
                    event.seq,
                    event.kind,
                    event.hlc,
                    event.prev,
                    event.body_json,
                    event.hash,
                    event.sig,
                ),
            )
            self.conn.execute(
                "INSERT INTO origin_heads VALUES (?, ?, ?) ON CONFLICT (origin) DO UPDATE SET "
                "last_seq = max(last_seq, excluded.last_seq), "
                "last_hlc = max(last_hlc, excluded.last_hlc)",
                (event.origin, event.seq, event.hlc),
            )
            self.projections.apply(self.conn, event, strict=strict)
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None

    def _store_many(self, events: list[Event]) -> None:
        """Store other stations' events, already checked, and project them in order."""
        if not events:
            return
        newest: dict[str, tuple[int, str]] = {}
        for event in events:
            seq, stamp = newest.get(event.origin, (0, ""))
            newest[event.origin] = (max(seq, event.seq), max(stamp, event.hlc))
        try:
            self.conn.executemany(
                f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (e.origin, e.seq, e.kind, e.hlc, e.prev, e.body_json, e.hash, e.sig)
                    for e in events
                ],
            )
            self.conn.executemany(
                "INSERT INTO origin_heads VALUES (?, ?, ?) ON CONFLICT (origin) DO UPDATE SET "
                "last_seq = max(last_seq, excluded.last_seq), "
                "last_hlc = max(last_hlc, excluded.last_hlc)",
                [(origin, seq, stamp) for origin, (seq, stamp) in newest.items()],
            )
            self.projections.apply_many(self.conn, events)
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None

    # --- projections -------------------------------------------------------------------------

    def rebuild(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Drop every projection table and replay the whole log into new ones. Returns events.
        `progress(done, total)` is told after each chunk of events replayed."""
        count = 0
        total = self.count() if progress is not None else 0
        with self.transaction():
            existing = [
                row[0]
                for row in self.conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'p\\_%' "
                    "ESCAPE '\\'"
                )
            ]
            for table in existing:
                self.conn.execute(f"DROP TABLE {table}")
            self.projections.create(self.conn)
            chunk: list[Event] = []
            for event in self.events():
                chunk.append(event)
                if len(chunk) == _REBUILD_CHUNK:
                    self.projections.apply_many(self.conn, chunk)
                    count += len(chunk)
                    chunk = []
                    if progress is not None:
                        progress(min(count, total), total)
            self.projections.apply_many(self.conn, chunk)
            count += len(chunk)
            if progress is not None:
                progress(count, max(count, total))
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('projections', ?)",
                (self.projections.fingerprint,),
            )
        self._keys.clear()
        return count

    def projection_rows(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every projection row, sorted: what `rebuild` must reproduce exactly."""
        return {
            table: sorted(self.conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in self.projections.tables()
        }


class _Refusal(Exception):
    def __init__(self, kind: str, detail: str, event: Event) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.event = event

    def error(self) -> IntegrityFailure:
        if self.kind == "fork":
            return ForkDetected(self.event.origin, self.event.seq)
        error = IntegrityFailure(
            f"refused event {self.event.origin}:{self.event.seq} ({self.event.kind}): {self.detail}"
        )
        error.event = f"{self.event.origin}:{self.event.seq}"
        return error


class SignatureCheck:
    """Hashes and signatures of a batch checked on every core (signature checks dominate a
    pull's cost and PyNaCl releases the GIL). False means "not vouched for": a bad event, or an
    origin whose key was not known when the check was made; `apply_batch` checks those itself."""

    def __init__(self, keys: dict[str, PublicKey], worker: SignatureWorker | None = None) -> None:
        self._keys = keys
        self._worker = worker

    def _chunk(self, events: list[Event]) -> list[bool]:
        out = []
        for event in events:
            key = self._keys.get(event.origin)
            out.append(key is not None and event.hash_matches() and event.signed_by(key))
        return out

    def _in_worker(self, worker: SignatureWorker, batch: Sequence[Event]) -> list[bool]:
        """The hashes here, the signatures in the worker process. Raises WorkerFailure."""
        vouched = []
        items = []
        for event in batch:
            key = self._keys.get(event.origin)
            try:
                digest, signature = bytes.fromhex(event.hash), bytes.fromhex(event.sig)
            except ValueError:
                key = None
            if key is None or len(signature) != 64 or not event.hash_matches():
                vouched.append(False)
                continue
            vouched.append(True)
            items.append((key.raw, digest, signature))
        verdicts = iter(worker.check(items))
        return [ok and next(verdicts) for ok in vouched]

    def __call__(self, batch: Sequence[Event]) -> list[bool]:
        worker = self._worker
        if worker is not None and worker.broken is None:
            from pos.ledger.signature_worker import WorkerFailure  # a long pull's only

            try:
                return self._in_worker(worker, batch)
            except WorkerFailure:
                pass  # checked here instead, as with no worker
        chunks = [list(batch[i : i + _CHECK_CHUNK]) for i in range(0, len(batch), _CHECK_CHUNK)]
        if len(chunks) < 2:
            return [ok for chunk in chunks for ok in self._chunk(chunk)]
        from concurrent.futures import ThreadPoolExecutor  # only a batch to sync needs it

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            return [ok for result in pool.map(self._chunk, chunks) for ok in result]


def certified_key(event: Event, hall_public_key: str) -> PublicKey:
    """The key named by an introducing event's certificate, if the hall signed it for its origin."""
    try:
        cert = Certificate.from_dict(event.body.get("certificate"))
    except (ValueError, AttributeError) as exc:
        raise IntegrityFailure(
            f"{event.origin}:{event.seq} carries no certificate: {exc}"
        ) from None
    if cert.station != event.origin:
        raise IntegrityFailure(
            f"{event.origin}:{event.seq} carries the certificate of {cert.station}"
        )
    if not cert.is_signed_by(hall_public_key):
        raise IntegrityFailure(
            f"{event.origin}:{event.seq}: its certificate is not signed by this hall"
        )
    return PublicKey(cert.key)
