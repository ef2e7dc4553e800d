"""When an event happened by the hall's clock: its legal day and its time of day.

Each event a station records carries `when`, the hall's local time at the station as it was
recorded (ISO 8601 with the offset, to the second). The clock stamp (`hlc`) orders events but
may have been pushed ahead by another station's clock, so it only dates events recorded before
`when` existed.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from pos.domain.hlc import Stamp


@lru_cache(maxsize=8)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def hall_time(now: datetime, time_zone: str) -> str:
    """`now` on the hall's clock, as an event's `when` holds it."""
    return now.astimezone(_zone(time_zone)).isoformat(timespec="seconds")


def event_instant(hlc_text: str, body: Any, time_zone: str) -> datetime:
    """When the event happened, in the hall's time zone: its `when`, or (an event recorded
    before `when` existed, or one whose `when` does not read) its stamp."""
    when = body.get("when") if isinstance(body, dict) else None
    if isinstance(when, str):
        try:
            at = datetime.fromisoformat(when)
        except ValueError:
            at = None
        if at is not None and at.tzinfo is not None:
            return at.astimezone(_zone(time_zone))
    return Stamp.parse(hlc_text).instant.astimezone(_zone(time_zone))


def legal_day(hlc_text: str, body: Any, time_zone: str) -> str:
    """The event's day on the hall's calendar (YYYY-MM-DD)."""
    return event_instant(hlc_text, body, time_zone).date().isoformat()
