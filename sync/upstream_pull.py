"""Restoring from the head office: take in every event the head-office database holds that
this station lacks, through the ledger's own apply path (hash, signature, certificate and
per-origin chain checked, as for any peer's events).

The database is read with `_all_docs` in id order. An event's id is "{origin}:{seq:012d}" and
`_all_docs` sorts ids raw (by code point), so the rows come origin after origin, each origin's
in seq order, starting with its certificate-carrying first event: the order the apply path
needs. Each read starts where this station's knowledge ends: a read that ends inside what this
station already holds of an origin jumps to the next seq it lacks, and one that ends inside an
origin whose event was refused jumps to the next origin (its later events could not follow).
Nothing is ever written to the head office: every request is a GET.

A document that is not an event, and an event the apply path refuses, is a refusal: counted,
reported, nothing stored for it (the apply path records a refused event as an incident); the
rest of the pull goes on.

`HeadOfficeLog` is the head office as a `RemoteLog`; the loop is the follower's
(pos/ledger/follower.py), the one the LAN replicator runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pos.ledger import Event, Ledger
from pos.ledger.follower import Held, Page, Source, follow
from sync import docs
from sync.errors import BadDocument, UpstreamRefused
from sync.upstream import BATCH, Upstream, UpstreamSettings

SKIPPED_PREFIXES = ("_design/", "_local/")
# ';' follows ':' in code point order: "{origin};" sorts after every "{origin}:{seq}" id.
PAST_ORIGIN = ";"


@dataclass
class UpstreamPullResult:
    url: str
    station: str
    examined: int = 0  # event documents read that this station did not already hold
    applied: int = 0
    refused: int = 0
    requests: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    refusals: list[str] = field(default_factory=list)
    refused_events: list[str] = field(default_factory=list)  # ORIGIN:SEQ of refused events

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "station": self.station,
            "examined": self.examined,
            "applied": self.applied,
            "refused": self.refused,
            "requests": self.requests,
            "bytes_sent": self.bytes_sent,
            "bytes_received": self.bytes_received,
            "refusals": self.refusals,
            "refused_events": self.refused_events,
        }


def _just_after(doc_key: str) -> str:
    """The smallest id that sorts after `doc_key`."""
    return doc_key + "\u0000"


def _first_lacking(origin: str, held: int) -> str:
    """Where the events of `origin` that this station lacks begin."""
    if held + 1 >= docs.MAX_SEQ:  # no id can spell it: nothing of this origin can follow
        return origin + PAST_ORIGIN
    return docs.doc_id(origin, held + 1)


def _row_id(row: dict[str, Any], url: str) -> str:
    doc_key = row.get("id")
    if not isinstance(doc_key, str):
        raise UpstreamRefused(f"the head office at {url} sent an _all_docs row without an id")
    return doc_key


@dataclass(frozen=True)
class AllDocsPage(Page[str]):
    last_origin: str | None = None  # the origin of the answer's last event row


def sort_out(
    rows: list[dict[str, Any]], start: str, held: Mapping[str, int], url: str
) -> AllDocsPage:
    """One `_all_docs` answer read from `start`: the events to apply (those not held), the
    documents that are not events, and the id the next read starts from (past what is held
    of the origin the answer ended in)."""
    events: list[Event] = []
    bad_documents: list[str] = []
    resume = start
    last_origin: str | None = None
    for row in rows:
        doc_key = _row_id(row, url)
        resume = _just_after(doc_key)
        doc = row.get("doc")
        if doc_key.startswith(SKIPPED_PREFIXES) or not isinstance(doc, dict):
            continue
        try:
            event = docs.from_doc(doc)
        except BadDocument as exc:
            reason = exc.message.removeprefix(f"{exc.field}: ")
            bad_documents.append(f"document {doc_key[:80]!r} is not an event: {reason}")
            continue
        last_origin = event.origin
        known = held.get(event.origin, 0)
        if event.seq <= known:
            # held here already: the next read skips the rest of what is held of this origin
            resume = max(resume, _first_lacking(event.origin, known))
            continue
        events.append(event)
    return AllDocsPage(
        events=events,
        bad_documents=bad_documents,
        after=resume,
        rows=len(rows),
        last_origin=last_origin,
    )


def resume_after_apply(page: AllDocsPage, held: Held) -> str:
    """Where the next read starts, once this answer's events are applied: past the origin
    the answer ended in if one of its events was refused, else just after the last row."""
    origin = page.last_origin
    if origin is None or not page.events or page.events[-1].origin != origin:
        return page.after
    if held(origin) < page.events[-1].seq:
        return max(page.after, origin + PAST_ORIGIN)
    return page.after


class HeadOfficeLog:
    """The head office's database as a log: `_all_docs` in id order, positions the id a read
    starts from. It keeps no checkpoint here: each pull starts where this station's knowledge
    ends, jumping past what it holds. Reads only."""

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream

    def describe(self) -> Source:
        return Source(url=self.upstream.url, station="head office", uuid=None, heads=None)

    def start(self) -> str:
        return ""

    def position(self, value: Any) -> str:
        return str(value)

    def page(self, after: str, limit: int, held: Mapping[str, int]) -> AllDocsPage:
        return sort_out(self.upstream.all_docs(after, limit), after, held, self.upstream.url)

    def resume(self, page: Page[str], held: Held) -> str:
        assert isinstance(page, AllDocsPage)
        return resume_after_apply(page, held)


def pull(
    ledger: Ledger,
    settings: UpstreamSettings,
    *,
    batch: int = BATCH,
    upstream: Upstream | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> UpstreamPullResult:
    """Apply every event of the head-office database this station lacks, one transaction per
    answer of `batch` rows. Refusals are counted and reported, not raised."""
    upstream = upstream or Upstream(settings)
    result = UpstreamPullResult(url=settings.url, station=ledger.station)
    try:
        followed = follow(ledger, HeadOfficeLog(upstream), batch=batch, progress=progress)
        result.examined = followed.received + followed.bad
        result.applied = followed.applied
        result.refused = followed.refused
        result.refusals = followed.refusals
        result.refused_events = followed.refused_events
    finally:
        result.requests = upstream.requests
        result.bytes_sent, result.bytes_received = upstream.bytes_sent, upstream.bytes_received
        upstream.close()
    return result
