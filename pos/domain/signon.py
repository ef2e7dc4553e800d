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


@dataclass(frozen=True)
class Refused:
    """Why a badge did not sign on, in plain words for the person at the screen, and what to
    do. Rule ROLE says who may: each worker signs on with their own badge (the regulation's
    unique operator IDs, 11VAC20-20-90), and a station opens only for the roles its work needs
    (a booth: a seller, redeemer or manager; the manager's station: a manager)."""

    headline: str
    message: str


ROLE_NAMES = {
    "seller": "a seller",
    "redeemer": "a redeemer",
    "manager": "a manager",
    "inspector": "an inspector",
}


def _roles_said(roles: tuple[str, ...]) -> str:
    said = [ROLE_NAMES.get(role, f"a {role}") for role in roles]
    if len(said) <= 1:
        return said[0] if said else "no role yet"
    return ", ".join(said[:-1]) + " or " + said[-1]


def not_on_staff(badge: str) -> Refused:
    return Refused(
        "Badge not known",
        f"The badge {badge.strip()!r} is not on this hall's staff list, or no longer is. "
        "Scan it again; if it still fails, a manager adds you to the staff list.",
    )


def wrong_station(
    name: str, badge: str, roles: tuple[str, ...], station_roles: tuple[str, ...]
) -> Refused:
    """The person is on the staff but their role does not open this station."""
    who = f"{name} ({badge})"
    if station_roles == ("manager",):
        return Refused(
            "Managers only",
            f"{who} is not a manager: only a manager's badge opens the manager's station. "
            "Sign on at a booth, or ask a manager to sign on here.",
        )
    wanted = _roles_said(("seller", "redeemer", "manager"))
    return Refused(
        "Not for this station",
        f"{who} is {_roles_said(roles)}: a booth opens for {wanted}. Ask a manager if your "
        "role should change.",
    )


def no_pin_yet(name: str, badge: str) -> Refused:
    return Refused(
        "No PIN yet",
        f"This hall signs on with badge and PIN, and {name} ({badge}) has no PIN yet: a "
        f"manager sets one on the Roster tab (Set PIN), or with booth staff pin {badge}.",
    )


def unlocks(entry: str, signed_on: str) -> bool:
    """A badge tapped at a locked station unlocks it when it is the signed-on person's (the
    badge in any case)."""
    return bool(signed_on) and entry.strip().casefold() == signed_on.casefold()
