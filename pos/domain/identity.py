"""Names of halls, stations and staff, and the roles people and stations hold."""

from __future__ import annotations

import re
from datetime import date

STATION_ROLES = ("manager", "booth", "kiosk")
STAFF_ROLES = ("seller", "redeemer", "manager", "inspector")

_STATION_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")
_BADGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class InvalidIdentity(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def station_id(text: str) -> str:
    value = text.strip().lower()
    if not _STATION_ID.match(value):
        raise InvalidIdentity(
            "station", f"{text!r} is not a station name (a-z, 0-9 and '-', at most 32)"
        )
    return value


def station_role(text: str) -> str:
    if text not in STATION_ROLES:
        raise InvalidIdentity("role", f"{text!r} is not one of {', '.join(STATION_ROLES)}")
    return text


def badge(text: str) -> str:
    value = text.strip()
    if not _BADGE.match(value):
        raise InvalidIdentity("badge", f"{text!r} is not a badge code (letters, digits, . _ -)")
    return value


def staff_roles(roles: list[str] | tuple[str, ...]) -> list[str]:
    if not roles:
        raise InvalidIdentity("role", "give at least one role")
    for role in roles:
        if role not in STAFF_ROLES:
            raise InvalidIdentity("role", f"{role!r} is not one of {', '.join(STAFF_ROLES)}")
    return sorted(set(roles))


def person_name(text: str) -> str:
    value = " ".join(text.split())
    if not value or len(value) > 120:
        raise InvalidIdentity("name", f"{text!r} is not a name (1 to 120 characters)")
    return value


def date_of_birth(text: str, today: date) -> str:
    try:
        value = date.fromisoformat(text.strip())
    except ValueError:
        raise InvalidIdentity("dob", f"{text!r} is not a date (YYYY-MM-DD)") from None
    if value >= today or value.year < 1900:
        raise InvalidIdentity("dob", f"{text!r} is not a plausible date of birth")
    return value.isoformat()
