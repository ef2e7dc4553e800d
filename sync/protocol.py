"""The replication protocol as pure functions over documents: the answers the replication
server builds (`GET /`, the database's info, `_changes`, `_revs_diff`, `_bulk_get`,
`_all_docs`, `_bulk_docs`, `_local`), what the clients read back from a peer or the head office,
and the checkpoint documents. No sockets, no SQL, no clock: what is held is passed in (a
lookup), and so is the time (`now`).

A request the protocol cannot answer raises `ProtocolError` with CouchDB's status, error name
and reason; the server sends it as the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

from pos.ledger.events import Event
from sync import docs
from sync.errors import BadDocument, PeerRefused, UpstreamRefused

DB_NAME = "ledger"
MAX_BATCH = 10_000
# `_local` documents a peer may keep here: the checkpoints of a CouchDB-protocol replicator
# (PouchDB: "_local/" + a base64 MD5 with '/' as '.' and '+' as '_'; CouchDB: 32 hex digits),
# each at most MAX_LOCAL_DOC bytes, at most MAX_LOCAL_DOCS of them per peer (a new one beyond
# that replaces the peer's least recently written). Booth's own replicator keeps its
# checkpoints in its own ledger and never writes one to a peer.
MAX_LOCAL_ID = 64
MAX_LOCAL_DOC = 64 * 1024
MAX_LOCAL_DOCS = 8
_CHECKPOINT_ID = re.compile(r"[A-Za-z0-9._=+-]{16,64}")
MAX_HEADS = 10_000
_EVENT_HASH = re.compile(r"[0-9a-f]{64}")

Lookup = Callable[[str, int], Event | None]  # the event held under (origin, seq), if any


class ProtocolError(Exception):
    """A request refused with CouchDB's status, error name and reason."""

    def __init__(self, status: HTTPStatus, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


def bad_request(reason: str) -> ProtocolError:
    return ProtocolError(HTTPStatus.BAD_REQUEST, "bad_request", reason)


def parse_int(text: str, name: str, *, allow_now: bool = False, now: int = 0) -> int:
    """A query's integer (`since`, `limit`, ...): "now" where allowed, CouchDB's "N-..." seqs."""
    if allow_now and text == "now":
        return now
    value = text.split("-")[0] if text and text[0].isdigit() else text
    if not value.isdigit() or len(value) > 15:
        raise bad_request(f"{name}={text[:40]!r}")
    return int(value)


def _key(doc_id: str) -> tuple[str, int] | None:
    try:
        return docs.parse_id(doc_id)
    except BadDocument:
        return None


def _lookup(held: Lookup, doc_id: str) -> Event | None:
    key = _key(doc_id)
    return held(*key) if key is not None else None


# --- the server's answers ----------------------------------------------------------------------


def root(
    *,
    uuid: str,
    hall: str,
    station: str,
    heads: Mapping[str, int],
    release: str | None = None,
    now: datetime | None = None,
    first: str | None = None,
) -> dict[str, Any]:
    """`GET /`: a stable uuid (a peer's checkpoints are kept under it), this station's
    per-origin heads, its release (Booth's version), its wall clock as it answers (the
    puller compares it with its own: pos.domain.clock_skew) and the hash of its own first
    event (`first`: a puller that holds that event already need not fetch it to tell this
    instance of the station from a twin)."""
    booth: dict[str, Any] = {"hall": hall, "station": station, "heads": dict(heads)}
    if release is not None:
        booth["release"] = release
    if first is not None:
        booth["first"] = first
    if now is not None:
        booth["clock"] = now.isoformat(timespec="milliseconds")
    return {
        "couchdb": "Welcome",
        "uuid": uuid,
        "version": "3.3.0",  # the CouchDB protocol's, for PouchDB: Booth's is booth.release
        "vendor": {"name": "booth"},
        "booth": booth,
    }


def database_info(*, update_seq: int, doc_count: int) -> dict[str, Any]:
    return {
        "db_name": DB_NAME,
        "update_seq": str(update_seq),
        "doc_count": doc_count,
        "doc_del_count": 0,
        "instance_start_time": "0",
        "purge_seq": 0,
    }


def changes(
    rows: list[tuple[int, Event]], *, since: int, update_seq: int, include_docs: bool
) -> str:
    """`_changes` as JSON text: `rows` (position, event) after `since`; `update_seq` the newest
    position now (what is still pending after the last row)."""
    items = []
    for position, event in rows:
        item = (
            f'{{"seq":{position},"id":{docs.quoted(docs.doc_id(event.origin, event.seq))},'
            f'"changes":[{{"rev":"{docs.rev_of(event.hash)}"}}]'
        )
        if include_docs:
            item += f',"doc":{docs.doc_json(event)}'
        items.append(item + "}")
    last = rows[-1][0] if rows else since
    pending = max(0, update_seq - last)
    return f'{{"results":[{",".join(items)}],"last_seq":{last},"pending":{pending}}}'


def revs_diff_ids(body: Any) -> list[tuple[str, int]]:
    """The event keys a `_revs_diff` request asks about (ids that are not events are left out:
    every revision of them is missing)."""
    if not isinstance(body, dict) or len(body) > MAX_BATCH:
        raise bad_request("expected {id: [revs]}")
    return [key for key in (_key(str(doc_id)) for doc_id in body) if key is not None]


def revs_diff(body: dict[str, Any], held: Mapping[tuple[str, int], str]) -> dict[str, Any]:
    """`_revs_diff`: of each id's revisions, the ones not held. `held`: (origin, seq) -> hash."""
    missing = {}
    for doc_id, revs in body.items():
        if not isinstance(revs, list):
            raise bad_request("revs must be a list")
        key = _key(str(doc_id))
        rev = docs.rev_of(held[key]) if key is not None and key in held else None
        lacking = [r for r in revs if rev != r]
        if lacking:
            missing[doc_id] = {"missing": lacking}
    return missing


def bulk_get(body: Any, held: Lookup) -> dict[str, Any]:
    """`_bulk_get`: each document asked for, with its `_revisions`, or CouchDB's not_found."""
    wanted = body.get("docs") if isinstance(body, dict) else None
    if not isinstance(wanted, list) or len(wanted) > MAX_BATCH:
        raise bad_request("expected {docs: [...]}")
    results = []
    for item in wanted:
        doc_id = str(item.get("id")) if isinstance(item, dict) else ""
        event = _lookup(held, doc_id)
        if event is None:
            error = {
                "id": doc_id,
                "rev": item.get("rev") if isinstance(item, dict) else None,
                "error": "not_found",
                "reason": "missing",
            }
            results.append({"id": doc_id, "docs": [{"error": error}]})
        else:
            results.append({"id": doc_id, "docs": [{"ok": docs.to_doc(event, revisions=True)}]})
    return {"results": results}


def all_docs_request(body: Any, query: Mapping[str, str]) -> tuple[list[Any], bool]:
    """The keys an `_all_docs` request asks for (in its body or its query; keys are required
    here) and whether it wants the documents."""
    keys = body.get("keys") if isinstance(body, dict) else None
    if keys is None and "keys" in query:
        try:
            keys = json.loads(query["keys"])
        except ValueError:
            raise bad_request("keys: not JSON") from None
    include = query.get("include_docs") == "true" or (
        isinstance(body, dict) and body.get("include_docs") is True
    )
    if not isinstance(keys, list) or len(keys) > MAX_BATCH:
        raise bad_request("keys are required here")
    return keys, include


def all_docs(keys: list[Any], held: Lookup, *, include_docs: bool) -> dict[str, Any]:
    rows = []
    for key in keys:
        event = _lookup(held, str(key))
        if event is None:
            rows.append({"key": key, "error": "not_found"})
        else:
            row: dict[str, Any] = {"id": key, "key": key, "value": {"rev": docs.rev_of(event.hash)}}
            if include_docs:
                row["doc"] = docs.to_doc(event)
            rows.append(row)
    return {"total_rows": len(rows), "offset": 0, "rows": rows}


def bulk_docs_events(body: Any) -> list[Event]:
    """The events of a replicator's `_bulk_docs` (`new_edits: false` only: events are
    immutable), `_revisions` stripped, sorted by origin and seq for the apply path."""
    if not isinstance(body, dict) or not isinstance(body.get("docs"), list):
        raise bad_request("expected {docs: [...]}")
    if body.get("new_edits", True) is not False:
        raise ProtocolError(
            HTTPStatus.FORBIDDEN,
            "forbidden",
            "events are immutable: only new_edits=false replication is accepted",
        )
    if len(body["docs"]) > MAX_BATCH:
        raise ProtocolError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too_large", "batch too large")
    events = []
    for doc in body["docs"]:
        if isinstance(doc, dict):
            doc = {k: v for k, v in doc.items() if k != "_revisions"}
        events.append(docs.from_doc(doc))
    events.sort(key=lambda e: (e.origin, e.seq))
    return events


def bulk_docs_errors(
    events: list[Event], stored: list[Event | None], refusals: list[str]
) -> list[dict[str, Any]]:
    """CouchDB's answer to `_bulk_docs`: one error per document not stored, with its id.
    `stored` is what is held under each event's key after the apply; `refusals` the apply
    path's messages. The first refused event of an origin carries the refusal; the ones after it
    could not follow it."""
    reasons, errors, failed = iter(refusals), [], set()
    for event, held in zip(events, stored, strict=True):
        if held is not None and held.hash == event.hash:
            continue
        if event.origin in failed:
            reason = f"not applied: it follows a refused event of {event.origin}"
        else:
            failed.add(event.origin)
            refusal = next(reasons, None)
            reason = refusal if refusal is not None else "not applied"
        errors.append(
            {
                "id": docs.doc_id(event.origin, event.seq),
                "rev": docs.rev_of(event.hash),
                "error": "forbidden",
                "reason": reason,
            }
        )
    return errors


def check_local_id(local_id: str) -> str:
    """A `_local` id a peer may write: a replicator's checkpoint id, nothing else."""
    if len(local_id) > MAX_LOCAL_ID:
        raise bad_request("id too long")
    if not _CHECKPOINT_ID.fullmatch(local_id):
        raise ProtocolError(
            HTTPStatus.FORBIDDEN,
            "forbidden",
            f"_local/{local_id[:80]} is not a replication checkpoint: only a replicator's "
            "checkpoints are kept here",
        )
    return local_id


def next_local_rev(current: str | None) -> str:
    """A `_local` document's next revision ("0-N")."""
    generation = int(current.split("-")[0]) + 1 if current else 1
    return f"0-{generation}"


def local_doc(local_id: str, body: Any, rev: str) -> dict[str, Any]:
    """The `_local` document to store from a PUT's body: a replicator's checkpoint, an object of
    at most MAX_LOCAL_DOC bytes."""
    if not isinstance(body, dict):
        raise bad_request("a local doc is an object")
    size = len(json.dumps(body, separators=(",", ":")))
    if size > MAX_LOCAL_DOC:
        raise ProtocolError(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            "too_large",
            f"a checkpoint of {size} bytes is above {MAX_LOCAL_DOC}",
        )
    return {**body, "_id": f"_local/{local_id}", "_rev": rev}


def local_written(local_id: str, rev: str) -> dict[str, Any]:
    return {"ok": True, "id": f"_local/{local_id}", "rev": rev}


# --- what a client reads back --------------------------------------------------------------------


@dataclass(frozen=True)
class PeerInfo:
    """What a peer says of itself in `GET /`."""

    uuid: str
    station: str
    heads: dict[str, int] | None  # its last seq per origin, as it said (shown, never trusted)
    release: str | None = None  # its Booth version, as it said (None: a release before 0.2.0)
    clock: datetime | None = None  # its wall clock as it answered
    first: str | None = None  # the hash of its own first event (None: not said)


def read_heads(value: Any) -> dict[str, int] | None:
    """A peer's {origin: last seq}, if it sent a well-formed one (it is only shown, never
    trusted: what a peer holds is known from the events it serves)."""
    if not isinstance(value, dict) or len(value) > MAX_HEADS:
        return None
    heads = {
        str(origin)[:64]: seq for origin, seq in value.items() if type(seq) is int and seq >= 0
    }
    return heads if len(heads) == len(value) else None


def read_root(info: Any, url: str) -> PeerInfo:
    if not isinstance(info, dict) or not isinstance(info.get("uuid"), str):
        raise PeerRefused(f"{url} is not a Booth station")
    booth = info.get("booth") or {}
    release = booth.get("release")
    return PeerInfo(
        uuid=info["uuid"],
        station=str(booth.get("station", "?")),
        heads=read_heads(booth.get("heads")),
        release=release[:40] if isinstance(release, str) and release.isprintable() else None,
        clock=read_clock(booth.get("clock")),
        first=read_hash(booth.get("first")),
    )


def read_hash(value: Any) -> str | None:
    """An event hash (64 lower-case hex digits), if well-formed."""
    return value if isinstance(value, str) and _EVENT_HASH.fullmatch(value) else None


def read_clock(value: Any) -> datetime | None:
    """A peer's wall clock (ISO with its offset), if it sent a well-formed one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        return None
    return at if at.tzinfo is not None else None


def changes_path(since: int, limit: int, *, include_docs: bool = True) -> str:
    path = f"/{DB_NAME}/_changes?since={since}&limit={limit}"
    return path + "&include_docs=true" if include_docs else path


def read_change_revs(answer: Any, after: int, url: str) -> tuple[list[str], int, int]:
    """A `_changes` answer asked for without documents: each row's revision (its event's
    hash prefix: sync.docs.rev_of), its last_seq and how many rows it had."""
    rows = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(rows, list):
        raise PeerRefused(f"{url} sent a malformed _changes answer")
    if not rows:
        return [], after, 0
    revs = []
    for row in rows:
        changes = row.get("changes") if isinstance(row, dict) else None
        first = changes[0] if isinstance(changes, list) and changes else None
        rev = first.get("rev") if isinstance(first, dict) else None
        revs.append(rev if isinstance(rev, str) else "")
    try:
        last = int(answer.get("last_seq", rows[-1].get("seq", after)))
    except (TypeError, ValueError, AttributeError):
        raise PeerRefused(f"{url} sent a malformed last_seq") from None
    return revs, last, len(rows)


def read_changes(answer: Any, after: int, url: str) -> tuple[list[Event], int, int]:
    """A `_changes` answer asked for after `after`: its events, its last_seq (`after` when it
    has no row) and how many rows it had. A last_seq that does not advance is refused: the pull
    would never end."""
    rows = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(rows, list):
        raise PeerRefused(f"{url} sent a malformed _changes answer")
    if not rows:
        return [], after, 0
    events = [docs.from_doc(row.get("doc")) for row in rows if isinstance(row, dict)]
    try:
        last = int(answer.get("last_seq", rows[-1].get("seq", after)))
    except (TypeError, ValueError, AttributeError):
        raise PeerRefused(f"{url} sent a malformed last_seq") from None
    if last <= after:
        raise PeerRefused(f"{url}: its _changes did not advance past {after}")
    return events, last, len(rows)


def revs_of(events: list[Event]) -> dict[str, str]:
    """{doc id: rev} of `events`, as `_revs_diff` asks about them."""
    return {docs.doc_id(e.origin, e.seq): docs.rev_of(e.hash) for e in events}


def revs_diff_request(revs: Mapping[str, str]) -> dict[str, list[str]]:
    return {key: [rev] for key, rev in revs.items()}


def read_revs_diff(answer: Any, revs: Mapping[str, str], url: str) -> set[str]:
    """The ids among `revs` whose revision the head office says it lacks."""
    if not isinstance(answer, dict):
        raise UpstreamRefused(f"the head office at {url} sent a malformed _revs_diff")
    return {
        key
        for key, entry in answer.items()
        if key in revs and isinstance(entry, dict) and revs[key] in entry.get("missing", ())
    }


def bulk_docs_request(events: list[Event]) -> dict[str, Any]:
    """A replicator's `_bulk_docs`: each event with its one revision (`new_edits: false`)."""
    return {"docs": [docs.to_doc(event, revisions=True) for event in events], "new_edits": False}


def read_bulk_docs(answer: Any, url: str) -> None:
    """Refused unless the head office stored every document."""
    if not isinstance(answer, list):
        raise UpstreamRefused(f"the head office at {url} sent a malformed _bulk_docs")
    failed = [entry for entry in answer if isinstance(entry, dict) and "error" in entry]
    if failed:
        first = failed[0]
        raise UpstreamRefused(
            f"the head office at {url} refused {len(failed)} document(s), first "
            f"{first.get('id')}: {first.get('error')} {first.get('reason', '')}".rstrip()
        )


def all_docs_query(startkey: str, limit: int) -> str:
    """`_all_docs`' query: `limit` rows with their documents from `startkey` ("" from the
    first)."""
    query = f"?include_docs=true&limit={limit}"
    if startkey:
        query += "&startkey=" + quote(json.dumps(startkey), safe="")
    return query


def read_all_docs(payload: Any, url: str) -> list[dict[str, Any]]:
    rows = payload.get("rows") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise UpstreamRefused(f"the head office at {url} sent a malformed _all_docs")
    return [row for row in rows if isinstance(row, dict)]


# --- checkpoints ---------------------------------------------------------------------------------


def first_event_path(station: str) -> str:
    """Where a peer serves its own first event (its HallCreated or StationJoined)."""
    return f"/{DB_NAME}/{quote(docs.doc_id(station, 1), safe=':')}"


def first_event(doc: Any, station: str) -> Event | None:
    """The peer's own first event from the document it served, if it is one."""
    try:
        event = docs.from_doc(doc)
    except BadDocument:
        return None
    return event if event.origin == station and event.seq == 1 else None


def instance_uuid(peer_uuid: str, first_hash: str | None) -> str:
    """The identity a pull checkpoint is kept under: the peer's uuid (the same for every
    instance of a station) and the hash of its own first event, which differs between two
    instances joined from copies of one bundle. A pull from a second instance then starts from
    its beginning, so its first event meets the first instance's: a fork, refused and
    recorded, at the first contact."""
    return peer_uuid if first_hash is None else f"{peer_uuid}:{first_hash[:16]}"


def push_checkpoint_id(station: str, hall: str) -> str:
    """The id of a station's push checkpoint: a `_local` document upstream, and here."""
    return f"booth-push:{station}:{hall}"


def push_checkpoint(
    *, since: int, station: str, hall: str, now: datetime, rev: Any = None
) -> dict[str, Any]:
    """The `_local` document a push leaves upstream after each batch."""
    checkpoint: dict[str, Any] = {
        "since": since,
        "station": station,
        "hall": hall,
        "at": stamp(now),
    }
    if isinstance(rev, str):
        checkpoint["_rev"] = rev
    return checkpoint


def push_start(local: Mapping[str, Any], remote: Mapping[str, Any], url: str) -> int:
    """Where a push starts. Either side may have lost its checkpoint (a wiped database, a
    restored station): the smaller, which only costs a `_revs_diff` over events the head office
    holds."""
    here = int(local.get("since", 0)) if local.get("url") == url else 0
    return min(here, int(remote.get("since", 0)))


def stamp(now: datetime) -> str:
    """A time as the sync state shows it: ISO, to the second."""
    return now.isoformat(timespec="seconds")
