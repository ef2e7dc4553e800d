"""Signing on at a staff station (booth, manager): the house's settings and the idle lock.

- `sign-on`: `badge` (a badge tap signs on) or `badge-and-pin` (then the person's PIN).
- `lock-minutes`: a station with someone signed on locks after this many minutes without a
  touch or a scan (0: never). Locked, the same badge tapped again unlocks it at once (no PIN:
  the person never left the station's list); anyone else signs on afresh.

Pure: the time is passed in (seconds on a monotonic clock).
"""

from __future__ import annotations

from dataclasses import dataclass

SIGN_ON_MODES = ("badge", "badge-and-pin")
MAX_LOCK_MINUTES = 240
HOUSE_SETTINGS = {
    "sign-on": "how staff sign on: badge (a tap) or badge-and-pin",
    "lock-minutes": f"minutes without a touch before a staff station locks (0 to "
    f"{MAX_LOCK_MINUTES}; 0: never)",
}
DEFAULTS = {"sign-on": "badge", "lock-minutes": "10"}


class InvalidSignOn(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def house_setting(key: str, value: str) -> str:
    """A house setting's value as stored, or InvalidSignOn naming what is accepted."""
    key = key.strip().lower()
    text = value.strip().lower()
    if key == "sign-on":
        text = {"pin": "badge-and-pin", "badge+pin": "badge-and-pin"}.get(text, text)
        if text not in SIGN_ON_MODES:
            raise InvalidSignOn(key, f"{value!r} is not {' or '.join(SIGN_ON_MODES)}")
        return text
    if key == "lock-minutes":
        if not text.isascii() or not text.isdigit() or int(text) > MAX_LOCK_MINUTES:
            raise InvalidSignOn(
                key, f"{value!r} is not a number of minutes from 0 to {MAX_LOCK_MINUTES}, like 5"
            )
        return str(int(text))
    raise InvalidSignOn(
        "key", f"{key!r} is not a house setting; known: {', '.join(HOUSE_SETTINGS)}"
    )


@dataclass(frozen=True)
class SignOnSettings:
    mode: str = "badge"
    lock_minutes: int = 10

    @classmethod
    def from_mapping(cls, stored: dict[str, str]) -> SignOnSettings:
        merged = {**DEFAULTS, **stored}
        return cls(merged["sign-on"], int(merged["lock-minutes"]))

    @property
    def needs_pin(self) -> bool:
        return self.mode == "badge-and-pin"

    @property
    def lock_seconds(self) -> float | None:
        return self.lock_minutes * 60.0 if self.lock_minutes else None


class LockTimer:
    """Locks `seconds` after the last touch; None: never locks."""

    def __init__(self, seconds: float | None, now: float) -> None:
        self.seconds = seconds
        self.last = now

    def touch(self, now: float) -> None:
        self.last = now

    def due(self, now: float) -> bool:
        return self.seconds is not None and now - self.last >= self.seconds


def unlocks(entry: str, signed_on: str) -> bool:
    """A badge tapped at a locked station unlocks it when it is the signed-on person's (the
    badge in any case)."""
    return bool(signed_on) and entry.strip().casefold() == signed_on.casefold()
