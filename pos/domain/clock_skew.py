"""One hall clock: how far a peer's wall clock is from this station's, measured at each sync,
and how it is said. Booth sets no system clock: it shows a station more than `LIMIT` off so
that someone points it at the manager (chrony or systemd-timesyncd, docs/hall-setup.md).

A pull asks the peer its clock in the middle of an exchange: the peer's reading is taken to be
of the moment halfway between sending and receiving here (NTP's estimate), so the network's
delay is not counted as skew. Pure: the three instants come in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

LIMIT = timedelta(minutes=1)
REFERENCE_ROLE = "manager"  # the hall's time reference


def offset(peer_clock: datetime, sent: datetime, received: datetime) -> timedelta:
    """How far the peer's clock is ahead of this station's (negative: behind)."""
    return peer_clock - (sent + (received - sent) / 2)


def off(offset_ms: int | None) -> bool:
    return offset_ms is not None and abs(offset_ms) > LIMIT / timedelta(milliseconds=1)


def amount(offset_ms: int) -> str:
    """An offset's size in words: "45 s", "3 min", "2 h 05 min"."""
    seconds = round(abs(offset_ms) / 1000)
    if seconds < 120:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def peer_clock(offset_ms: int) -> str:
    """A peer's clock against this station's (offset_ms: how far it is ahead)."""
    if offset_ms == 0:
        return "clock agrees with this station"
    way = "ahead of" if offset_ms > 0 else "behind"
    return f"clock {amount(offset_ms)} {way} this station"


@dataclass(frozen=True)
class OwnClock:
    """This station's clock against the manager's, for its status bar."""

    level: str  # ok, warn (more than LIMIT off) or off (not measured)
    text: str  # "" when it is not off


def own_clock(reference_offset_ms: int | None, *, reference: str | None) -> OwnClock:
    """`reference_offset_ms`: how far the manager's clock was ahead of this one at the last
    sync with it (None: never measured; `reference` None: this is the manager)."""
    if reference is None or reference_offset_ms is None:
        return OwnClock("off", "")
    if not off(reference_offset_ms):
        return OwnClock("ok", "")
    # the manager ahead means this station is behind
    way = "behind" if reference_offset_ms > 0 else "ahead of"
    return OwnClock("warn", f"Clock {amount(reference_offset_ms)} {way} the manager")
