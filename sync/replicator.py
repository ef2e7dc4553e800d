"""Pulling a peer's events: its `_changes` from our checkpoint, in batches, each batch applied
in one transaction through the ledger's apply path; the checkpoint moves only after the batch
commits, so an interrupted pull resumes and applying twice changes nothing.

`PeerLog` is the LAN peer as a `RemoteLog`; the loop is the follower's (pos/ledger/follower.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from pos.clock import Clock, SystemClock
from pos.domain import clock_skew, peer_release
from pos.errors import IntegrityFailure
from pos.ledger import Event, Ledger, heads, incidents, replication, restored
from pos.ledger.follower import Held, Page, Source, follow
from sync import docs, protocol
from sync.client import Peer
from sync.errors import PeerRefused

BATCH = 1000
logger = logging.getLogger("booth.sync")


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
    # why the pull started over from the peer's first event (its log went back), if it did
    restarted: str | None = None
    # this station was restored and catching up: whether this pull ended it (None: it was not)
    caught_up: bool | None = None
    release: str | None = None  # the peer's Booth version, as it said
    clock_offset_ms: int | None = None  # how far its clock was ahead of ours (None: not said)


class PeerLog:
    """A LAN peer's log: its `_changes` feed, positions in its own insertion order."""

    def __init__(self, peer: Peer, wall: Clock | None = None) -> None:
        self.peer = peer
        self.wall = wall or SystemClock()  # this station's clock, compared with the peer's
        self.first: Event | None = None  # the peer's own first event, as it served it
        self.first_hash: str | None = None  # its hash, as the peer said or served it
        self.station = "?"
        self.release: str | None = None
        self.clock_offset_ms: int | None = None
        self._source: Source | None = None

    def describe(self) -> Source:
        if self._source is not None:
            return self._source
        sent = self.wall.now()
        info = protocol.read_root(self.peer.request("GET", "/"), self.peer.url)
        received = self.wall.now()
        self.release = info.release
        if info.clock is not None:
            skew = clock_skew.offset(info.clock, sent, received)
            self.clock_offset_ms = round(skew / timedelta(milliseconds=1))
        self.station = info.station
        self.first_hash = info.first
        if self.first_hash is None:  # a peer that does not say it (before 0.2.0): fetched
            self.first = protocol.first_event(self._first_event(info.station), info.station)
            self.first_hash = self.first.hash if self.first is not None else None
        uuid = protocol.instance_uuid(info.uuid, self.first_hash)
        self._source = Source(url=self.peer.url, station=info.station, uuid=uuid, heads=info.heads)
        return self._source

    def twin_refusal(self, ledger: Ledger) -> str | None:
        """Why this peer is refused as a second instance of a station this ledger knows (its
        first event differs from the one held), recorded as a fork incident at the first
        contact; None when it is the instance held, or one not known here. The event itself
        is fetched only when the hash the peer said differs from the one held."""
        if self.first is None and self.first_hash is not None:
            held = ledger.get(self.station, 1)
            if held is None or held.hash == self.first_hash:
                return None
            self.first = protocol.first_event(self._first_event(self.station), self.station)
        event = self.first
        if event is None:
            return None
        held = ledger.get(event.origin, event.seq)
        if held is None or held.hash == event.hash:
            return None
        message = (
            f"{self.peer.url} is a second instance of station {event.origin} (its first event "
            f"differs from the one held: a copy of its join bundle or card): nothing pulled"
        )
        if (event.origin, event.seq) not in {(o, s) for o, s, _, _ in incidents.forks(ledger.conn)}:
            try:
                ledger.apply(event)  # refused as a fork, and recorded as an incident
            except IntegrityFailure as refusal:
                return f"{message}; {refusal.message}"
        return message

    def _first_event(self, station: str) -> Any:
        """The peer's own first event (its HallCreated or StationJoined), which tells this
        instance of the station from a twin joined from a copy of its bundle; None when the
        peer does not serve it."""
        try:
            return self.peer.request("GET", protocol.first_event_path(station))
        except PeerRefused:
            return None

    def start(self) -> int:
        return 0

    def position(self, value: Any) -> int:
        return int(value)

    def page(self, after: int, limit: int, held: Mapping[str, int]) -> Page[int]:
        """Every event after `after`, held here or not: the apply path skips what is held (and
        refuses what contradicts it)."""
        answer = self.peer.request("GET", protocol.changes_path(after, limit))
        events, last, rows = protocol.read_changes(answer, after, self.peer.url)
        mark = events[-1].hash if events and len(events) == rows else None
        return Page(events=events, bad_documents=[], after=last, rows=rows, mark=mark)

    def resume(self, page: Page[int], held: Held) -> int:
        return page.after

    def went_back(self, since: int, mark: str | None) -> bool:
        """Whether the peer's log no longer holds at position `since` what was pulled there
        (`mark`: that event's hash; None: a checkpoint kept before marks, only the position is
        checked). A station restored from an older backup numbers its log again from the
        backup's end: a checkpoint past it would skip what it records next."""
        answer = self.peer.request("GET", protocol.changes_path(since - 1, 1, include_docs=False))
        revs, last, rows = protocol.read_change_revs(answer, since - 1, self.peer.url)
        if rows == 0 or last != since:
            return True
        return mark is not None and (len(revs) != 1 or revs[0] != docs.rev_of(mark))


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
    wall: Clock | None = None,
) -> PullResult:
    """`clock` stamps the checkpoints; `wall`, the station's own clock (st.clock), is compared
    with the peer's."""
    log = PeerLog(peer, wall)
    source = log.describe()
    with lock or nullcontext():
        twin = log.twin_refusal(ledger)
    if twin is not None:
        return PullResult(
            peer=peer.url,
            station=source.station,
            refused=1,
            refusals=[twin],
            refused_events=[f"{source.station}:1"] if source.station else [],
            bytes_sent=peer.bytes_sent,
            bytes_received=peer.bytes_received,
            heads=source.heads,
            release=log.release,
            clock_offset_ms=log.clock_offset_ms,
        )
    restarted = _start_over_if_went_back(ledger, log, source, lock=lock, clock=clock)
    followed = follow(ledger, log, batch=batch, lock=lock, clock=clock, progress=progress)
    caught_up = _catching_up(ledger, source, lock=lock)
    return PullResult(
        peer=peer.url,
        station=followed.source.station,
        received=followed.received,
        applied=followed.applied,
        refused=followed.refused,
        refusals=followed.refusals,
        since=followed.position,
        bytes_sent=peer.bytes_sent,
        bytes_received=peer.bytes_received,
        heads=followed.source.heads,
        refused_events=followed.refused_events,
        restarted=restarted,
        caught_up=caught_up,
        release=log.release,
        clock_offset_ms=log.clock_offset_ms,
    )


def _start_over_if_went_back(
    ledger: Ledger,
    log: PeerLog,
    source: Source,
    *,
    lock: threading.Lock | None,
    clock: Clock | None,
) -> str | None:
    """Check the peer's log is still the one the checkpoint was kept in; when it went back (the
    peer restored from an older backup), forget the checkpoint and say why: the pull then
    starts from the peer's first event, and applying what is held changes nothing."""
    if source.uuid is None:
        return None
    key = replication.pull_checkpoint_id(source.uuid, ledger.station)
    with lock or nullcontext():
        checkpoint = replication.local_doc(ledger.conn, key) or {}
        held_of_peer = heads.last_seq(ledger.conn, source.station)
    since = int(checkpoint.get("since", 0) or 0)
    mark = checkpoint.get("mark")
    if since <= 0 or not log.went_back(since, mark if isinstance(mark, str) else None):
        return None
    theirs = (source.heads or {}).get(source.station)
    why = ""
    if theirs is not None and theirs < held_of_peer:
        why = (
            f"; it holds its own events up to {source.station}:{theirs}, this station up to "
            f"{source.station}:{held_of_peer}: it was restored from an older backup"
        )
    reason = (
        f"the log of {source.station} at {source.url} went back: it no longer holds at "
        f"position {since} what was pulled from there{why}; pulling it again from its start"
    )
    now = (clock or SystemClock()).now()
    with lock or nullcontext(), ledger.transaction():
        replication.put_local_doc(ledger.conn, key, replication.pull_checkpoint(0, now))
    logger.warning("%s", reason)
    return reason


def _catching_up(ledger: Ledger, source: Source, *, lock: threading.Lock | None) -> bool | None:
    """After a pull, on a station restored from a backup: note what the peer said it holds of
    this station; True when that ended the catching up, False while it goes on, None when the
    station is not catching up."""
    own = ledger.station
    with lock or nullcontext():
        if restored.state(ledger.conn) is None:
            return None
        if source.heads is None or source.station == "?":
            return False  # a peer that does not say what it holds confirms nothing
        with ledger.transaction():
            done = restored.confirm(
                ledger.conn,
                source.station,
                source.heads.get(own, 0),
                heads.last_seq(ledger.conn, own),
            )
    if done:
        logger.info("caught up after the restore: %s records again", own)
    return done


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
    release: str | None = None,
    clock_offset_ms: int | None = None,
) -> None:
    """A contact with the peer at `url`, as `booth sync status` shows it. A pull answered
    without a release is kept as UNSAID: a peer before 0.2.0, apart from one not heard yet."""
    if error is None:
        release = peer_release.as_told(release)
    replication.record_contact(
        ledger.conn,
        url,
        now=protocol.stamp((clock or SystemClock()).now()),
        station=station,
        error=error,
        pulled=pulled,
        source=source,
        heads=heads,
        version=release,
        clock_offset_ms=clock_offset_ms,
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
        "restarted": result.restarted,
        "caught_up": result.caught_up,
        "release": result.release,
        "clock_offset_ms": result.clock_offset_ms,
        "bytes_sent": result.bytes_sent,
        "bytes_received": result.bytes_received,
    }
