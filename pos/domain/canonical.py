"""Canonical JSON and event hashing: the bytes every station signs and checks."""

from __future__ import annotations

import hashlib
import json
from typing import Any

EVENT_HASH_VERSION = "booth-event-v1"


class NotCanonical(ValueError):
    """A value that has no canonical JSON form (floats, NaN, non-string keys...)."""


_PLAIN = (str, int, bool, type(None))


def _reject_floats(value: Any) -> None:
    if type(value) in _PLAIN:
        return
    if isinstance(value, float):
        raise NotCanonical(f"floats are not allowed in signed data: {value!r} (use integer cents)")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotCanonical(f"object keys must be strings, not {key!r}")
            _reject_floats(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _reject_floats(item)


# One encoder for every call: json.dumps with options builds a new one each time.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """One text for one value: sorted keys, no spaces, UTF-8, no floats."""
    _reject_floats(value)
    return _ENCODER.encode(value)


def event_digest(origin: str, seq: int, kind: str, hlc: str, prev: str, body: str) -> bytes:
    """SHA-256 over an event's envelope and canonical body text."""
    header = "\x1f".join((EVENT_HASH_VERSION, origin, str(seq), kind, hlc, prev))
    return hashlib.sha256(f"{header}\x1e{body}".encode()).digest()
