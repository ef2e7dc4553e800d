"""The hall's date and the session open now: what every command that sells, pays or reports
asks first. Opening and closing sessions is pos/services/sessions.py, which builds on this."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from pos.errors import RuleRefused
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections.deals import Session
from pos.services.station import Station


def hall_date(st: Station, at: datetime) -> date:
    return at.astimezone(ZoneInfo(st.hall.time_zone)).date()


def open_session_now(st: Station) -> Session | None:
    return deals_read.open_session(st.ledger.conn)


def require_open_session(st: Station) -> Session:
    session = open_session_now(st)
    if session is None:
        raise RuleRefused(
            "SESSION", "no session is open: a manager opens one with 'booth session open'"
        )
    return session
