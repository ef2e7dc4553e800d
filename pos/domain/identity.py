"""Names of halls, stations and staff, and the roles people and stations hold."""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from pos.domain.typed import UnreadableInput, parse_date

STATION_ROLES = ("manager", "booth", "kiosk")
STAFF_ROLES = ("seller", "redeemer", "manager", "inspector", "treasurer")

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
    text = text.strip().lower()
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
    roles = [role.strip().lower() for role in roles]  # any case: "Seller", "MANAGER"
    for role in roles:
        if role not in STAFF_ROLES:
            raise InvalidIdentity("role", f"{role!r} is not one of {', '.join(STAFF_ROLES)}")
    return sorted(set(roles))


MAX_NAME = 120


def _shown(text: str) -> str:
    """`text` safe to print in a message: escapes instead of control or formatting characters."""
    shown = text[:MAX_NAME].encode("ascii", "backslashreplace").decode("ascii")
    return repr(shown) + ("..." if len(text) > MAX_NAME else "")


def person_name(text: str, field: str = "name") -> str:
    """The one rule for the name of a person (staff, a roster's worker, a player, a witness)
    and of the hall's organisation and location: printable characters only, spaces collapsed,
    1 to MAX_NAME characters. Refused: control characters (an escape sequence that clears a
    terminal), formatting characters such as the bidi overrides (U+202E turns a report's line
    around), line breaks and tabs."""
    if not isinstance(text, str):
        raise InvalidIdentity(field, "is not text")
    for char in text:
        if unicodedata.category(char) != "Zs" and not char.isprintable():
            raise InvalidIdentity(
                field,
                f"{_shown(text)} holds U+{ord(char):04X} "
                f"({unicodedata.name(char, 'a control character')}): "
                "a name is printable characters only",
            )
    # every kind of space (a no-break space, say) is a space; runs of them are one
    value = " ".join("".join(" " if unicodedata.category(c) == "Zs" else c for c in text).split())
    if not value or len(value) > MAX_NAME:
        raise InvalidIdentity(field, f"{_shown(text)} is not a name (1 to {MAX_NAME} characters)")
    return value


def initials(text: str) -> str:
    """A player's initials as stored: up to three letters (nothing else of the text)."""
    value = "".join(ch for ch in text.upper() if ch.isalpha())[:3]
    if not value:
        raise InvalidIdentity("initials", "holds no letters")
    return value


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?[0-9]+(\.[0-9]+)?$")


def csv_cell(value: object) -> object:
    """A cell as a CSV export writes it: text a spreadsheet would run as a formula (it starts
    with =, +, -, @, a tab or a carriage return) gets a leading apostrophe, so it shows as the
    text it is. Numbers (-3.00) and everything that is not text stay as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.match(value):
        return "'" + value
    return value


def date_of_birth(text: str, today: date) -> str:
    """YYYY-MM-DD or M/D/YYYY (pos.domain.typed), before today and after 1900."""
    try:
        value = parse_date(text, "dob")
    except UnreadableInput as exc:
        raise InvalidIdentity("dob", exc.reason) from None
    if value >= today or value.year < 1900:
        raise InvalidIdentity("dob", f"{text!r} is not a plausible date of birth")
    return value.isoformat()
