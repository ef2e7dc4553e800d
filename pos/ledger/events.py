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
        value: dict[str, Any] = json.loads(self.body_json)
        return value

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
    def from_dict(cls, data: dict[str, Any]) -> Event:
        return cls(
            origin=str(data["origin"]),
            seq=int(data["seq"]),
            kind=str(data["type"]),
            hlc=str(data["hlc"]),
            prev=str(data["prev"]),
            body_json=canonical_json(data["body"]),
            hash=str(data["hash"]),
            sig=str(data["sig"]),
        )
