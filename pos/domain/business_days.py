"""Business days: weekends and a state's legal holidays are not business days.

11VAC20-20-80 D: a session's receipts are deposited "by the second business day following the
session"; electronic gaming receipts "at least once every seven calendar days". Which days are
holidays is a calendar the hall's rulebook names (Settings.holiday_calendar), so a hall in
another state names another calendar here, and Booth's deadlines follow.

Virginia (Code of Virginia § 2.2-3300, as amended in 2020: Lee-Jackson Day removed and Election
Day added, Juneteenth added): New Year's Day (1 January); Martin Luther King, Jr., Day (third
Monday in January); George Washington Day (third Monday in February); Memorial Day (last Monday
in May); Juneteenth (19 June); Independence Day (4 July); Labor Day (first Monday in September);
Columbus Day and Yorktown Victory Day (second Monday in October); Election Day (the Tuesday
after the first Monday in November); Veterans Day (11 November); Thanksgiving Day (fourth
Thursday in November) and the Friday after it; Christmas Day (25 December). A holiday that falls
on a Saturday is observed the Friday before, on a Sunday the Monday after (§ 2.2-3300, last
paragraph). Christmas Eve is not in the statute: when the Governor closes state offices on a
further day, that day cannot be computed and is not here.

Pure: the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from functools import lru_cache

CITATION = (
    "Code of Virginia § 2.2-3300 (legal holidays; as amended 2020, Lee-Jackson Day removed, "
    "Election Day and Juneteenth added); 11VAC20-20-80 D (business days)"
)


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The n-th `weekday` (Monday 0) of a month; n = -1 for the last."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    following = date(year + (month == 12), month % 12 + 1, 1)
    last = following - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


MONDAY, TUESDAY, THURSDAY, FRIDAY = 0, 1, 3, 4


def virginia_holidays(year: int) -> dict[date, str]:
    """Virginia's legal holidays of `year` (§ 2.2-3300), each on the day it is observed."""
    labor_day = _nth_weekday(year, 9, MONDAY, 1)
    thanksgiving = _nth_weekday(year, 11, THURSDAY, 4)
    first_monday_november = _nth_weekday(year, 11, MONDAY, 1)
    days = {
        date(year, 1, 1): "New Year's Day",
        _nth_weekday(year, 1, MONDAY, 3): "Martin Luther King, Jr., Day",
        _nth_weekday(year, 2, MONDAY, 3): "George Washington Day",
        _nth_weekday(year, 5, MONDAY, -1): "Memorial Day",
        date(year, 6, 19): "Juneteenth",
        date(year, 7, 4): "Independence Day",
        labor_day: "Labor Day",
        _nth_weekday(year, 10, MONDAY, 2): "Columbus Day and Yorktown Victory Day",
        first_monday_november + timedelta(days=1): "Election Day",
        date(year, 11, 11): "Veterans Day",
        thanksgiving: "Thanksgiving Day",
        thanksgiving + timedelta(days=1): "Friday after Thanksgiving",
        date(year, 12, 25): "Christmas Day",
    }
    observed: dict[date, str] = {}
    for day, name in days.items():
        if day.weekday() == 5:
            day, name = day - timedelta(days=1), f"{name} (observed)"
        elif day.weekday() == 6:
            day, name = day + timedelta(days=1), f"{name} (observed)"
        observed[day] = name
    return observed


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
