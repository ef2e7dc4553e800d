"""Pulling a peer's events: its `_changes` from our checkpoint, in batches, each batch applied
in one transaction through the ledger's apply path; the checkpoint moves only after the batch
commits, so an interrupted pull resumes and applying twice changes nothing.

`PeerLog` is the LAN peer as a `RemoteLog`; the loop is the follower's (pos/ledger/follower.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pos.clock import Clock, SystemClock
from pos.ledger import Ledger, replication
from pos.ledger.follower import Held, Page, Source, follow
from sync import protocol
from sync.client import Peer

BATCH = 1000


@dataclass
class PullResult:
    peer: str
    station: str
    received: int = 0
    applied: int = 0
    refused: int = 0
    since: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    heads: dict[str, int] | None = None  # the peer's last seq per origin, as it said
    refusals: list[str] = field(default_factory=list)  # why, for the first few refused
    refused_events: list[str] = field(default_factory=list)  # ORIGIN:SEQ of the first few


class PeerLog:
    """A LAN peer's log: its `_changes` feed, positions in its own insertion order."""

    def __init__(self, peer: Peer) -> None:
        self.peer = peer

    def describe(self) -> Source:
        info = protocol.read_root(self.peer.request("GET", "/"), self.peer.url)
        return Source(url=self.peer.url, station=info.station, uuid=info.uuid, heads=info.heads)

    def start(self) -> int:
        return 0

    def position(self, value: Any) -> int:
        return int(value)

    def page(self, after: int, limit: int, held: Mapping[str, int]) -> Page[int]:
        """Every event after `after`, held here or not: the apply path skips what is held (and
        refuses what contradicts it)."""
        answer = self.peer.request("GET", protocol.changes_path(after, limit))
        events, last, rows = protocol.read_changes(answer, after, self.peer.url)
        return Page(events=events, bad_documents=[], after=last, rows=rows)

    def resume(self, page: Page[int], held: Held) -> int:
        return page.after


# The checkpoint's id and its write, as bench/sync.py leaves a station at a peer's head.
_checkpoint_id = replication.pull_checkpoint_id


def _write_checkpoint(ledger: Ledger, key: str, since: int, clock: Clock | None = None) -> None:
    now = (clock or SystemClock()).now()
    replication.put_local_doc(ledger.conn, key, replication.pull_checkpoint(since, now))


def pull(
    ledger: Ledger,
    peer: Peer,
    *,
    lock: threading.Lock | None = None,
    batch: int = BATCH,
    clock: Clock | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PullResult:
    followed = follow(ledger, PeerLog(peer), batch=batch, lock=lock, clock=clock, progress=progress)
    return PullResult(
        peer=peer.url,
        station=followed.source.station,
        received=followed.received,
        applied=followed.applied,
        refused=followed.refused,
        since=followed.position,
        bytes_sent=peer.bytes_sent,
        bytes_received=peer.bytes_received,
        heads=followed.source.heads,
        refusals=followed.refusals,
        refused_events=followed.refused_events,
    )


def record_contact(
    ledger: Ledger,
    url: str,
    *,
    station: str | None,
    error: str | None,
    pulled: int,
    source: str,
    heads: dict[str, int] | None = None,
    clock: Clock | None = None,
) -> None:
    """A contact with the peer at `url`, as `booth sync status` shows it."""
    replication.record_contact(
        ledger.conn,
        url,
        now=protocol.stamp((clock or SystemClock()).now()),
        station=station,
        error=error,
        pulled=pulled,
        source=source,
        heads=heads,
    )


def summary(result: PullResult) -> dict[str, Any]:
    return {
        "peer": result.peer,
        "station": result.station,
        "received": result.received,
        "applied": result.applied,
        "refused": result.refused,
        "refused_events": result.refused_events,
        "refusals": result.refusals,
        "since": result.since,
        "bytes_sent": result.bytes_sent,
        "bytes_received": result.bytes_received,
    }
