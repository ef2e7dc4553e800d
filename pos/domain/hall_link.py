"""The hall link in words: is this station in touch with the rest of the hall, and how many
events it knows of that it does not hold yet. Pure: the peers' records and `now` come in.

- "Hall link: OK" (green): some peer answered within `FRESH`, and its last try did not fail.
- "OFFLINE since 19:40" (amber, red after `RED_AFTER`): the last time any peer answered, in the
  hall's time zone (with the day when it was not today).
- "Hall link: not synced yet" (amber): no peer ever answered.
- behind: what the peers said they hold at their last contact, beyond what is held here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

FRESH = timedelta(minutes=2)
RED_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class PeerSeen:
    station: str | None
    last_contact: datetime | None  # the last answer (a failed try keeps the one before)
    last_error: str | None  # the last try's error, None when it answered
    heads: Mapping[str, int] | None  # origin -> last seq, as the peer said at last contact


@dataclass(frozen=True)
class Link:
    level: str  # ok, warn or error
    text: str
    behind: int
    since: datetime | None = None


def behind_by_origin(held: Mapping[str, int], peers: Iterable[PeerSeen]) -> dict[str, int]:
    """origin -> events some peer holds beyond what is held here (only origins behind)."""
    best: dict[str, int] = {}
    for peer in peers:
        for origin, seq in (peer.heads or {}).items():
            best[origin] = max(best.get(origin, 0), int(seq))
    return {o: seq - held.get(o, 0) for o, seq in sorted(best.items()) if seq > held.get(o, 0)}


def behind_text(count: int) -> str:
    return "up to date" if count == 0 else f"{count:,} event{'s' if count != 1 else ''} behind"


def link(peers: list[PeerSeen], held: Mapping[str, int], now: datetime, zone: ZoneInfo) -> Link:
    behind = sum(behind_by_origin(held, peers).values())
    contacts = [p.last_contact for p in peers if p.last_contact is not None]
    if not contacts:
        return Link("warn", "Hall link: not synced yet", behind)
    last = max(contacts)
    reachable = [
        p
        for p in peers
        if p.last_contact is not None and not p.last_error and now - p.last_contact < FRESH
    ]
    if reachable:
        return Link("ok", "Hall link: OK", behind, last)
    local = last.astimezone(zone)
    shown = local.strftime("%H:%M")
    if local.date() != now.astimezone(zone).date():
        shown = f"{local.strftime('%b')} {local.day} {shown}"
    level = "error" if now - last >= RED_AFTER else "warn"
    return Link(level, f"OFFLINE since {shown}", behind, last)
