"""Events as CouchDB documents: one revision each, never changed, so no conflicts.

`_id` is "{origin}:{seq:012d}", `_rev` "1-{first 32 hex of the event's hash}".
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any

from pos.ledger.events import Event
from sync.errors import BadDocument

MAX_SEQ = 10**12  # an id spells seq in 12 digits
FIELDS = ("origin", "seq", "type", "hlc", "prev", "body", "hash", "sig")


def doc_id(origin: str, seq: int) -> str:
    return f"{origin}:{seq:012d}"


def rev_of(event_hash: str) -> str:
    return f"1-{event_hash[:32]}"


def parse_id(text: str) -> tuple[str, int]:
    origin, sep, seq = text.rpartition(":")
    if not sep or not origin or len(seq) != 12 or not seq.isdigit():
        raise BadDocument(f"{text[:80]!r} is not a Booth event id (origin:seq)")
    return origin, int(seq)


def to_doc(event: Event, *, revisions: bool = False) -> dict[str, Any]:
    doc = {"_id": doc_id(event.origin, event.seq), "_rev": rev_of(event.hash), **event.to_dict()}
    if revisions:
        doc["_revisions"] = {"start": 1, "ids": [event.hash[:32]]}
    return doc


def quoted(text: str) -> str:
    """`text` as a JSON string."""
    result: str = encode_basestring(text)
    return result


def doc_json(event: Event) -> str:
    """`to_doc(event)` as JSON text, built around the stored canonical body text instead of
    parsing and serializing it again (the server's cost per event in `_changes`)."""
    return (
        f'{{"_id":{quoted(doc_id(event.origin, event.seq))},"_rev":"{rev_of(event.hash)}",'
        f'"origin":{quoted(event.origin)},"seq":{event.seq},"type":{quoted(event.kind)},'
        f'"hlc":{quoted(event.hlc)},"prev":{quoted(event.prev)},"body":{event.body_json},'
        f'"hash":{quoted(event.hash)},"sig":{quoted(event.sig)}}}'
    )


def from_doc(doc: Any) -> Event:
    """The event a document holds. The document is the caller's no more: its body becomes the
    event's shared body (Event.from_dict's `take_body`)."""
    if not isinstance(doc, dict):
        raise BadDocument("a document must be a JSON object")
    missing = [field for field in FIELDS if field not in doc]
    if missing:
        raise BadDocument(f"{str(doc.get('_id'))[:80]!r} lacks {', '.join(missing)}")
    if not isinstance(doc["body"], dict):
        raise BadDocument(f"{str(doc.get('_id'))[:80]!r} has a malformed body")
    seq = doc["seq"]
    if type(seq) is not int or not 1 <= seq < MAX_SEQ:
        origin = str(doc.get("origin"))[:80]
        raise BadDocument(f"an event of {origin!r}: seq {str(seq)[:40]} is not 1..{MAX_SEQ - 1}")
    for field in ("origin", "type", "hlc", "prev", "hash", "sig"):
        if not isinstance(doc[field], str) or len(doc[field]) > 256:
            raise BadDocument(f"{str(doc.get('_id'))[:80]!r}: field {field} is malformed")
    try:
        event = Event.from_dict(doc, take_body=True)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadDocument(f"{str(doc.get('_id'))[:80]!r} is not an event: {exc}") from None
    if "_id" in doc and doc["_id"] != doc_id(event.origin, event.seq):
        raise BadDocument(f"{str(doc['_id'])[:80]!r} does not match its origin and seq")
    if "_rev" in doc and doc["_rev"] != rev_of(event.hash):
        raise BadDocument(f"{str(doc.get('_id'))[:80]!r}: wrong revision {str(doc['_rev'])[:40]}")
    return event
