"""The hall's date and the session open now: what every command that sells, pays or reports
asks first. Opening and closing sessions is pos/services/sessions.py, which builds on this."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from pos.domain.checks import sessions as session_checks
from pos.errors import refuse
from pos.ledger.projections import sessions as sessions_read
from pos.ledger.projections.sessions import Session
from pos.services.station import Station


def hall_date(st: Station, at: datetime) -> date:
    return at.astimezone(ZoneInfo(st.hall.time_zone)).date()


def open_session_now(st: Station) -> Session | None:
    return sessions_read.open_session(st.ledger.conn)


def require_open_session(st: Station) -> Session:
    session = open_session_now(st)
    refuse(session_checks.session_open(session.id if session else None))
    assert session is not None
    return session
