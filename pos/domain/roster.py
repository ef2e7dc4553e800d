"""Shift rosters: the CSV a hall imports, and the shifts it describes.

Columns (any order, a header row, extra columns ignored; headers as people write them, "Date of
Birth" or "DOB" for date_of_birth): `name,date_of_birth,badge,organisation,date,start,end,duty`;
dates YYYY-MM-DD or M/D/YYYY, times 17:30 or 5:30 PM in the hall's time zone, an end before the
start runs past midnight; duty one of DUTIES (any case). An optional `session` column names the
bingo session the shift works (`YYYY-MM-DD/N`, on the shift's date): rule D keeps its worker from
playing at that session, from before the shift starts.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from pos.domain import identity, typed

REQUIRED_COLUMNS = (
    "name",
    "date_of_birth",
    "badge",
    "organisation",
    "date",
    "start",
    "end",
    "duty",
)
DUTIES = ("sell", "redeem", "bingo", "count", "manage")
# Who is "involved in the sale or redemption" of pull-tabs (rule D, first clause: sell, redeem,
# and the people counting and managing the booth's money) and "in the conduct of bingo".
PULL_TAB_DUTIES = frozenset({"sell", "redeem", "count", "manage"})
BINGO_DUTIES = frozenset({"bingo", "manage"})
MAX_ROWS = 200_000
_SESSION = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})/([1-9][0-9]{0,2})$")


class InvalidRoster(ValueError):
    """A roster file with errors: every bad row, by line number and field."""

    def __init__(self, errors: list[str]) -> None:
        shown = errors[:50]
        more = f"\n(and {len(errors) - 50} more)" if len(errors) > 50 else ""
        super().__init__("roster: " + "\n".join(shown) + more)
        self.field = "roster"
        self.errors = errors


@dataclass(frozen=True)
class Shift:
    name: str
    date_of_birth: date | None
    badge: str
    organisation: str
    day: date
    start: time
    end: time
    duty: str
    session: str | None = None  # the session it works ("2026-11-28/1"), when the roster says

    def span(self, zone: ZoneInfo) -> tuple[datetime, datetime]:
        """The shift's start and end as aware instants; an end before the start is next day."""
        begins = datetime.combine(self.day, self.start, zone)
        ends_on = self.day + timedelta(days=1) if self.end <= self.start else self.day
        return begins, datetime.combine(ends_on, self.end, zone)

    def hall_days(self, zone: ZoneInfo) -> list[date]:
        """Every calendar day (hall time) any part of the shift falls on."""
        begins, ends = self.span(zone)
        last = (ends - timedelta(microseconds=1)).date()
        days, day = [], begins.date()
        while day <= last:
            days.append(day)
            day += timedelta(days=1)
        return days

    @property
    def key(self) -> str:
        """Identifies a shift, so importing the same file twice changes nothing."""
        text = "|".join(
            (
                self.badge,
                self.organisation.casefold(),
                self.day.isoformat(),
                self.start.isoformat("minutes"),
                self.end.isoformat("minutes"),
                self.duty,
                *((self.session,) if self.session else ()),
            )
        )
        return hashlib.sha256(text.encode()).hexdigest()[:24]


def _date(text: str) -> date:
    return typed.parse_date(text)


def _time(text: str) -> time:
    return typed.parse_time(text)


def parse_shift_fields(row: dict[str, str], today: date) -> tuple[Shift | None, list[str]]:
    """One row -> a Shift, or the list of '<field>: <problem>' it has."""
    problems: list[str] = []
    name = ""
    try:
        name = identity.person_name(row.get("name") or "")
    except identity.InvalidIdentity as exc:
        problems.append(str(exc))
    badge = (row.get("badge") or "").strip()
    if not badge or len(badge) > 64 or not all(ch.isalnum() or ch in "._-" for ch in badge):
        problems.append(f"badge: {badge!r} is not a badge code")
    organisation = ""
    try:
        organisation = identity.person_name(row.get("organisation") or "", "organisation")
    except identity.InvalidIdentity as exc:
        problems.append(str(exc))
    dob: date | None = None
    if (row.get("date_of_birth") or "").strip():
        try:
            dob = _date(row["date_of_birth"])
            if dob >= today or dob.year < 1900:
                problems.append(f"date_of_birth: {row['date_of_birth']!r} is not plausible")
        except ValueError:
            problems.append(
                f"date_of_birth: {row['date_of_birth']!r} is not a date (like {typed.DATE_EXAMPLE})"
            )
    day = start = end = None
    try:
        day = _date(row.get("date") or "")
    except ValueError:
        problems.append(f"date: {row.get('date')!r} is not a date (like {typed.DATE_EXAMPLE})")
    try:
        start = _time(row.get("start") or "")
    except ValueError:
        problems.append(f"start: {row.get('start')!r} is not a time (like {typed.TIME_EXAMPLE})")
    try:
        end = _time(row.get("end") or "")
    except ValueError:
        problems.append(f"end: {row.get('end')!r} is not a time (like {typed.TIME_EXAMPLE})")
    duty = typed.role_word(row.get("duty") or "")
    if duty not in DUTIES:
        problems.append(f"duty: {row.get('duty')!r} is not one of {', '.join(DUTIES)}")
    session = (row.get("session") or "").strip() or None
    if session is not None:
        matched = _SESSION.match(session)
        if matched is None:
            problems.append(f"session: {session[:40]!r} is not a session (YYYY-MM-DD/N)")
        elif day is not None and matched.group(1) != day.isoformat():
            problems.append(f"session: {session} is not on the shift's date {day.isoformat()}")
    if problems or day is None or start is None or end is None:
        return None, problems
    if start == end:
        return None, ["end: the shift starts and ends at the same time"]
    return Shift(name, dob, badge, organisation, day, start, end, duty, session), []


def parse_roster(text: str, today: date) -> list[Shift]:
    """Every shift in a roster CSV, or InvalidRoster listing every bad row (all or nothing)."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [typed.header_key(h or "") for h in (reader.fieldnames or [])]
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        raise InvalidRoster([f"line 1: the header lacks {', '.join(missing)}"])
    reader.fieldnames = header
    shifts: list[Shift] = []
    errors: list[str] = []
    for number, row in enumerate(reader, start=2):
        if number > MAX_ROWS:
            raise InvalidRoster([f"line {number}: more than {MAX_ROWS} rows"])
        if not any((value or "").strip() for value in row.values() if isinstance(value, str)):
            continue
        shift, problems = parse_shift_fields({k: v or "" for k, v in row.items() if k}, today)
        errors.extend(f"line {number}: {problem}" for problem in problems)
        if shift is not None:
            shifts.append(shift)
    if errors:
        raise InvalidRoster(errors)
    return shifts
