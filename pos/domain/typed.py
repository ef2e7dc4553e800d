"""What people type, understood as they write it: dates (2026-11-28 or 11/28/2026), times
(17:30 or 5:30 PM), amounts ($412.50, 1,234.50), column headers ("Date of Birth"), roles in
any case, and the hall's time zone by its IANA name. What still cannot be read is refused
with a ValueError carrying `.field` and a correct example.

Pure: the standard library only (zoneinfo reads the system's zone database, nothing else).
"""

from __future__ import annotations

import re
from datetime import date, time
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pos.domain.money import InvalidAmount, parse_amount

MAX_TEXT = 40

DATE_EXAMPLE = "2026-11-28 or 11/28/2026"
TIME_EXAMPLE = "17:30 or 5:30 PM"
AMOUNT_EXAMPLE = "412.50 or $412.50"


class UnreadableInput(ValueError):
    """Typed text that is not what its field takes; `.field` names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


def _shown(text: object) -> str:
    value = repr(text)
    return value if len(value) <= MAX_TEXT + 2 else value[:MAX_TEXT] + "…"


# -- dates --------------------------------------------------------------------------------------

_ISO_DATE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})", re.ASCII)
_US_DATE = re.compile(r"([0-9]{1,2})[/.-]([0-9]{1,2})[/.-]([0-9]{4})", re.ASCII)


def parse_date(text: str, field: str = "date") -> date:
    """YYYY-MM-DD, or M/D/YYYY as people in the US write it (also M-D-YYYY, M.D.YYYY).
    Two-digit years are refused: 1/2/03 could be three different days."""
    if not isinstance(text, str):
        raise UnreadableInput(field, f"{_shown(text)} is not a date; write it like {DATE_EXAMPLE}")
    value = text.strip()
    iso = _ISO_DATE.fullmatch(value)
    us = None if iso else _US_DATE.fullmatch(value)
    try:
        if iso:
            return date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
        if us:
            return date(int(us.group(3)), int(us.group(1)), int(us.group(2)))
    except ValueError:
        raise UnreadableInput(
            field, f"{_shown(text)} is not a day of the calendar; write it like {DATE_EXAMPLE}"
        ) from None
    raise UnreadableInput(field, f"{_shown(text)} is not a date; write it like {DATE_EXAMPLE}")


# -- times of day -------------------------------------------------------------------------------

_TIME = re.compile(
    r"([0-9]{1,2})(?:[:.]([0-9]{2}))?\s*(?:([ap])\.?\s*m?\.?)?", re.ASCII | re.IGNORECASE
)


def parse_time(text: str, field: str = "time") -> time:
    """17:30, 5:30 PM, 5:30pm, 5 PM, 5:30 p.m., 12 AM (midnight), 12:15 PM (noon)."""
    if not isinstance(text, str):
        raise UnreadableInput(field, f"{_shown(text)} is not a time; write it like {TIME_EXAMPLE}")
    value = text.strip()
    matched = _TIME.fullmatch(value) if len(value) <= MAX_TEXT else None
    if matched is None or (matched.group(2) is None and matched.group(3) is None):
        raise UnreadableInput(field, f"{_shown(text)} is not a time; write it like {TIME_EXAMPLE}")
    hour, minute = int(matched.group(1)), int(matched.group(2) or 0)
    half = (matched.group(3) or "").lower()
    if half:
        if not 1 <= hour <= 12:
            raise UnreadableInput(
                field, f"{_shown(text)}: with AM or PM the hour is 1 to 12 ({TIME_EXAMPLE})"
            )
        hour = hour % 12 + (12 if half == "p" else 0)
    if hour > 23 or minute > 59:
        raise UnreadableInput(
            field, f"{_shown(text)} is not a time of day; write it like {TIME_EXAMPLE}"
        )
    return time(hour, minute)


# -- amounts ------------------------------------------------------------------------------------

_GROUPED = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?", re.ASCII)


def parse_typed_amount(text: str, field: str = "amount", *, allow_zero: bool = False) -> int:
    """An amount as a person types it -> cents: "412.50", "$412.50", "$ 1,234.50", "5".
    The rest of `money.parse_amount`'s rules hold (no negatives, at most two decimals)."""
    if not isinstance(text, str):
        return parse_amount(text, field, allow_zero=allow_zero)
    value = text.strip()
    if value.startswith("$"):
        value = value[1:].strip()
    if "," in value:
        if not _GROUPED.fullmatch(value):
            raise InvalidAmount(
                field,
                f"{_shown(text)} is not an amount (commas every three digits, like 1,234.50)",
            )
        value = value.replace(",", "")
    try:
        return parse_amount(value, field, allow_zero=allow_zero)
    except InvalidAmount as exc:
        raise InvalidAmount(field, f"{exc.reason}; write it like {AMOUNT_EXAMPLE}") from None


# -- column headers and roles -------------------------------------------------------------------

HEADER_SYNONYMS = {
    "dob": "date_of_birth",
    "birth_date": "date_of_birth",
    "birthdate": "date_of_birth",
    "born": "date_of_birth",
    "birthday": "date_of_birth",
    "badge_number": "badge",
    "badge_no": "badge",
    "badge_code": "badge",
    "organization": "organisation",
    "org": "organisation",
    "shift_date": "date",
    "day": "date",
    "start_time": "start",
    "starts": "start",
    "from": "start",
    "end_time": "end",
    "ends": "end",
    "to": "end",
    "full_name": "name",
    "worker": "name",
    "volunteer": "name",
}


def header_key(text: str) -> str:
    """A column header as people write it -> the key it means: "Date of Birth", "DOB",
    "date-of-birth" -> "date_of_birth"; "Organization" -> "organisation"."""
    words = re.findall(r"[a-z0-9]+", (text or "").strip().lower())
    key = "_".join(words)
    return HEADER_SYNONYMS.get(key, key)


def role_word(text: str) -> str:
    """A role in any case and with blanks around it: " Seller " -> "seller"."""
    return (text or "").strip().lower()


# -- time zones ---------------------------------------------------------------------------------

# Zones that are a fixed offset (wrong half the year where clocks change), or old aliases,
# and the IANA zone a US hall means by them.
ZONE_FOR = {
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "EST5EDT": "America/New_York",
    "US/EASTERN": "America/New_York",
    "US/EAST-INDIANA": "America/Indiana/Indianapolis",
    "US/MICHIGAN": "America/Detroit",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "CST6CDT": "America/Chicago",
    "US/CENTRAL": "America/Chicago",
    "MST": "America/Denver (or America/Phoenix in Arizona)",
    "MDT": "America/Denver",
    "MST7MDT": "America/Denver",
    "US/MOUNTAIN": "America/Denver",
    "US/ARIZONA": "America/Phoenix",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
    "PST8PDT": "America/Los_Angeles",
    "US/PACIFIC": "America/Los_Angeles",
    "US/ALASKA": "America/Anchorage",
    "HST": "Pacific/Honolulu",
    "US/HAWAII": "Pacific/Honolulu",
    "US/ALEUTIAN": "America/Adak",
    "US/SAMOA": "Pacific/Pago_Pago",
}
_DEPRECATED_PREFIXES = ("US/", "Etc/", "SystemV/", "Canada/", "Mexico/", "Brazil/", "Chile/")
_FIXED = re.compile(r"(?:UTC|GMT|UT|Z|ZULU|UCT|UNIVERSAL|GREENWICH)(?:[+-][0-9:]+)?", re.I)


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    return {name.casefold(): name for name in available_timezones()}


def time_zone(text: str, field: str = "time-zone") -> str:
    """The hall's IANA zone, by its canonical name (any case: "america/new_york" is taken).
    Refused, naming the zone to use: fixed offsets (EST, MST, HST, UTC, Etc/GMT+5), the
    POSIX-style rules (EST5EDT) and old aliases (US/Eastern)."""
    value = (text or "").strip()
    canonical = _zones().get(value.casefold())
    upper = value.upper()
    suggestion = ZONE_FOR.get(upper)
    if suggestion is None and (upper.startswith("ETC/") or _FIXED.fullmatch(value)):
        suggestion = "the hall's own zone, e.g. America/New_York"
    if suggestion is not None:
        raise UnreadableInput(
            field,
            f"{_shown(text)} is a fixed offset or an old alias, wrong half the year where "
            f"clocks change; use {suggestion}",
        )
    if canonical is None or "/" not in canonical:
        raise UnreadableInput(
            field, f"{_shown(text)} is not a time zone; use an IANA name like America/New_York"
        )
    if canonical.startswith(_DEPRECATED_PREFIXES):
        raise UnreadableInput(
            field,
            f"{_shown(text)} is an old alias; use the Area/City name, like America/New_York",
        )
    try:
        ZoneInfo(canonical)
    except (ZoneInfoNotFoundError, ValueError):  # pragma: no cover - listed but unreadable
        raise UnreadableInput(field, f"{_shown(text)} cannot be read here") from None
    return canonical
