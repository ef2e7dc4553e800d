"""Pulling what another ledger holds and this one lacks, through the one follower loop.

The same pull the LAN sync runs over HTTP (pos.ledger.follower), here between two open ledgers
(the demo, tests, and a ledger copied from a dead station's disk): `LedgerLog` is another ledger
as a remote log. Every event goes through the apply path.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pos.errors import IntegrityFailure, StorageFailure
from pos.ledger import Ledger, heads, replication
from pos.ledger.follower import Held, Page, Source, follow


def high_water_marks(ledger: Ledger) -> dict[str, int]:
    return heads.high_water_marks(ledger.conn)


class LedgerLog:
    """Another ledger open in this process as a remote log: its events in its insertion order
    (positions: the order's numbers, as a LAN peer's `_changes` counts them). It keeps no
    checkpoint (it has no identity to keep one under): each pull reads from its beginning and
    leaves out what the follower holds."""

    def __init__(self, source: Ledger, *, url: str | None = None) -> None:
        self.source = source
        self.url = url or f"ledger:{source.station}"

    def describe(self) -> Source:
        with self._reading():
            marks = heads.high_water_marks(self.source.conn)
        return Source(url=self.url, station=self.source.station, uuid=None, heads=marks)

    def start(self) -> int:
        return 0

    def position(self, value: Any) -> int:
        return int(value)

    def page(self, after: int, limit: int, held: Mapping[str, int]) -> Page[int]:
        with self._reading():
            rows = replication.changes(self.source.conn, after, limit)
        events = [event for _, event in rows if event.seq > held.get(event.origin, 0)]
        last = rows[-1][0] if rows else after
        return Page(events=events, bad_documents=[], after=last, rows=len(rows))

    def resume(self, page: Page[int], held: Held) -> int:
        return page.after

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """A source that cannot be read (closed, its disk gone) is a storage failure (exit 3),
        as an unreachable peer is a network one."""
        try:
            yield
        except sqlite3.Error as exc:
            station = self.source.station
            raise StorageFailure(f"cannot read the ledger of {station}: {exc}") from None


def pull(
    source: Ledger,
    target: Ledger,
    *,
    batch: int = 1000,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Apply to `target` every event of `source` it lacks; returns how many were new. An event
    the apply path refuses is recorded as an incident at `target` and raised (exit 4), after
    every event it did not stop."""
    followed = follow(target, LedgerLog(source), batch=batch, progress=progress)
    if followed.refusals:
        raise IntegrityFailure(followed.refusals[0])
    return followed.applied
