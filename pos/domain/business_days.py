"""Business days: weekends and a state's legal holidays are not business days.

11VAC20-20-80 D: a session's receipts are deposited "by the second business day following the
session"; electronic gaming receipts "at least once every seven calendar days". Which days are
holidays is a calendar the hall's rulebook names (Settings.holiday_calendar), so a hall in
another state names another calendar here, and Booth's deadlines follow.

Virginia (Code of Virginia § 2.2-3300): the calendar comes from the `holidays` package (United
States, subdivision VA), whose maintainers keep it current as the statute changes (Lee-Jackson
Day removed in 2020, Election Day and Juneteenth added, Inauguration Day on the 20th of January
after a presidential election), with the statute's rule that a holiday on a Saturday is
observed the Friday before and one on a Sunday the Monday after. tests/test_books.py holds the
statute's own list and checks the package against it. A day the Governor closes state offices
(Christmas Eve, say) cannot be computed and is not here.

Pure: the standard library and the `holidays` package's data.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from functools import lru_cache

CITATION = (
    "Code of Virginia § 2.2-3300 (legal holidays; as amended 2020, Lee-Jackson Day removed, "
    "Election Day and Juneteenth added; Inauguration Day); 11VAC20-20-80 D (business days)"
)


# The package's names where § 2.2-3300 words a day otherwise.
_STATUTE_NAMES = {
    "Martin Luther King Jr. Day": "Martin Luther King, Jr., Day",
    "Juneteenth National Independence Day": "Juneteenth",
    "Indigenous Peoples' Day": "Columbus Day and Yorktown Victory Day",
    "Columbus Day": "Columbus Day and Yorktown Victory Day",
    "Day After Thanksgiving": "Friday after Thanksgiving",
}


def _statute_name(name: str) -> str:
    names = []
    for part in name.split("; "):
        base, observed, _ = part.partition(" (observed)")
        names.append(_STATUTE_NAMES.get(base, base) + observed)
    return "; ".join(names)


def virginia_holidays(year: int) -> dict[date, str]:
    """Virginia's legal holidays of `year` (§ 2.2-3300) on the weekdays they are observed."""
    # The package takes 50 ms to import: only the commands that count business days pay it.
    from holidays import country_holidays

    found = country_holidays("US", subdiv="VA", years=year)
    return {day: _statute_name(str(n)) for day, n in sorted(found.items()) if day.weekday() < 5}


def no_holidays(year: int) -> dict[date, str]:
    return {}


#: calendar name -> the holidays of a year. A new state's calendar is one more entry.
CALENDARS: dict[str, Callable[[int], dict[date, str]]] = {
    "virginia": virginia_holidays,
    "none": no_holidays,
}


@lru_cache(maxsize=256)
def _observed(calendar: str, year: int) -> tuple[tuple[date, str], ...]:
    rule = CALENDARS[calendar]
    found = {d: n for y in (year, year + 1) for d, n in rule(y).items() if d.year == year}
    return tuple(sorted(found.items()))


def holidays(calendar: str, year: int) -> dict[date, str]:
    """The calendar's holidays observed in `year` (a 1 January on a Saturday is observed on
    31 December of the year before, so that year's list holds it)."""
    return dict(_observed(calendar, year))


def holiday(day: date, calendar: str) -> str | None:
    """The holiday's name when `day` is one, else None."""
    return next((name for d, name in _observed(calendar, day.year) if d == day), None)


def is_business_day(day: date, calendar: str) -> bool:
    return day.weekday() < 5 and holiday(day, calendar) is None


def add_business_days(day: date, count: int, calendar: str) -> date:
    """The `count`-th business day after `day` (`day` itself never counts)."""
    found = 0
    while found < count:
        day += timedelta(days=1)
        if is_business_day(day, calendar):
            found += 1
    return day


def skipped(start: date, end: date, calendar: str) -> list[tuple[date, str]]:
    """The days after `start` up to `end` that are not business days, and why."""
    out = []
    day = start + timedelta(days=1)
    while day <= end:
        name = holiday(day, calendar)
        if name is not None:
            out.append((day, name))
        elif day.weekday() >= 5:
            out.append((day, "Saturday" if day.weekday() == 5 else "Sunday"))
        day += timedelta(days=1)
    return out
