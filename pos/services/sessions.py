"""Sessions: a game date and number in the hall's time zone; sales happen inside one.

Opening and closing them: closing ends event games (deals) and both carry progressive seal
prizes (seals), so this module builds on deals and seals, and they on current_session."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pos.domain import books
from pos.domain.checks import sessions as session_checks
from pos.domain.flare import GameType
from pos.domain.typed import parse_date
from pos.errors import BadInput, refuse
from pos.ledger.projections import books as books_read
from pos.ledger.projections import closing as closing_read
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import devices as devices_read
from pos.ledger.projections import sessions as sessions_read
from pos.ledger.projections.sessions import Session
from pos.services.current_session import hall_date, open_session_now, require_open_session
from pos.services.deals import close_deal_in_transaction
from pos.services.inputs import checked_input
from pos.services.seals import carry_progressive_prizes
from pos.services.station import Station


def open_session(
    st: Station,
    *,
    operator: str | None,
    game_date: str | None = None,
    number: int | None = None,
    reason: str = "",
    into_reported_quarter: bool = False,
) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with st.ledger.transaction():
        current = open_session_now(st)
        refuse(session_checks.none_open(current.id if current else None))
        today = hall_date(st, st.clock.now())
        with checked_input("date"):  # 2026-11-28 or 11/28/2026
            day = parse_date(game_date) if game_date else today
        quarter = books.quarter(day.year, (day.month - 1) // 3 + 1).label
        reported = books_read.quarter_reported(st.ledger.conn, quarter)
        refuse(
            session_checks.game_date(
                day,
                today=today,
                training=st.hall.training,
                reason=reason,
                reported=quarter if reported else None,
                into_reported=into_reported_quarter,
            )
        )
        if number is None:
            number = sessions_read.last_session_number(st.ledger.conn, day.isoformat()) + 1
        elif number < 1:
            raise BadInput("number", f"{number} is not a session number (1 or more)")
        session_id = f"{day.isoformat()}/{number}"
        if sessions_read.session_held(st.ledger.conn, session_id):
            raise BadInput("number", f"session {session_id} was already held")
        resumed = deals_read.carried_over_serials(st.ledger.conn)
        dated = {"reason": reason.strip()} if day != today and reason.strip() else {}
        if reported and day != today:
            dated["into_reported_quarter"] = quarter
        st.append(
            "SessionOpened",
            {
                "session": session_id,
                "game_date": day.isoformat(),
                "number": number,
                "by": by.badge,
                "resumed": resumed,
                **dated,
            },
        )
        if "into_reported_quarter" in dated:
            st.append(
                "ExceptionFlagged",
                {
                    "flag": "session-in-reported-quarter",
                    "serial": None,
                    "ticket": None,
                    "detail": f"session {session_id} was opened into {quarter}, whose report "
                    f"was already produced ({dated.get('reason', '')}): file an amended report",
                    "by": by.badge,
                },
            )
    return {
        "progressive_carried": _carry_progressive(st),
        "session": session_id,
        "game_date": day.isoformat(),
        "number": number,
        "resumed": resumed,
    }


SCHEDULED_GAMES = ("pull-tab", "seal-card", "event")


def schedule_session(
    st: Station, game_date: str, *, games: Sequence[str], operator: str | None
) -> dict[str, Any]:
    """Record that sessions on `game_date` will sell `games` tickets (default: pull-tabs and
    seal cards): what C4 asks of a deal closed unfinished (SessionScheduled)."""
    by = st.operator(operator, "manager")
    with checked_input("date"):
        day = parse_date(game_date)
    chosen = sorted(set(games or ("pull-tab", "seal-card")), key=SCHEDULED_GAMES.index)
    with st.ledger.transaction():
        today = hall_date(st, st.clock.now())
        if day < today:
            raise BadInput("date", f"{day.isoformat()} is before today ({today.isoformat()})")
        st.append(
            "SessionScheduled", {"game_date": day.isoformat(), "games": chosen, "by": by.badge}
        )
        return {"game_date": day.isoformat(), "games": chosen, "schedule": scheduled(st)}


def scheduled(st: Station) -> list[dict[str, Any]]:
    return sessions_read.schedule(st.ledger.conn)


def close_session(
    st: Station, *, operator: str | None, without: dict[str, str] | None = None
) -> dict[str, Any]:
    """A booth or kiosk records its close marker (its last seq for the session). The manager
    closes the session hall-wide: only when it holds every other station's marker and events,
    or with a station named missing by its recorded decision (`without`: station -> reason).
    Unfinished deals carry over; event games end with the session (K5)."""
    if st.config.role != "manager":
        by = st.operator(operator, "seller", "manager")
        with st.ledger.transaction():
            session = require_open_session(st)
            event = st.append("StationClosedSession", {"session": session.id, "by": by.badge})
        return {"session": session.id, "marker": event.seq, "station": st.id}
    by = st.operator(operator, "manager")
    without = without or {}
    with st.ledger.transaction():
        session = require_open_session(st)
        missing = missing_stations(st, session.id)
        refuse(session_checks.hall_wide_close(session.id, missing, without))
        for name in missing:
            st.append(
                "StationMissingAtClose",
                {
                    "session": session.id,
                    "station": name,
                    "reason": without[name],
                    "manager": by.badge,
                },
            )
        closed = _close_hall_wide(st, session, by.badge)
    return {**closed, "missing": missing, "progressive_carried": _carry_progressive(st)}


def missing_stations(st: Station, session_id: str) -> list[str]:
    """Stations whose close marker, or whose events up to it, this station does not hold."""
    return closing_read.stations_not_closed(st.ledger.conn, session_id, here=st.id)


def _close_hall_wide(st: Station, session: Session, by: str) -> dict[str, Any]:
    in_play = deals_read.deals_in_play(st.ledger.conn)
    ended = []
    for serial, _, game, remaining in in_play:
        if game == GameType.EVENT:
            close_deal_in_transaction(st, serial, unsold=remaining, by=by, reason="K5")
            ended.append(serial)
    carried = [serial for serial, _, game, _ in in_play if game != GameType.EVENT]
    for device, buyer in devices_read.devices_not_returned(st.ledger.conn, session.id):
        st.append(
            "ExceptionFlagged",
            {
                "flag": "device-not-returned",
                "serial": None,
                "ticket": None,
                "detail": f"device {device} was not returned at the close of {session.id}"
                + (f" (rented to {buyer})" if buyer else ""),
                "by": by,
            },
        )
    st.append(
        "SessionClosed",
        {"session": session.id, "by": by, "carried_over": carried, "event_games_ended": ended},
    )
    return {"session": session.id, "carried_over": carried, "event_games_ended": ended}


def _carry_progressive(st: Station) -> list[dict[str, Any]]:
    return carry_progressive_prizes(st)
