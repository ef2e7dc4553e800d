"""The event record: what is stored, hashed, signed and replicated."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pos.domain.canonical import canonical_json, event_digest
from pos.ledger.keys import PublicKey, StationKey

GENESIS = "0" * 64  # the `prev` of an origin's first event


@dataclass(frozen=True)
class Event:
    origin: str
    seq: int
    kind: str
    hlc: str
    prev: str
    body_json: str
    hash: str
    sig: str

    @property
    def body(self) -> dict[str, Any]:
        """The body, parsed: a dict of the caller's own, to change at will."""
        value: dict[str, Any] = json.loads(self.body_json)
        return value

    def shared_body(self) -> dict[str, Any]:
        """The body parsed once and kept with the event, for the ledger's own readers (the body
        check, then every projection's handlers), which only read it. Applying a page of
        events parsed each body twice, once for each; anyone else takes `body`."""
        try:
            kept: dict[str, Any] = self.__dict__["_shared_body"]
        except KeyError:
            kept = json.loads(self.body_json)
            object.__setattr__(self, "_shared_body", kept)  # not a field: eq, hash, replace
        return kept

    @property
    def key(self) -> tuple[str, int]:
        return (self.origin, self.seq)

    def digest(self) -> bytes:
        return event_digest(self.origin, self.seq, self.kind, self.hlc, self.prev, self.body_json)

    def hash_matches(self) -> bool:
        return self.digest().hex() == self.hash

    def signed_by(self, key: PublicKey) -> bool:
        try:
            signature = bytes.fromhex(self.sig)
        except ValueError:
            return False
        return key.verifies(bytes.fromhex(self.hash), signature)

    @classmethod
    def create(
        cls,
        key: StationKey,
        *,
        origin: str,
        seq: int,
        kind: str,
        hlc: str,
        prev: str,
        body: dict[str, Any],
    ) -> Event:
        body_json = canonical_json(body)
        digest = event_digest(origin, seq, kind, hlc, prev, body_json)
        return cls(origin, seq, kind, hlc, prev, body_json, digest.hex(), key.sign(digest).hex())

    def to_dict(self) -> dict[str, Any]:
        """The interchange form (join bundles, replication): body as an object."""
        return {
            "origin": self.origin,
            "seq": self.seq,
            "type": self.kind,
            "hlc": self.hlc,
            "prev": self.prev,
            "body": self.body,
            "hash": self.hash,
            "sig": self.sig,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, take_body: bool = False) -> Event:
        """`take_body`: the caller gives up `data["body"]` (a document just decoded, nobody
        else's) and it becomes the event's shared body, equal to its canonical text parsed
        (only the keys' order differs, which nothing reads): a page of events is not parsed
        again to be checked and projected."""
        event = cls(
            origin=str(data["origin"]),
            seq=int(data["seq"]),
            kind=str(data["type"]),
            hlc=str(data["hlc"]),
            prev=str(data["prev"]),
            body_json=canonical_json(data["body"]),
            hash=str(data["hash"]),
            sig=str(data["sig"]),
        )
        if take_body and type(data["body"]) is dict:
            object.__setattr__(event, "_shared_body", data["body"])
        return event
