"""Pulling a peer's events: its `_changes` from our checkpoint, in batches, each batch applied
in one transaction through the ledger's apply path; the checkpoint moves only after the batch
commits, so an interrupted pull resumes and applying twice changes nothing."""

from __future__ import annotations

import json
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pos.ledger import Event, Ledger
from pos.ledger.store import SignatureCheck
from sync import docs
from sync.client import Peer
from sync.errors import PeerRefused

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


def _checkpoint_id(peer_uuid: str, own: str) -> str:
    return f"booth-pull:{own}:{peer_uuid}"


def _read_checkpoint(ledger: Ledger, key: str) -> int:
    row = ledger.conn.execute("SELECT doc FROM sync_local WHERE id = ?", (key,)).fetchone()
    return int(json.loads(row[0]).get("since", 0)) if row else 0


def _write_checkpoint(ledger: Ledger, key: str, since: int) -> None:
    ledger.conn.execute(
        "INSERT OR REPLACE INTO sync_local VALUES (?, '0-1', ?)",
        (key, json.dumps({"since": since, "at": datetime.now(UTC).isoformat()})),
    )


def _heads(value: Any) -> dict[str, int] | None:
    """A peer's {origin: last seq}, if it sent a well-formed one (it is only shown, never
    trusted: what a peer holds is known from the events it serves)."""
    if not isinstance(value, dict) or len(value) > 10_000:
        return None
    heads = {
        str(origin)[:64]: seq for origin, seq in value.items() if type(seq) is int and seq >= 0
    }
    return heads if len(heads) == len(value) else None


def pull(
    ledger: Ledger, peer: Peer, *, lock: threading.Lock | None = None, batch: int = BATCH
) -> PullResult:
    guard = lock or nullcontext()
    info = peer.request("GET", "/")
    if not isinstance(info, dict) or not isinstance(info.get("uuid"), str):
        raise PeerRefused(f"{peer.url} is not a Booth station")
    booth = info.get("booth") or {}
    result = PullResult(
        peer=peer.url, station=str(booth.get("station", "?")), heads=_heads(booth.get("heads"))
    )
    key = _checkpoint_id(info["uuid"], ledger.station)
    with guard:
        since = _read_checkpoint(ledger, key)

    def fetch(after: int, check: SignatureCheck) -> tuple[list[Event], list[bool], int, int]:
        """One batch after `after`: its events, what `check` found of each, the peer's
        last_seq, and how many rows."""
        changes = peer.request(
            "GET", f"/ledger/_changes?since={after}&limit={batch}&include_docs=true"
        )
        rows = changes.get("results") if isinstance(changes, dict) else None
        if not isinstance(rows, list):
            raise PeerRefused(f"{peer.url} sent a malformed _changes answer")
        if not rows:
            return [], [], after, 0
        events = [docs.from_doc(row.get("doc")) for row in rows if isinstance(row, dict)]
        try:
            last = int(changes.get("last_seq", rows[-1].get("seq", after)))
        except (TypeError, ValueError, AttributeError):
            raise PeerRefused(f"{peer.url} sent a malformed last_seq") from None
        if last <= after:
            raise PeerRefused(f"{peer.url}: its _changes did not advance past {after}")
        return events, check(events), last, len(rows)

    def checker() -> SignatureCheck:
        with guard:
            return ledger.signature_check()

    # The next batch is fetched, decoded and its signatures checked (on every core) while this
    # one is written: the network wait, the checks and SQLite's work overlap. Only the fetching
    # thread touches the peer's connection.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="booth-fetch") as fetcher:
        pending: Future[tuple[list[Event], list[bool], int, int]] | None = fetcher.submit(
            fetch, since, checker()
        )
        while pending is not None:
            events, authentic, last, count = pending.result()
            if not count:
                break
            pending = fetcher.submit(fetch, last, checker()) if count >= batch else None
            result.received += len(events)
            with guard, ledger.transaction():  # the batch and its checkpoint: one commit
                applied, refusals = ledger.apply_batch(events, authentic=authentic)
                _write_checkpoint(ledger, key, last)
            result.applied += applied
            result.refused += len(refusals)
            since = last
    result.since = since
    result.bytes_sent, result.bytes_received = peer.bytes_sent, peer.bytes_received
    return result


def record_contact(
    ledger: Ledger,
    url: str,
    *,
    station: str | None,
    error: str | None,
    pulled: int,
    source: str,
    heads: dict[str, int] | None = None,
) -> None:
    now = datetime.now(UTC).isoformat(timespec="seconds")
    ledger.conn.execute(
        "INSERT INTO sync_peers (url, station, source, last_contact, last_error, pulled, heads, "
        "heads_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (url) DO UPDATE SET "
        "station = coalesce(excluded.station, station), "
        "last_contact = CASE WHEN excluded.last_error IS NULL THEN excluded.last_contact "
        "ELSE last_contact END, last_error = excluded.last_error, "
        "pulled = pulled + excluded.pulled, heads = coalesce(excluded.heads, heads), "
        "heads_at = coalesce(excluded.heads_at, heads_at)",
        (
            url,
            station,
            source,
            now if error is None else None,
            error,
            pulled,
            json.dumps(heads, sort_keys=True) if heads is not None else None,
            now if heads is not None else None,
        ),
    )


def summary(result: PullResult) -> dict[str, Any]:
    return {
        "peer": result.peer,
        "station": result.station,
        "received": result.received,
        "applied": result.applied,
        "since": result.since,
        "bytes_sent": result.bytes_sent,
        "bytes_received": result.bytes_received,
    }
