"""Hybrid logical clock stamps: wall milliseconds plus a counter, sortable as text.

A stamp orders events across stations even when their wall clocks disagree a little: it never
goes backwards on one station and passes every stamp the station has seen, except a peer's
stamp further ahead of this station's clock than FOLLOW_AHEAD. Followed, one station set a day
ahead would drag every stamp of the hall a day ahead, for good; such an event is kept, and
shown as an exception, but not followed.

A stamp orders; it does not date. The legal day of an event is the hall's clock when it was
recorded, which the event carries in its body (`when`, pos.domain.event_time).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

_MAX_COUNTER = 99_999
FOLLOW_AHEAD_MS = 5 * 60 * 1000


@dataclass(frozen=True, order=True)
class Stamp:
    wall_ms: int
    counter: int = 0

    def __str__(self) -> str:
        return f"{self.wall_ms:013d}.{self.counter:05d}"

    @classmethod
    def parse(cls, text: str) -> Stamp:
        wall, sep, counter = text.partition(".")
        if not sep or len(wall) != 13 or len(counter) != 5 or not (wall + counter).isdigit():
            raise ValueError(f"not a clock stamp: {text!r}")
        return cls(int(wall), int(counter))

    @property
    def instant(self) -> datetime:
        from datetime import UTC

        return datetime.fromtimestamp(self.wall_ms / 1000, tz=UTC)


def local_minute(hlc_text: str, time_zone: str) -> str:
    """A stamp's instant as the hall's clock showed it, to the minute ("2026-11-28 18:05")."""
    from zoneinfo import ZoneInfo

    at = Stamp.parse(hlc_text).instant.astimezone(ZoneInfo(time_zone))
    return f"{at:%Y-%m-%d %H:%M}"


def wall_ms(now: datetime) -> int:
    return int(now.timestamp() * 1000)


def tick(last: Stamp | None, now: datetime) -> Stamp:
    """The stamp of a new local event at `now`, after every stamp seen so far (`last`)."""
    physical = wall_ms(now)
    if last is None or physical > last.wall_ms:
        return Stamp(physical, 0)
    if last.counter >= _MAX_COUNTER:
        return Stamp(last.wall_ms + 1, 0)
    return Stamp(last.wall_ms, last.counter + 1)


def follow_bound(now: datetime) -> str:
    """The highest stamp text a station at `now` follows (a peer's further ahead is not)."""
    return str(Stamp(wall_ms(now) + FOLLOW_AHEAD_MS, _MAX_COUNTER))


def ahead_ms(hlc_text: str, now: datetime) -> int:
    """How far the stamp is ahead of `now`, in milliseconds (negative: behind)."""
    return Stamp.parse(hlc_text).wall_ms - wall_ms(now)
