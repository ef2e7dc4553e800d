"""The one place Booth reads the time. Everything below takes `now` as a parameter."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Protocol

from pos.errors import BadInput, RuleRefused

NOW_VARIABLE = "BOOTH_NOW"


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that says what it is told: training halls' scripted days, and tests."""

    def __init__(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError(f"a fixed clock needs an aware time, not {at.isoformat()}")
        self.at = at

    def now(self) -> datetime:
        return self.at


def parse_instant(text: str, field: str = NOW_VARIABLE) -> datetime:
    try:
        at = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(field, f"not an ISO time: {text!r}") from None
    if at.tzinfo is None:
        raise BadInput(field, f"give a time zone or Z: {text!r}")
    return at.astimezone(UTC)


def clock_for(training: bool, environ: dict[str, str] | None = None) -> Clock:
    """System time, or BOOTH_NOW where the hall is a training hall (and only there)."""
    env = os.environ if environ is None else environ
    value = env.get(NOW_VARIABLE)
    if not value:
        return SystemClock()
    if not training:
        raise RuleRefused(
            "TRAINING",
            f"{NOW_VARIABLE}={value} is refused: only a training hall may set its clock",
        )
    return FixedClock(parse_instant(value))
