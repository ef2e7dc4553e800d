"""The bookkeeper's part of the day report: the day's cash counts (verified or not, with the
variance per station and per person), the deposits due and overdue, and the state's reports due
next. Hooked into `reports.day_report` with one line, so the day report's own code stays apart."""

from __future__ import annotations

from datetime import date
from typing import Any

from pos.services import books_cash, books_deposits, books_quarter
from pos.services.station import Station


def additions(st: Station, day: date, sessions: tuple[str, ...]) -> dict[str, Any]:
    counts = books_cash.counts(st, sessions)
    reminders = books_deposits.reminders(st, day, amounts=False)
    return {
        "counts": counts,
        "variance": {
            "stations": books_cash.variance_stations(counts),
            "people": books_cash.variance_people(counts),
        },
        "deposits_due": reminders,
        # the day's receipts go to the bank by this day (the hall's rulebook: days, holidays)
        "deposit_by": books_deposits.due_date(st, day).isoformat(),
        "reports_due": books_quarter.due_next(st, day),
    }
