"""Cash with two people: a blind count, verified by a second person with another badge.

The person counting a drawer, a kiosk's cash box or the session's cash enters what they counted
without being shown what the ledger expects; only once the count is recorded does the answer
carry the expected figure and the variance. A second person then counts the same cash to the
same figure (they are not shown the first count either) and the count becomes verified; both
badges are on the record. A count by one person alone stays "not verified" everywhere it is
shown. Variances go to the day report per station and per person (the people who rang sales or
paid winners at that drawer in that session), and to a running list per person.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from pos.domain import books
from pos.domain.checks.cash import verifiable
from pos.domain.money import format_amount
from pos.domain.typed import parse_typed_amount
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import bingo_paper as paper_read
from pos.ledger.projections import books as books_read
from pos.ledger.projections import cash as cash_read
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import devices as devices_read
from pos.ledger.projections import hall as hall_read
from pos.ledger.projections import receipts as receipts_read
from pos.ledger.projections import sessions as sessions_read
from pos.ledger.projections import winners as winners_read
from pos.services import bingo_report, raffle_report
from pos.services.current_session import open_session_now
from pos.services.inputs import checked_input
from pos.services.station import Station

SESSION_CASH = "*"  # the count of the whole session's cash, not one drawer's
CASH_ROLES = ("seller", "redeemer", "manager")


def drawer_label(station: str) -> str:
    return "the session's cash" if station == SESSION_CASH else f"{station}'s drawer"


def _session(st: Station, session: str | None) -> str:
    if session:
        if sessions_read.session_game_date(st.ledger.conn, session) is None:
            raise BadInput("session", f"no session {session!r} on file")
        return session
    current = open_session_now(st)
    if current is not None:
        return current.id
    latest = sessions_read.latest_session(st.ledger.conn)
    if latest is None:
        raise BadInput("session", "no session has been held yet")
    return latest


def _station(st: Station, station: str | None, whole_session: bool) -> str:
    if whole_session:
        return SESSION_CASH
    name = station or st.id
    if st.ledger.public_key(name) is None:
        raise BadInput("station", f"{name!r} is not a station of this hall")
    return name


def station_expected(st: Station, sessions: Sequence[str], low: str, high: str, name: str) -> int:
    """Cents the ledger expects in a station's drawer or cash box over `sessions` (vouchers
    between the clock stamps `low` and `high`): cash in (sales, rentals, vouchers issued) less
    cash out (prizes, vouchers paid; voided sales are off the sales)."""
    conn = st.ledger.conn
    _, sold = deals_read.station_sales(conn, name, sessions)
    rented = devices_read.station_rentals(conn, name, sessions)
    paid = winners_read.station_paid(conn, name, sessions)
    # Every voucher a station issues stands for value it took in and did not give out as
    # tickets: cash for a voucher, cash for tickets a dispenser did not deliver, or the
    # unused part of a voucher it took as payment (whose whole value counts as paid out).
    _, vouchers_in = receipts_read.vouchers_issued(conn, low, high, station=name)
    _, vouchers_out = receipts_read.vouchers_redeemed(conn, low, high, by=name)
    cash = sold + rented + vouchers_in - paid - vouchers_out
    cash += raffle_report.station_takings(st, name, low, high)
    return cash + bingo_report.station_cash(st, name, sessions)


def day_bounds(st: Station, day: date) -> tuple[str, str]:
    """The clock stamps that bound the hall-local day `day`."""
    zone = ZoneInfo(st.hall.time_zone)
    start = datetime.combine(day, time(0), zone).astimezone(UTC)
    end = start + timedelta(days=1)
    return f"{int(start.timestamp() * 1000):013d}", f"{int(end.timestamp() * 1000):013d}"


def session_window(st: Station, session: str) -> tuple[str, str]:
    """The clock stamps that bound a session's cash recorded by time (raffle tickets, vouchers):
    from its opening to the next session's of the same game date. The day's first session
    starts at the day's start and its last ends at the day's end, so the day's sessions share
    out the day's cash, each stamp to one session."""
    conn = st.ledger.conn
    game_date = sessions_read.session_game_date(conn, session) or "1970-01-01"
    low, high = day_bounds(st, date.fromisoformat(game_date))
    opened = {
        name: bounds[0]
        for name in sessions_read.sessions_on(conn, game_date)
        if (bounds := paper_read.session_bounds(conn, name)) is not None
    }
    if session not in opened:
        return low, high
    start = opened[session]
    earlier = [stamp for name, stamp in opened.items() if name != session and stamp <= start]
    later = [stamp for name, stamp in opened.items() if name != session and stamp > start]
    return (start if earlier else low), (min(later) if later else high)


def expected(st: Station, session: str, station: str) -> int:
    """Cents the ledger expects in a drawer (or, for SESSION_CASH, in all of them) for a
    session: its sales and prizes, and the cash recorded by time within the session's window
    (never an earlier session's raffle tickets). Never shown to the person counting before
    their count is recorded."""
    low, high = session_window(st, session)
    names = (
        [n for n, _ in hall_read.stations(st.ledger.conn)] if station == SESSION_CASH else [station]
    )
    return sum(station_expected(st, [session], low, high, n) for n in names)


def _amount(amount: str) -> int:
    with checked_input("amount"):
        return parse_typed_amount(amount, "amount", allow_zero=True)  # "$412.50" too


def count(
    st: Station,
    amount: str,
    *,
    station: str | None = None,
    session: str | None = None,
    whole_session: bool = False,
    operator: str | None,
) -> dict[str, Any]:
    """Record a blind count. The answer, given only after the count is on the record, says
    what the ledger expected and the variance, and that the count awaits a second person."""
    by = st.operator(operator, *CASH_ROLES)
    cents = _amount(amount)
    with st.ledger.transaction():
        session_id = _session(st, session)
        name = _station(st, station, whole_session)
        event = st.append(
            "DrawerCounted",
            {"session": session_id, "station": name, "amount": cents, "by": by.badge},
        )
    return describe(st, session_id, name) | {"count": f"{event.origin}:{event.seq}"}


def verify(
    st: Station,
    amount: str,
    *,
    station: str | None = None,
    session: str | None = None,
    whole_session: bool = False,
    operator: str | None,
) -> dict[str, Any]:
    """A second person counts the same cash: same figure, another badge, and the count is
    verified (COUNT2)."""
    by = st.operator(operator, *CASH_ROLES)
    cents = _amount(amount)
    with st.ledger.transaction():
        session_id = _session(st, session)
        name = _station(st, station, whole_session)
        found = cash_read.count_of(st.ledger.conn, session_id, name)
        if found is None:
            raise NotFound(f"no count of {drawer_label(name)} is on file for {session_id}")
        origin, seq, counted, counted_by, _hlc = found
        done = books_read.verification(st.ledger.conn, origin, int(seq))
        refuse(
            verifiable(
                counted_by=counted_by,
                verifier=by.badge,
                counted=int(counted),
                recounted=cents,
                already=done[0] if done else None,
            )
        )
        _verifier_of_age(st, by.badge)
        st.append(
            "CountVerified",
            {
                "session": session_id,
                "station": name,
                "count": f"{origin}:{seq}",
                "amount": cents,
                "by": by.badge,
            },
        )
    return describe(st, session_id, name)


def _verifier_of_age(st: Station, badge: str) -> None:
    """MINOR (11VAC20-20-60 E): the second person answers for the session's cash, which is
    management of the game: 18 or over on the day, by the date of birth on file."""
    from pos.services.current_session import hall_date
    from pos.services.staff import staff_worker, worker_refusal

    refuse(
        worker_refusal(
            st,
            staff_worker(st, badge),
            day=hall_date(st, st.clock.now()),
            what="verifying a cash count",
            operating=True,
        )
    )


def describe(st: Station, session: str, station: str) -> dict[str, Any]:
    """A recorded count as the counter (after recording) and the reports see it."""
    conn = st.ledger.conn
    found = cash_read.count_of(conn, session, station)
    if found is None:
        raise NotFound(f"no count of {drawer_label(station)} is on file for {session}")
    origin, seq, counted, counted_by, _hlc = found
    check = books_read.verification(conn, origin, int(seq))
    verified_by = check[0] if check else None
    want = expected(st, session, station)
    people = (
        sorted(
            {
                p
                for name, _ in hall_read.stations(conn)
                for p in books_read.sellers_at(conn, name, session)
            }
        )
        if station == SESSION_CASH
        else books_read.sellers_at(conn, station, session)
    )
    return {
        "session": session,
        "station": station,
        "drawer": drawer_label(station),
        "counted": format_amount(int(counted)),
        "counted_by": counted_by,
        "expected": format_amount(want),
        "variance": format_amount(int(counted) - want),
        "variance_cents": int(counted) - want,
        "verified_by": verified_by,
        "status": books.count_status(counted_by, verified_by),
        "people": people,
        "count": f"{origin}:{seq}",
    }


def counts(st: Station, sessions: list[str] | tuple[str, ...]) -> list[dict[str, Any]]:
    """Every count standing in `sessions`, with its status and variance."""
    return [
        describe(st, session, station)
        for session, station, *_ in cash_read.counts_in(st.ledger.conn, sessions)
    ]


def session_now(st: Station) -> str | None:
    """The session a count goes to now: the open one, else the latest; None before any."""
    try:
        return _session(st, None)
    except BadInput:
        return None


def awaiting(st: Station, session: str | None = None) -> list[dict[str, Any]]:
    """Counts recorded and not yet verified: who counted and where, never the figures (the
    second person counts blind too)."""
    try:
        session_id = _session(st, session)
    except BadInput:
        return []
    return [
        {
            "session": c["session"],
            "station": c["station"],
            "drawer": c["drawer"],
            "counted_by": c["counted_by"],
        }
        for c in counts(st, [session_id])
        if c["status"] != "verified"
    ]


def variance_people(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The running list per person: how many counts of drawers they worked, how many were short,
    by how much. Each count's variance goes to every person who worked that drawer."""
    pairs = [
        (person, int(c["variance_cents"]))
        for c in rows
        if c["station"] != SESSION_CASH
        for person in c["people"] or ["(nobody rang)"]
    ]
    return [
        {
            "person": p.person,
            "counts": p.counts,
            "short": p.short,
            "over": p.over,
            "short_total": format_amount(p.short_cents),
            "over_total": format_amount(p.over_cents),
            "net": format_amount(p.net_cents),
        }
        for p in books.variance_by_person(pairs)
    ]


def variance_stations(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    totals: dict[str, list[int]] = {}
    for c in rows:
        totals.setdefault(c["station"], []).append(int(c["variance_cents"]))
    return [
        {
            "station": drawer_label(name),
            "counts": len(v),
            "short": sum(1 for x in v if x < 0),
            "net": format_amount(sum(v)),
        }
        for name, v in sorted(totals.items())
    ]


def running_list(st: Station) -> dict[str, Any]:
    """Every count on file: the variance per person and per station, all sessions."""
    sessions = [
        s for s, _ in books_read.sessions_between(st.ledger.conn, "0000-01-01", "9999-12-31")
    ]
    rows = counts(st, sessions)
    return {
        "counts": rows,
        "people": variance_people(rows),
        "stations": variance_stations(rows),
        "not_verified": sum(1 for c in rows if c["status"] != "verified"),
    }
