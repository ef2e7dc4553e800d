"""The manager's day: totals per deal, product line, station and operator; voids, blocks,
overrides and exceptions; cash expected against counted. Computed from projections that are kept
up to date event by event, never by rescanning the log."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pos.domain.hlc import Stamp
from pos.domain.money import format_amount, parse_amount
from pos.errors import BadInput
from pos.services.inputs import checked_input
from pos.services.sessions import hall_date, open_session_now
from pos.services.station import Station

PRODUCT_LINES = (("pull-tab", "pull-tabs"), ("seal-card", "seal cards"), ("event", "event games"))


@dataclass(frozen=True)
class Scope:
    day: date
    sessions: tuple[str, ...]
    low: str  # hlc bounds of the hall-local day
    high: str


def scope(st: Station, day: str | None, session: str | None) -> Scope:
    try:
        when = date.fromisoformat(day) if day else hall_date(st, st.clock.now())
    except ValueError:
        raise BadInput("date", f"{day!r} is not YYYY-MM-DD") from None
    if session:
        row = st.ledger.conn.execute(
            "SELECT game_date FROM p_sessions WHERE session = ?", (session,)
        ).fetchone()
        if row is None:
            raise BadInput("session", f"no session {session!r} on file")
        when, sessions = date.fromisoformat(row[0]), (session,)
    else:
        sessions = tuple(
            row[0]
            for row in st.ledger.conn.execute(
                "SELECT session FROM p_sessions WHERE game_date = ? ORDER BY number",
                (when.isoformat(),),
            )
        )
    zone = ZoneInfo(st.hall.time_zone)
    start = datetime.combine(when, time(0), zone).astimezone(UTC)
    end = start + timedelta(days=1)
    return Scope(
        when,
        sessions,
        f"{int(start.timestamp() * 1000):013d}",
        f"{int(end.timestamp() * 1000):013d}",
    )


def _in(values: tuple[str, ...]) -> str:
    return ",".join("?" for _ in values) or "NULL"


def _money(cents: int | None) -> str:
    return format_amount(int(cents or 0))


def day_report(st: Station, day: str | None = None, session: str | None = None) -> dict[str, Any]:
    sc = scope(st, day, session)
    q = st.ledger.conn.execute
    ss = sc.sessions
    sales = {
        row[0]: (int(row[1]), int(row[2]))
        for row in q(
            f"SELECT serial, sum(qty), sum(gross) FROM p_session_sales "
            f"WHERE session IN ({_in(ss)}) GROUP BY serial",
            ss,
        )
    }
    paid_rows = q(
        f"SELECT serial, amount, kind, count(*), sum(amount) FROM p_redemptions "
        f"WHERE session IN ({_in(ss)}) GROUP BY serial, amount, kind",
        ss,
    ).fetchall()
    paid: dict[str, int] = {}
    tiers: dict[str, list[dict[str, Any]]] = {}
    for serial, amount, kind, count, total in paid_rows:
        paid[serial] = paid.get(serial, 0) + int(total)
        tiers.setdefault(serial, []).append(
            {"amount": _money(amount), "kind": kind, "count": int(count)}
        )
    serials = sorted(set(sales) | set(paid))
    deals = []
    lines = {key: {"tickets_sold": 0, "gross": 0, "prizes_paid": 0} for key, _ in PRODUCT_LINES}
    for serial in serials:
        row = q(
            "SELECT game, name, form, price, tickets, prizes_total, state FROM p_deals "
            "WHERE serial = ?",
            (serial,),
        ).fetchone()
        game, name, form, price, tickets, prizes_total, state = row or ("?", "?", "", 0, 0, 0, "")
        sold, gross = sales.get(serial, (0, 0))
        prizes = paid.get(serial, 0)
        ideal_gross = int(tickets or 0) * int(price or 0)
        ideal_net = ideal_gross - int(prizes_total or 0)
        deals.append(
            {
                "serial": serial,
                "game": game,
                "name": name,
                "form": form,
                "price": _money(price),
                "tickets_sold": sold,
                "gross": _money(gross),
                "prizes_paid": _money(prizes),
                "prizes_by_tier": tiers.get(serial, []),
                "net": _money(gross - prizes),
                "ideal_gross": _money(ideal_gross),
                "ideal_net": _money(ideal_net),
                "state": state,
            }
        )
        if game in lines:
            lines[game]["tickets_sold"] += sold
            lines[game]["gross"] += gross
            lines[game]["prizes_paid"] += prizes
    rentals = q(
        f"SELECT count(*), coalesce(sum(amount), 0) FROM p_rentals WHERE session IN ({_in(ss)})", ss
    ).fetchone()
    vouchers_issued = q(
        "SELECT count(*), coalesce(sum(amount), 0) FROM p_vouchers "
        "WHERE issued_hlc >= ? AND issued_hlc < ?",
        (sc.low, sc.high),
    ).fetchone()
    vouchers_paid = q(
        "SELECT count(*), coalesce(sum(amount), 0) FROM p_vouchers "
        "WHERE redeemed_hlc >= ? AND redeemed_hlc < ?",
        (sc.low, sc.high),
    ).fetchone()
    voids = q(
        "SELECT kind, count(*), coalesce(sum(amount), 0) FROM p_voids "
        "WHERE hlc >= ? AND hlc < ? GROUP BY kind",
        (sc.low, sc.high),
    ).fetchall()
    void_count = sum(int(r[1]) for r in voids)
    void_amount = sum(int(r[2]) for r in voids)
    gross = sum(sales.get(s, (0, 0))[1] for s in serials)
    prizes_paid = sum(paid.values())
    stations = _stations(st, sc)
    return {
        "training": st.hall.training,
        "organisation": st.hall.organisation,
        "location": st.hall.location,
        "date": sc.day.isoformat(),
        "sessions": list(ss),
        "gross": _money(gross),
        "prizes_paid": _money(prizes_paid),
        "net": _money(gross - prizes_paid),
        "deals": deals,
        "products": [
            {
                "line": label,
                "tickets_sold": v["tickets_sold"],
                "gross": _money(v["gross"]),
                "prizes_paid": _money(v["prizes_paid"]),
                "net": _money(v["gross"] - v["prizes_paid"]),
            }
            for key, label in PRODUCT_LINES
            for v in [lines[key]]
        ],
        "rentals": {"count": int(rentals[0]), "gross": _money(rentals[1])},
        "vouchers": {
            "issued": {"count": int(vouchers_issued[0]), "amount": _money(vouchers_issued[1])},
            "redeemed": {"count": int(vouchers_paid[0]), "amount": _money(vouchers_paid[1])},
        },
        "voids": {
            "count": void_count,
            "amount": _money(void_amount),
            "by_kind": {r[0]: {"count": int(r[1]), "amount": _money(r[2])} for r in voids},
        },
        "blocked_purchases": [
            dict(r)
            for r in st.ledger.db.query(
                "SELECT origin, rule, buyer, serial, reason, by FROM p_blocked WHERE day = ? "
                "ORDER BY origin, seq",
                [sc.day.isoformat()],
            )
        ],
        "overrides": [
            dict(r)
            for r in st.ledger.db.query(
                "SELECT rule, reason, manager, subject FROM p_overrides WHERE hlc >= ? AND hlc < ? "
                "ORDER BY hlc",
                [sc.low, sc.high],
            )
        ],
        "exceptions": _exceptions(st, sc),
        "stations": stations,
        "operators": _operators(st, sc),
        "cash": _cash(st, sc),
        "hourly": hourly_sales(st, sc),
    }


def _stations(st: Station, sc: Scope) -> list[dict[str, Any]]:
    q = st.ledger.conn.execute
    ss = sc.sessions
    out = []
    for (name,) in q("SELECT station FROM p_stations ORDER BY station").fetchall():
        sold = q(
            f"SELECT count(*), coalesce(sum(amount), 0) FROM p_sales WHERE station = ? "
            f"AND session IN ({_in(ss)}) AND voided = 0",
            (name, *ss),
        ).fetchone()
        paid = q(
            f"SELECT coalesce(sum(amount), 0) FROM p_redemptions WHERE origin = ? "
            f"AND session IN ({_in(ss)})",
            (name, *ss),
        ).fetchone()
        head = q("SELECT last_seq FROM origin_heads WHERE origin = ?", (name,)).fetchone()
        closed = bool(ss) and all(
            q(
                "SELECT 1 FROM p_close_markers WHERE session = ? AND station = ?", (s, name)
            ).fetchone()
            for s in ss
        )
        missing = [
            r[0]
            for r in q(
                f"SELECT reason FROM p_missing_at_close WHERE station = ? "
                f"AND session IN ({_in(ss)})",
                (name, *ss),
            )
        ]
        out.append(
            {
                "station": name,
                "events": int(head[0]) if head else 0,
                "closed": closed,
                "missing_at_close": missing,
                "sales": int(sold[0]),
                "gross": _money(sold[1]),
                "prizes_paid": _money(paid[0]),
            }
        )
    return out


def _operators(st: Station, sc: Scope) -> list[dict[str, Any]]:
    q = st.ledger.conn.execute
    ss = sc.sessions
    people: dict[str, dict[str, int]] = {}
    for seller, count, amount in q(
        f"SELECT coalesce(seller, '(kiosk)'), count(*), sum(amount) FROM p_sales "
        f"WHERE session IN ({_in(ss)}) AND voided = 0 GROUP BY seller",
        ss,
    ):
        people.setdefault(seller, {"sales": 0, "gross": 0, "redemptions": 0, "paid": 0})
        people[seller]["sales"], people[seller]["gross"] = int(count), int(amount)
    for by, count, amount in q(
        f"SELECT by, count(*), sum(amount) FROM p_redemptions "
        f"WHERE session IN ({_in(ss)}) GROUP BY by",
        ss,
    ):
        people.setdefault(by, {"sales": 0, "gross": 0, "redemptions": 0, "paid": 0})
        people[by]["redemptions"], people[by]["paid"] = int(count), int(amount)
    return [
        {
            "operator": name,
            "sales": v["sales"],
            "gross": _money(v["gross"]),
            "redemptions": v["redemptions"],
            "prizes_paid": _money(v["paid"]),
        }
        for name, v in sorted(people.items())
    ]


def _exceptions(st: Station, sc: Scope) -> list[dict[str, Any]]:
    items = [
        {"kind": r["kind"], "origin": r["origin"], "detail": r["detail"]}
        for r in st.ledger.db.query(
            "SELECT kind, origin, detail FROM p_flags WHERE hlc >= ? AND hlc < ? ORDER BY hlc",
            [sc.low, sc.high],
        )
    ]
    items += [
        {"kind": "blocked-after-sync", "origin": r["purchase_origin"], "detail": r["reason"]}
        for r in st.ledger.db.query(
            "SELECT purchase_origin, reason FROM p_block_exceptions WHERE day = ?",
            [sc.day.isoformat()],
        )
    ]
    items += [
        {"kind": "paid-twice-after-sync", "origin": r[0], "detail": r[1]}
        for r in st.ledger.conn.execute(
            "SELECT second_origin, detail FROM p_paid_twice WHERE hlc >= ? AND hlc < ? "
            "ORDER BY hlc",
            (sc.low, sc.high),
        )
    ]
    ss = sc.sessions
    items += [
        {
            "kind": "late",
            "origin": r[0],
            "detail": f"{r[1]} {r[0]}:{r[2]} arrived after session {r[3]} closed",
        }
        for r in st.ledger.conn.execute(
            f"SELECT origin, type, seq, session FROM p_late_events "
            f"WHERE session IN ({_in(ss)}) ORDER BY hlc",
            ss,
        )
    ]
    items += [
        {"kind": "unprojected", "origin": r[0], "detail": f"{r[2]} {r[0]}:{r[1]}: {r[3]}"}
        for r in st.ledger.conn.execute("SELECT * FROM p_projection_errors")
    ]
    return items


def _cash(st: Station, sc: Scope) -> list[dict[str, Any]]:
    """Per drawer or cash box (station): cash in (sales, rentals, vouchers issued) less cash out
    (prizes, vouchers paid; voided sales are off the sales), against the manager's count. A
    kiosk's voucher-paid sale nets to nothing: the sale and its change voucher in, the voucher
    it took out."""
    q = st.ledger.conn.execute
    ss = sc.sessions
    out = []
    for (name,) in q("SELECT station FROM p_stations ORDER BY station").fetchall():
        sold = q(
            f"SELECT coalesce(sum(amount), 0) FROM p_sales WHERE station = ? AND "
            f"session IN ({_in(ss)}) AND voided = 0",
            (name, *ss),
        ).fetchone()[0]
        rented = q(
            f"SELECT coalesce(sum(amount), 0) FROM p_rentals WHERE origin = ? AND "
            f"session IN ({_in(ss)})",
            (name, *ss),
        ).fetchone()[0]
        paid = q(
            f"SELECT coalesce(sum(amount), 0) FROM p_redemptions WHERE origin = ? AND "
            f"session IN ({_in(ss)})",
            (name, *ss),
        ).fetchone()[0]
        # Every voucher a station issues stands for value it took in and did not give out as
        # tickets: cash for a voucher, cash for tickets a dispenser did not deliver, or the
        # unused part of a voucher it took as payment (whose whole value counts as paid out).
        vouchers_in = q(
            "SELECT coalesce(sum(amount), 0) FROM p_vouchers WHERE station = ? AND "
            "issued_hlc >= ? AND issued_hlc < ?",
            (name, sc.low, sc.high),
        ).fetchone()[0]
        vouchers_out = q(
            "SELECT coalesce(sum(amount), 0) FROM p_vouchers WHERE "
            "redeemed_by_origin = ? AND redeemed_hlc >= ? AND redeemed_hlc < ?",
            (name, sc.low, sc.high),
        ).fetchone()[0]
        expected = int(sold) + int(rented) + int(vouchers_in) - int(paid) - int(vouchers_out)
        counted = q(
            f"SELECT sum(amount) FROM p_drawer_counts WHERE station = ? AND session IN ({_in(ss)})",
            (name, *ss),
        ).fetchone()[0]
        if not (expected or counted):
            continue
        out.append(
            {
                "station": name,
                "expected": _money(expected),
                "counted": _money(counted) if counted is not None else None,
                "over_short": _money(int(counted) - expected) if counted is not None else None,
            }
        )
    return out


def _hourly_cents(st: Station, sc: Scope) -> dict[int, dict[str, int]]:
    """hour (hall time) -> product line (a deal's game, or "rentals") -> cents, the scope's
    sessions, voids taken off."""
    zone = ZoneInfo(st.hall.time_zone)
    buckets: dict[int, dict[str, int]] = {}
    ss = sc.sessions
    rows = st.ledger.conn.execute(
        f"SELECT s.hlc, s.amount, d.game FROM p_sales s JOIN p_deals d USING (serial) "
        f"WHERE s.session IN ({_in(ss)}) AND s.voided = 0 UNION ALL "
        f"SELECT hlc, amount, 'rentals' FROM p_rentals WHERE session IN ({_in(ss)})",
        (*ss, *ss),
    )
    for hlc, amount, line in rows:
        hour = Stamp.parse(hlc).instant.astimezone(zone).hour
        bucket = buckets.setdefault(hour, {})
        bucket[line] = bucket.get(line, 0) + int(amount)
    return buckets


def hourly_sales(st: Station, sc: Scope) -> list[dict[str, Any]]:
    """Sales per hour (hall time) per product line: the chart's data."""
    return [
        {"hour": hour, **{k: _money(v) for k, v in sorted(b.items())}}
        for hour, b in sorted(_hourly_cents(st, sc).items())
    ]


def ticket_sales_by_hour(st: Station, game_date: date) -> dict[int, int]:
    """Ticket sales (cents, voids taken off, rentals apart) per hour of the hall's day
    `game_date`: the manager's dashboard chart."""
    hours = _hourly_cents(st, scope(st, game_date.isoformat(), None))
    totals = {hour: sum(v for k, v in b.items() if k != "rentals") for hour, b in hours.items()}
    return {hour: cents for hour, cents in totals.items() if cents}


# --- CSV ---------------------------------------------------------------------------------------


def write_csv(report: dict[str, Any], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    tables = {
        "summary": [
            {k: report[k] for k in ("date", "gross", "prizes_paid", "net")}
            | {
                "rentals_count": report["rentals"]["count"],
                "rentals_gross": report["rentals"]["gross"],
                "voids_count": report["voids"]["count"],
                "voids_amount": report["voids"]["amount"],
                "blocked_purchases": len(report["blocked_purchases"]),
            }
        ],
        "deals": [{k: v for k, v in d.items() if k != "prizes_by_tier"} for d in report["deals"]],
        "products": report["products"],
        "stations": [
            {k: v for k, v in s.items() if k != "missing_at_close"} for s in report["stations"]
        ],
        "operators": report["operators"],
        "cash": report["cash"],
        "exceptions": report["exceptions"],
        "blocked_purchases": report["blocked_purchases"],
    }
    written = []
    for name, rows in tables.items():
        path = directory / f"{name}.csv"
        columns = list(rows[0]) if rows else ["(none)"]
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
        written.append(path)
    return written


# --- the reconciliation form ------------------------------------------------------------------


def deadlines(session_day: date) -> tuple[date, date]:
    """The form is signed within 48 hours of the session; receipts deposited by the second
    business day (weekends skipped; holidays are the manager's to mind)."""
    sign_by = session_day + timedelta(days=2)
    deposit, business_days = session_day, 0
    while business_days < 2:
        deposit += timedelta(days=1)
        if deposit.weekday() < 5:
            business_days += 1
    return sign_by, deposit


def drawer_count(
    st: Station, amount: str, *, station: str | None, operator: str | None
) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with checked_input("amount"):
        cents = parse_amount(amount, "amount", allow_zero=True)
    with st.ledger.transaction():
        session = open_session_now(st)
        if session is None:
            row = st.ledger.conn.execute(
                "SELECT session FROM p_sessions ORDER BY opened_hlc DESC LIMIT 1"
            ).fetchone()
            if row is None:
                raise BadInput("session", "no session has been held yet")
            session_id = row[0]
        else:
            session_id = session.id
        name = station or st.id
        if st.ledger.public_key(name) is None:
            raise BadInput("station", f"{name!r} is not a station of this hall")
        st.append(
            "DrawerCounted",
            {"session": session_id, "station": name, "amount": cents, "by": by.badge},
        )
    return {"session": session_id, "station": name, "counted": format_amount(cents)}
