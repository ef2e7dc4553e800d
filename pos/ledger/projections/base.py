"""Projections: tables derived only from events, rebuilt when their schema changes."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pos.ledger.events import Event

EVERY_EVENT = "*"  # a handler key that receives every event, whatever its kind

Handler = Callable[[sqlite3.Connection, Event, dict[str, Any]], None]

T = TypeVar("T")

# Reads that handlers repeat for every event of a batch (the hall's time zone, a session's
# state), kept while `apply_many` projects one batch. A handler that writes what such a read
# returns forgets it.
_MEMO: ContextVar[dict[str, Any] | None] = ContextVar("projection_memo", default=None)


TIME_ZONE = "time_zone"  # memo keys


def session_state_key(session: str) -> str:
    return f"session-state:{session}"


def remembered(key: str, read: Callable[[], T]) -> T:
    """`read()`, done once per batch being projected (every time outside a batch)."""
    memo = _MEMO.get()
    if memo is None:
        return read()
    if key not in memo:
        memo[key] = read()
    value: T = memo[key]
    return value


def forget(key: str) -> None:
    memo = _MEMO.get()
    if memo is not None:
        memo.pop(key, None)


# What a handler raises on a body it cannot project (a missing or mistyped field).
_HANDLER_FAILURES = (KeyError, TypeError, ValueError, AttributeError)


@dataclass(frozen=True)
class Projection:
    """A set of `p_` tables and the handlers that keep them up to date, event by event."""

    name: str
    version: int
    schema: str
    handlers: dict[str, Handler] = field(default_factory=dict)

    def tables(self) -> list[str]:
        names = []
        for statement in self.schema.split(";"):
            words = statement.split()
            if len(words) >= 3 and [w.upper() for w in words[:2]] == ["CREATE", "TABLE"]:
                names.append(words[2].strip("("))
        return names


#: Where `ProjectionSet.apply` records a handler that failed on an event from elsewhere: the
#: machinery's own table, so it is created here, beside the one place that writes it.
PROJECTION_ERRORS = Projection(
    name="projection_errors",
    version=1,
    schema="""
CREATE TABLE p_projection_errors (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, error TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
)
""",
)


@dataclass(frozen=True)
class Listed:
    """A projection named by a function importing it (a static import, which the layer
    contracts check) and the kinds of event its handlers take ("*": every kind), imported only
    once one of those arrives, or once every projection is needed (a rebuild, the list of
    tables). A command that opens a station imports the projections its own events and reads
    need, not all of them (issue #31)."""

    importer: Callable[[], Projection]
    kinds: frozenset[str]

    def load(self) -> Projection:
        projection = self.importer()
        if set(projection.handlers) != self.kinds:
            raise TypeError(
                f"projection {projection.name} takes kinds {sorted(projection.handlers)}, but "
                f"is listed as taking {sorted(self.kinds)}: list what it takes"
            )
        return projection


class ProjectionSet:
    """Projections in the order they are applied. `Listed` ones are imported when first needed;
    `fingerprint`, given, stands for theirs (tests/test_projection_catalog.py keeps it equal)."""

    def __init__(
        self, projections: Iterable[Projection | Listed], *, fingerprint: str | None = None
    ) -> None:
        self._entries: list[Projection | Listed] = list(projections)
        self._fingerprint = fingerprint
        self._by_kind: dict[str, tuple[list[Handler], list[Handler]]] = {}
        for entry in self._entries:
            if isinstance(entry, Projection):
                _check_tables(entry)

    def _loaded(self, index: int) -> Projection:
        entry = self._entries[index]
        if isinstance(entry, Listed):
            entry = entry.load()
            _check_tables(entry)
            self._entries[index] = entry
        return entry

    @property
    def projections(self) -> list[Projection]:
        """Every projection, imported."""
        return [self._loaded(index) for index in range(len(self._entries))]

    def _handlers(self, kind: str) -> tuple[list[Handler], list[Handler]]:
        """(the handlers of `kind`, those of every event), in the projections' order."""
        found = self._by_kind.get(kind)
        if found is None:
            handlers, every = [], []
            for index, entry in enumerate(self._entries):
                kinds = entry.kinds if isinstance(entry, Listed) else entry.handlers.keys()
                if kind in kinds:
                    handlers.append(self._loaded(index).handlers[kind])
                if EVERY_EVENT in kinds:
                    every.append(self._loaded(index).handlers[EVERY_EVENT])
            found = self._by_kind[kind] = (handlers, every)
        return found

    @property
    def fingerprint(self) -> str:
        """Changes whenever any projection's schema or version does: the trigger for a rebuild."""
        if self._fingerprint is not None:
            return self._fingerprint
        return fingerprint_of(self.projections)

    def tables(self) -> list[str]:
        return [table for p in self.projections for table in p.tables()]

    def create(self, conn: sqlite3.Connection) -> None:
        for projection in self.projections:
            for statement in projection.schema.split(";"):
                if statement.strip():
                    conn.execute(statement)

    def apply(self, conn: sqlite3.Connection, event: Event, *, strict: bool = True) -> None:
        """Project one event. A handler that fails on a local command (`strict`) is a bug and
        raises; on a signed event from elsewhere (or in a rebuild) the failure is recorded in
        p_projection_errors and its partial work undone, so one bad body cannot stop a station
        from taking in the rest of its origin's chain."""
        handlers, every = self._handlers(event.kind)
        if not handlers and not every:
            return
        body = event.shared_body()  # handlers read it and never change it
        if strict:
            for handler in handlers:
                handler(conn, event, body)
        elif handlers:
            conn.execute("SAVEPOINT project_event")
            try:
                for handler in handlers:
                    handler(conn, event, body)
            except _HANDLER_FAILURES as exc:
                conn.execute("ROLLBACK TO SAVEPOINT project_event")
                conn.execute(
                    "INSERT INTO p_projection_errors VALUES (?, ?, ?, ?)",
                    (event.origin, event.seq, event.kind, f"{type(exc).__name__}: {exc}"),
                )
            conn.execute("RELEASE SAVEPOINT project_event")
        for handler in every:
            handler(conn, event, body)

    def apply_many(self, conn: sqlite3.Connection, events: list[Event]) -> None:
        """Project other stations' events (or a rebuild's) in order, as `apply(strict=False)`
        would one by one, with one savepoint for the whole list: a handler failing is rare, so
        only then is the list undone and projected again event by event."""
        if not events:
            return
        conn.execute("SAVEPOINT project_many")
        token = _MEMO.set({})
        try:
            for event in events:
                self.apply(conn, event, strict=True)
        except _HANDLER_FAILURES:
            conn.execute("ROLLBACK TO SAVEPOINT project_many")
            _MEMO.set({})  # what was read may have been rolled back
            for event in events:
                self.apply(conn, event, strict=False)
        finally:
            _MEMO.reset(token)
        conn.execute("RELEASE SAVEPOINT project_many")


def fingerprint_of(projections: Iterable[Projection]) -> str:
    text = "\n".join(f"{p.name}:{p.version}:{p.schema}" for p in projections)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_tables(projection: Projection) -> None:
    for table in projection.tables():
        if not table.startswith("p_"):
            raise ValueError(f"projection table {table!r} must be named p_...")
