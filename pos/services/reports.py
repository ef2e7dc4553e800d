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

from pos.domain import identity
from pos.domain.business_days import add_business_days
from pos.domain.hlc import Stamp
from pos.domain.money import format_amount
from pos.domain.typed import parse_date
from pos.errors import BadInput
from pos.ledger import heads
from pos.ledger.projections import cash as cash_read
from pos.ledger.projections import closing as closing_read
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import devices as devices_read
from pos.ledger.projections import hall as hall_read
from pos.ledger.projections import receipts as receipts_read
from pos.ledger.projections import roster as roster_read
from pos.ledger.projections import sessions as sessions_read
from pos.ledger.projections import winners as winners_read
from pos.services import bingo_report, books_cash, books_day, report_warnings, rule_records
from pos.services.current_session import hall_date
from pos.services.inputs import checked_input
from pos.services.outputs import replacing
from pos.services.raffle_report import add_to_day_report as add_raffles
from pos.services.station import Station

PRODUCT_LINES = (("pull-tab", "pull-tabs"), ("seal-card", "seal cards"), ("event", "event games"))


@dataclass(frozen=True)
class Scope:
    day: date
    sessions: tuple[str, ...]
    low: str  # hlc bounds of the hall-local day
    high: str


def scope(st: Station, day: str | None, session: str | None) -> Scope:
    with checked_input("date"):  # 2026-11-28 or 11/28/2026
        when = parse_date(day) if day else hall_date(st, st.clock.now())
    sessions: tuple[str, ...]
    if session:
        game_date = sessions_read.session_game_date(st.ledger.conn, session)
        if game_date is None:
            raise BadInput("session", f"no session {session!r} on file")
        when, sessions = date.fromisoformat(game_date), (session,)
    else:
        sessions = tuple(sessions_read.sessions_on(st.ledger.conn, when.isoformat()))
    zone = ZoneInfo(st.hall.time_zone)
    start = datetime.combine(when, time(0), zone).astimezone(UTC)
    end = start + timedelta(days=1)
    return Scope(
        when,
        sessions,
        f"{int(start.timestamp() * 1000):013d}",
        f"{int(end.timestamp() * 1000):013d}",
    )


def _money(cents: int | None) -> str:
    return format_amount(int(cents or 0))


def day_report(st: Station, day: str | None = None, session: str | None = None) -> dict[str, Any]:
    sc = scope(st, day, session)
    conn = st.ledger.conn
    ss = sc.sessions
    sales = deals_read.sales_by_deal(conn, ss)
    paid: dict[str, int] = {}
    tiers: dict[str, list[dict[str, Any]]] = {}
    for serial, amount, kind, count, total in winners_read.paid_by_tier(conn, ss):
        paid[serial] = paid.get(serial, 0) + total
        tiers.setdefault(serial, []).append(
            {"amount": _money(amount), "kind": kind, "count": count}
        )
    serials = sorted(set(sales) | set(paid))
    deals = []
    lines = {key: {"tickets_sold": 0, "gross": 0, "prizes_paid": 0} for key, _ in PRODUCT_LINES}
    for serial in serials:
        row = deals_read.deal_figures(conn, serial)
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
    rentals = devices_read.rental_totals(conn, ss)
    vouchers_issued = receipts_read.vouchers_issued(conn, sc.low, sc.high)
    vouchers_paid = receipts_read.vouchers_redeemed(conn, sc.low, sc.high)
    voids = winners_read.voids_between(conn, sc.low, sc.high)
    void_count = sum(r[1] for r in voids)
    void_amount = sum(r[2] for r in voids)
    gross = sum(sales.get(s, (0, 0))[1] for s in serials)
    prizes_paid = sum(paid.values())
    stations = _stations(st, sc)
    bingo = bingo_report.day_section(st, ss)  # issue #18: the bingo session's lines
    report = {
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
        ]
        + bingo_report.product_lines(bingo),
        "bingo": bingo,
        "rentals": {"count": rentals[0], "gross": _money(rentals[1])},
        "vouchers": {
            "issued": {"count": vouchers_issued[0], "amount": _money(vouchers_issued[1])},
            "redeemed": {"count": vouchers_paid[0], "amount": _money(vouchers_paid[1])},
        },
        "voids": {
            "count": void_count,
            "amount": _money(void_amount),
            "by_kind": {r[0]: {"count": r[1], "amount": _money(r[2])} for r in voids},
        },
        "blocked_purchases": roster_read.blocked_on(conn, sc.day.isoformat()),
        "overrides": deals_read.overrides_between(conn, sc.low, sc.high),
        "exceptions": _exceptions(st, sc),
        "unpunched": [
            {
                "ticket": f"{r['serial']}/{r['ticket']}" if r["ticket"] else r["serial"],
                "amount": _money(r["amount"]),
                "paid_by": r["by"],
                "payment": f"{r['origin']}:{r['seq']}",
                "receipt": r["receipt"],
            }
            for r in winners_read.unpunched(conn, ss)
        ],
        "stations": stations,
        "operators": _operators(st, sc),
        "cash": (cash := _cash(st, sc)),
        "warnings": report_warnings.drawer_warnings(st, ss, cash),
        "hourly": hourly_sales(st, sc),
        # where a rule a later release brought starts judging (empty: every rule, from the hall)
        "rule_records": rule_records.sentences(st),
        **books_day.additions(st, sc.day, ss),
    }
    add_raffles(st, report, sc.low, sc.high)
    return report


def _stations(st: Station, sc: Scope) -> list[dict[str, Any]]:
    conn = st.ledger.conn
    ss = sc.sessions
    out = []
    for name, _ in hall_read.stations(conn):
        sales, gross = deals_read.station_sales(conn, name, ss)
        closed = bool(ss) and all(closing_read.has_close_marker(conn, s, name) for s in ss)
        out.append(
            {
                "station": name,
                "events": heads.last_seq(conn, name),
                "closed": closed,
                "missing_at_close": closing_read.missing_at_close(conn, name, ss),
                "sales": sales,
                "gross": _money(gross),
                "prizes_paid": _money(winners_read.station_paid(conn, name, ss)),
            }
        )
    return out


def _operators(st: Station, sc: Scope) -> list[dict[str, Any]]:
    conn = st.ledger.conn
    ss = sc.sessions
    people: dict[str, dict[str, int]] = {}
    for seller, count, amount in deals_read.seller_totals(conn, ss):
        people.setdefault(seller, {"sales": 0, "gross": 0, "redemptions": 0, "paid": 0})
        people[seller]["sales"], people[seller]["gross"] = count, amount
    for by, count, amount in winners_read.redeemer_totals(conn, ss):
        people.setdefault(by, {"sales": 0, "gross": 0, "redemptions": 0, "paid": 0})
        people[by]["redemptions"], people[by]["paid"] = count, amount
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
    conn = st.ledger.conn
    items = [
        {"kind": r["kind"], "origin": r["origin"], "detail": r["detail"]}
        for r in winners_read.flags_between(conn, sc.low, sc.high)
    ]
    items += [
        {"kind": "blocked-after-sync", "origin": r["purchase_origin"], "detail": r["reason"]}
        for r in roster_read.late_purchases_on(conn, sc.day.isoformat())
    ]
    items += [
        {"kind": "paid-twice-after-sync", "origin": origin, "detail": detail}
        for origin, detail in winners_read.paid_twice_between(conn, sc.low, sc.high)
    ]
    items += [
        {
            "kind": "late",
            "origin": origin,
            "detail": f"{kind} {origin}:{seq} arrived after session {session} closed",
        }
        for origin, kind, seq, session in closing_read.late_events(conn, sc.sessions)
    ]
    items += [
        {"kind": "unprojected", "origin": origin, "detail": f"{kind} {origin}:{seq}: {error}"}
        for origin, seq, kind, error in hall_read.projection_errors(conn)
    ]
    return items


def _cash(st: Station, sc: Scope) -> list[dict[str, Any]]:
    """Per drawer or cash box (station): cash in (sales, rentals, vouchers issued) less cash out
    (prizes, vouchers paid; voided sales are off the sales), against the manager's count. A
    kiosk's voucher-paid sale nets to nothing: the sale and its change voucher in, the voucher
    it took out."""
    conn = st.ledger.conn
    ss = sc.sessions
    out = []
    for name, _ in hall_read.stations(conn):
        expected = books_cash.station_expected(st, sc.sessions, sc.low, sc.high, name)
        counted = cash_read.counted(conn, name, ss)
        if not (expected or counted):
            continue
        out.append(
            {
                "station": name,
                "expected": _money(expected),
                "counted": _money(counted) if counted is not None else None,
                "over_short": _money(counted - expected) if counted is not None else None,
            }
        )
    return out


def _hourly_cents(st: Station, sc: Scope) -> dict[int, dict[str, int]]:
    """hour (hall time) -> product line (a deal's game, or "rentals") -> cents, the scope's
    sessions, voids taken off."""
    zone = ZoneInfo(st.hall.time_zone)
    buckets: dict[int, dict[str, int]] = {}
    ss = sc.sessions
    rows = deals_read.sale_stamps(st.ledger.conn, ss) + [
        (hlc, amount, "rentals") for hlc, amount in devices_read.rental_stamps(st.ledger.conn, ss)
    ]
    for hlc, amount, line in rows:
        hour = Stamp.parse(hlc).instant.astimezone(zone).hour
        bucket = buckets.setdefault(hour, {})
        bucket[line] = bucket.get(line, 0) + amount
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
        "counts": [
            {k: (" ".join(v) if isinstance(v, list) else v) for k, v in c.items()}
            for c in report.get("counts", [])
        ],
        "exceptions": report["exceptions"],
        "unpunched": report["unpunched"],
        "blocked_purchases": report["blocked_purchases"],
    }
    written = []
    for name, rows in tables.items():
        path = directory / f"{name}.csv"
        # every row's columns, in the order first met (the bingo lines add a few of their own)
        columns = list(dict.fromkeys(k for row in rows for k in row)) if rows else ["(none)"]
        with replacing(path) as partial, partial.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, restval="")
            writer.writeheader()
            writer.writerows(
                {
                    k: identity.csv_cell("; ".join(map(str, v)) if isinstance(v, list) else v)
                    for k, v in row.items()
                }
                for row in rows
            )
        written.append(path)
    return written


# --- the reconciliation form ------------------------------------------------------------------


def deadlines(session_day: date, calendar: str = "virginia") -> tuple[date, date]:
    """The form is signed within 48 hours of the session; receipts deposited by the second
    business day (weekends and the holiday calendar's days skipped; 11VAC20-20-80 D)."""
    sign_by = session_day + timedelta(days=2)
    return sign_by, add_business_days(session_day, 2, calendar)
