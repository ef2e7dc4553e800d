"""Sessions (SESSION, CLOSE): sales happen inside the one open session; the manager closes it
hall-wide only with every station's close marker, or names on the record who is missing."""

from __future__ import annotations

from collections.abc import Container, Sequence
from datetime import date

from pos.domain.checks import Refusal


def session_open(open_session: str | None) -> Refusal | None:
    """SESSION: a command that sells, pays or rents needs an open session (its id)."""
    if open_session is None:
        return Refusal(
            "SESSION", "no session is open: a manager opens one with 'booth session open'"
        )
    return None


def none_open(open_session: str | None) -> Refusal | None:
    """SESSION: a session opens only when none is open (`open_session`: the one that is)."""
    if open_session is not None:
        return Refusal("SESSION", f"session {open_session} is still open; close it first")
    return None


def game_date(
    day: date,
    *,
    today: date,
    training: bool,
    reason: str,
    reported: str | None,
    into_reported: bool,
) -> Refusal | None:
    """GAMEDATE: a session of a real hall opens on `today`; on a past `day` only with a
    `reason`, and into a quarter whose report was produced (`reported`: "2026 Q3", else None)
    only when the manager says so (`into_reported`). Never on a future day. A training hall
    scripts its dates."""
    if training or day == today:
        return None
    shown = day.isoformat()
    if day > today:
        return Refusal(
            "GAMEDATE", f"{shown} is after today ({today.isoformat()}): a session opens today"
        )
    if not reason.strip():
        return Refusal(
            "GAMEDATE",
            f"{shown} is before today ({today.isoformat()}): say why on the record (--reason)",
        )
    if reported is not None and not into_reported:
        return Refusal(
            "GAMEDATE",
            f"{shown} is in {reported}, whose report has been produced: its figures would "
            "change; if so, say so (--into-reported-quarter), and file an amended report",
        )
    return None


def hall_wide_close(
    session: str, missing: Sequence[str], without: Container[str]
) -> Refusal | None:
    """CLOSE: every station `missing` (no close marker or events held) must be named in
    `without`, the manager's recorded decision to close without it."""
    unexplained = [name for name in missing if name not in without]
    if unexplained:
        return Refusal(
            "CLOSE",
            f"session {session} cannot close yet: no close marker or events "
            f"from {', '.join(unexplained)}; sync, or close without them "
            "(--without STATION --reason TEXT)",
        )
    return None


def station_open(session: str, *, closed_at: str | None) -> Refusal | None:
    """CLOSE: this station, having recorded its close marker for `session` (at `closed_at`, the
    hall's local time), sells and pays nothing more in it until a manager reopens it."""
    if closed_at is None:
        return None
    return Refusal(
        "CLOSE",
        f"closed for session {session} at {closed_at}",
    )


def reopenable(session: str, station: str, *, closed: bool) -> Refusal | None:
    """CLOSE: only a station that closed for the session open now is reopened."""
    if not closed:
        return Refusal(
            "CLOSE", f"{station} has not closed for session {session}: nothing to reopen"
        )
    return None
