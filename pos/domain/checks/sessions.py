"""Sessions (SESSION, CLOSE): sales happen inside the one open session; the manager closes it
hall-wide only with every station's close marker, or names on the record who is missing."""

from __future__ import annotations

from collections.abc import Container, Sequence

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
