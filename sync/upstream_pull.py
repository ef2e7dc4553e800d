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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pos.ledger import Event, Ledger
from sync import docs
from sync.errors import BadDocument, UpstreamRefused
from sync.upstream import BATCH, Upstream, UpstreamSettings

SKIPPED_PREFIXES = ("_design/", "_local/")
# ';' follows ':' in code point order: "{origin};" sorts after every "{origin}:{seq}" id.
PAST_ORIGIN = ";"
MAX_MESSAGES = 20  # the report names this many refusals; the incidents table holds them all


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
        }

    def refuse(self, messages: list[str]) -> None:
        self.refused += len(messages)
        room = MAX_MESSAGES - len(self.refusals)
        self.refusals.extend(messages[: max(room, 0)])


@dataclass
class _Read:
    """One `_all_docs` answer sorted out: the events to apply, the documents refused, and the
    id the next read starts from."""

    events: list[Event]
    bad_documents: list[str]
    resume: str
    rows: int
    last_origin: str | None = None  # the origin of the answer's last event row


def _held_seq(ledger: Ledger, origin: str) -> int:
    row = ledger.conn.execute(
        "SELECT last_seq FROM origin_heads WHERE origin = ?", (origin,)
    ).fetchone()
    return int(row[0]) if row else 0


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


def _sort_out(ledger: Ledger, rows: list[dict[str, Any]], start: str, url: str) -> _Read:
    read = _Read(events=[], bad_documents=[], resume=start, rows=len(rows))
    held: dict[str, int] = {}
    for row in rows:
        doc_key = _row_id(row, url)
        read.resume = _just_after(doc_key)
        doc = row.get("doc")
        if doc_key.startswith(SKIPPED_PREFIXES) or not isinstance(doc, dict):
            continue
        try:
            event = docs.from_doc(doc)
        except BadDocument as exc:
            reason = exc.message.removeprefix(f"{exc.field}: ")
            read.bad_documents.append(f"document {doc_key[:80]!r} is not an event: {reason}")
            continue
        read.last_origin = event.origin
        if event.origin not in held:
            held[event.origin] = _held_seq(ledger, event.origin)
        if event.seq <= held[event.origin]:
            # held here already: the next read skips the rest of what is held of this origin
            read.resume = max(read.resume, _first_lacking(event.origin, held[event.origin]))
            continue
        read.events.append(event)
    return read


def _resume_after_apply(ledger: Ledger, read: _Read) -> str:
    """Where the next read starts, once this answer's events are applied: past the origin
    the answer ended in if one of its events was refused, else just after the last row."""
    origin = read.last_origin
    if origin is None or not read.events or read.events[-1].origin != origin:
        return read.resume
    if _held_seq(ledger, origin) < read.events[-1].seq:
        return max(read.resume, origin + PAST_ORIGIN)
    return read.resume


def pull(
    ledger: Ledger,
    settings: UpstreamSettings,
    *,
    batch: int = BATCH,
    upstream: Upstream | None = None,
) -> UpstreamPullResult:
    """Apply every event of the head-office database this station lacks, one transaction per
    answer of `batch` rows. Refusals are counted and reported, not raised."""
    upstream = upstream or Upstream(settings)
    result = UpstreamPullResult(url=settings.url, station=ledger.station)
    position = ""
    try:
        while True:
            rows = upstream.all_docs(position, batch)
            read = _sort_out(ledger, rows, position, settings.url)
            result.examined += len(read.events) + len(read.bad_documents)
            result.refuse(read.bad_documents)
            if read.events:
                applied, refusals = ledger.apply_batch(read.events)
                result.applied += applied
                result.refuse([refusal.message for refusal in refusals])
            position = _resume_after_apply(ledger, read)
            if read.rows < batch:
                break
    finally:
        result.requests = upstream.requests
        result.bytes_sent, result.bytes_received = upstream.bytes_sent, upstream.bytes_received
        upstream.close()
    return result
