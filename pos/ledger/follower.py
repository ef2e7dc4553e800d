"""Following a remote log: the one loop that pulls, page after page, what another log holds and
this station lacks, through the ledger's apply path.

A remote log (`RemoteLog`) is anything that serves events in an order it can resume from a
position: a LAN peer's `_changes` feed (positions: its insertion order; sync.replicator), the
head office's `_all_docs` (positions: document ids; sync.upstream_pull), another ledger open
here (positions: its insertion order; pos.services.replicate). The loop and its port hold no
HTTP and no SQL of their own, so they live beside the ledger and every layer above uses them.

The follower starts from its checkpoint (where the log keeps one) or the log's beginning, and
for each page: applies its events in one transaction, the checkpoint with them, then moves on
from where the log says the next page starts.

Three stages overlap, each on its own thread: while one page is written, the next one's
signatures are checked and the one after it is fetched and decoded. Only the fetching thread
talks to the log. A page that changes where the log resumes (the head office, after a refused
event) drops the pages fetched ahead and fetches the right one.

A long pull (at least WORKER_FROM events to take in, by the log's heads) checks its signatures
in a worker process (pos.ledger.signature_worker): in threads, the checks and the writing share
one GIL and each waits on the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, nullcontext, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pos.clock import Clock, SystemClock
from pos.ledger import Event, Ledger, heads, replication
from pos.ledger.store import SignatureCheck

if TYPE_CHECKING:
    from pos.ledger.signature_worker import SignatureWorker

P = TypeVar("P")
MAX_MESSAGES = 20  # refusals named in a result; the incidents table holds them all
WORKER_FROM = 5_000  # events to take in from which a pull checks signatures in a worker process

Held = Callable[[str], int]  # an origin's highest seq held here


@dataclass(frozen=True)
class Source:
    """What a remote log says of itself."""

    url: str
    station: str  # its station ("?": it does not say)
    uuid: str | None  # a stable identity to keep a checkpoint under; None: the log keeps none
    heads: dict[str, int] | None  # its last seq per origin, as it said; None: it does not say


@dataclass(frozen=True)
class Page(Generic[P]):
    """One answer of a remote log, sorted out."""

    events: list[Event]  # to apply, each origin's in seq order
    bad_documents: list[str]  # what was not an event, where the log tolerates such documents
    after: P  # where the next page starts, once every event of this one is applied
    rows: int  # how many rows the log answered with: fewer than asked for, and it is done
    mark: str | None = None  # what the log holds at `after` (kept with the checkpoint), if known


class RemoteLog(Protocol[P]):
    """The source port of a follower: a log read page by page from a position."""

    def describe(self) -> Source:
        """Who the log is, and its heads if it says them."""
        ...

    def start(self) -> P:
        """Where a follower with no checkpoint starts."""
        ...

    def position(self, value: Any) -> P:
        """A position kept in a checkpoint document (JSON), read back."""
        ...

    def page(self, after: P, limit: int, held: Mapping[str, int]) -> Page[P]:
        """At most `limit` rows after `after`. `held` is what this station held (origin -> its
        highest seq) when the page was asked for: a log may leave those events out."""
        ...

    def resume(self, page: Page[P], held: Held) -> P:
        """Where the next page starts once `page` was applied (`held` reads what is held now):
        `page.after`, unless the log must skip what can no longer follow."""
        ...


@dataclass
class Followed(Generic[P]):
    """What following a log did."""

    source: Source
    position: P
    received: int = 0  # events the log served
    bad: int = 0  # documents it served that are not events
    applied: int = 0
    refused: int = 0  # events refused and documents that are not events
    refusals: list[str] = field(default_factory=list)  # the first MAX_MESSAGES of them
    refused_events: list[str] = field(default_factory=list)  # their ORIGIN:SEQ, as many

    def refuse(self, messages: list[str], events: list[str] | None = None) -> None:
        self.refused += len(messages)
        room = MAX_MESSAGES - len(self.refusals)
        self.refusals.extend(messages[: max(room, 0)])
        room = MAX_MESSAGES - len(self.refused_events)
        self.refused_events.extend((events or [])[: max(room, 0)])


#: a page, and its events' signature check (queued, running or done)
Fetched = tuple[Page[P], Future[list[bool]]]


def follow(
    ledger: Ledger,
    log: RemoteLog[P],
    *,
    batch: int,
    lock: threading.Lock | None = None,
    clock: Clock | None = None,
    progress: Callable[[int, int], None] | None = None,
    worker: bool | None = None,
) -> Followed[P]:
    """Apply every event of `log` this station lacks, one transaction per page of `batch` rows.

    `lock` guards the ledger's connection when other threads share it; the log is never waited
    on while it is held. Refused events are recorded as incidents, counted and named in the
    result; a log that answers wrongly raises (nothing of that answer is stored).

    `progress(done, total)` is told after each page: the events taken in or refused so far, of
    those the log's heads say this station lacked (total 0: the log does not say).

    `worker`: check signatures in a worker process (True), in this one (False), or as the pull's
    length decides (None)."""
    guard = lock or nullcontext()
    clock = clock or SystemClock()
    source = log.describe()
    key = replication.pull_checkpoint_id(source.uuid, ledger.station) if source.uuid else None
    position = log.start()
    if key is not None:
        with guard:
            checkpoint = replication.local_doc(ledger.conn, key)
        if checkpoint is not None:
            position = log.position(checkpoint.get("since", 0))
    result = Followed(source=source, position=position)
    total = 0
    if source.heads is not None:
        with guard:
            had = heads.high_water_marks(ledger.conn)
        total = sum(max(0, last - had.get(origin, 0)) for origin, last in source.heads.items())
    with ExitStack() as stack:
        in_worker = total >= WORKER_FROM if worker is None else worker
        signatures = _worker(stack) if in_worker else None
        fetcher = stack.enter_context(ThreadPoolExecutor(1, thread_name_prefix="booth-fetch"))
        checker = stack.enter_context(ThreadPoolExecutor(1, thread_name_prefix="booth-check"))

        def fetch(after: P, check: SignatureCheck, held: dict[str, int]) -> Fetched[P]:
            """One page after `after`, decoded, its check queued behind the one before."""
            page = log.page(after, batch, held)
            return page, checker.submit(check, page.events)

        def ahead(after: P) -> Future[Fetched[P]]:
            with guard:
                check = ledger.signature_check(signatures)
                held = heads.high_water_marks(ledger.conn)
            return fetcher.submit(fetch, after, check, held)

        def held_now(origin: str) -> int:
            return heads.last_seq(ledger.conn, origin)

        pending: Future[Fetched[P]] | None = ahead(position)
        while pending is not None:
            page, checked = pending.result()
            if not page.rows:
                _drop(checked)
                break
            full = page.rows >= batch
            pending = ahead(page.after) if full else None
            authentic = checked.result()
            result.received += len(page.events)
            result.bad += len(page.bad_documents)
            result.refuse(page.bad_documents)
            with guard, ledger.transaction():  # the page and its checkpoint: one commit
                applied, refusals = (
                    ledger.apply_batch(page.events, authentic=authentic) if page.events else (0, [])
                )
                resume = log.resume(page, held_now)
                if key is not None:
                    mark = page.mark if resume == page.after else None
                    replication.put_local_doc(
                        ledger.conn,
                        key,
                        replication.pull_checkpoint(resume, clock.now(), mark=mark),
                    )
            result.applied += applied
            result.refuse(
                [refusal.message for refusal in refusals],
                [refusal.event for refusal in refusals if refusal.event is not None],
            )
            if progress is not None:
                done = result.applied + result.refused
                progress(min(done, total) if total else done, total)
            if resume != page.after and pending is not None:
                _drop_fetched(pending)  # fetched from where the log no longer resumes
                pending = ahead(resume)
            position = resume
    result.position = position
    return result


def _worker(stack: ExitStack) -> SignatureWorker | None:
    """A signature worker closed with `stack`, or None when it cannot start (the checks then run
    in this process, as for a short pull)."""
    from pos.ledger.signature_worker import SignatureWorker, WorkerFailure

    try:
        worker = SignatureWorker.start()
    except WorkerFailure:
        return None
    stack.callback(worker.close)
    return worker


def _drop_fetched(pending: Future[Fetched[Any]]) -> None:
    if pending.cancel():
        return
    with suppress(Exception):
        _drop(pending.result()[1])


def _drop(pending: Future[Any]) -> None:
    if not pending.cancel():
        with suppress(Exception):
            pending.result()
