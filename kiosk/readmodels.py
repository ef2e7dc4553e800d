"""Read-only questions the screens ask that pos/services does not answer yet.

Each reads projections only (never events, never writes) and runs on the StationWorker. They
belong in pos/services (a `reports` module) and should move there; they hold no rule.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from pos.domain.hlc import Stamp
from pos.services.exceptions import open_exceptions
from pos.services.station import Station


def packages(st: Station) -> list[dict[str, Any]]:
    """Device rental packages, cheapest first."""
    return [
        {"name": r[0], "faces": int(r[1]), "games": int(r[2]), "price": int(r[3])}
        for r in st.ledger.conn.execute(
            "SELECT name, faces, games, price FROM p_packages ORDER BY price, faces"
        )
    ]


def free_devices(st: Station) -> int:
    row = st.ledger.conn.execute("SELECT count(*) FROM p_devices WHERE state = 'free'").fetchone()
    return int(row[0])


def station_heads(st: Station) -> list[dict[str, Any]]:
    """Every station of the hall and what this ledger holds of it: last event and its time."""
    heads = {
        r[0]: (int(r[1]), r[2])
        for r in st.ledger.conn.execute("SELECT origin, last_seq, last_hlc FROM origin_heads")
    }
    contacts: dict[str, tuple[str | None, str | None]] = {}
    for station, last_contact, last_error in st.ledger.conn.execute(
        "SELECT station, max(last_contact), max(last_error) FROM sync_peers "
        "WHERE station IS NOT NULL GROUP BY station"
    ):
        contacts[station] = (last_contact, last_error)
    rows = []
    for station, role in st.ledger.conn.execute(
        "SELECT station, role FROM p_stations ORDER BY station"
    ):
        seq, hlc = heads.get(station, (0, ""))
        rows.append(
            {
                "station": station,
                "role": role,
                "events": seq,
                "last": Stamp.parse(hlc).instant if hlc else None,
                "this": station == st.id,
                "contact": _instant(contacts.get(station, (None, None))[0]),
                "sync_error": contacts.get(station, (None, None))[1],
            }
        )
    return rows


def _instant(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def sales_by_hour(st: Station, game_date: date) -> dict[int, int]:
    """Gross sales (cents, voids taken off) per hour of the hall's day `game_date`."""
    zone = ZoneInfo(st.hall.time_zone)
    hours: dict[int, int] = {}
    for hlc, amount, voided in st.ledger.conn.execute("SELECT hlc, amount, voided FROM p_sales"):
        at = Stamp.parse(hlc).instant.astimezone(zone)
        if at.date() != game_date or voided:
            continue
        hours[at.hour] = hours.get(at.hour, 0) + int(amount)
    return hours


def exceptions(st: Station) -> list[dict[str, Any]]:
    """What the manager must look at: flags not yet decided (double payments, probable
    counterfeits, devices not returned; each with its `ref`, ORIGIN:SEQ, to decide), purchases
    rule D would have refused had the station known (late events), and near matches to workers
    that were refused."""
    found: list[dict[str, Any]] = []
    for flag in open_exceptions(st):  # decided flags leave the list
        serial, ticket = flag["serial"], flag["ticket"]
        what = f"{serial}/{ticket}" if ticket else (serial or "")
        found.append(
            {
                "kind": flag["kind"],
                "subject": what,
                "detail": flag["detail"],
                "hlc": flag["hlc"],
                "ref": flag["exception"],
            }
        )
    for serial, ticket, detail, stamp in st.ledger.conn.execute(
        "SELECT serial, ticket, detail, hlc FROM p_paid_twice ORDER BY hlc DESC"
    ):
        found.append(
            {
                "kind": "paid-twice",
                "subject": f"{serial}/{ticket}",
                "detail": detail,
                "hlc": stamp,
            }
        )
    for badge, serial, day, reason in st.ledger.conn.execute(
        "SELECT badge, serial, day, reason FROM p_block_exceptions ORDER BY day DESC"
    ):
        found.append(
            {
                "kind": "late-event",
                "subject": f"{badge} bought {serial}",
                "detail": f"{reason} ({day})",
                "hlc": day,
            }
        )
    for rule, buyer, serial, reason, day in st.ledger.conn.execute(
        "SELECT rule, buyer, serial, reason, day FROM p_blocked "
        "WHERE reason LIKE '%manager decides%' ORDER BY day DESC"
    ):
        found.append(
            {
                "kind": "near-match",
                "subject": f"{buyer} for {serial}",
                "detail": f"{reason} (rule {rule})",
                "hlc": day,
            }
        )
    return found


def seal_deals_here(st: Station) -> list[str]:
    return [
        r[0]
        for r in st.ledger.conn.execute(
            "SELECT serial FROM p_deals WHERE game = 'seal-card' AND holder = ? "
            "AND received_hlc IS NOT NULL ORDER BY serial",
            (st.id,),
        )
    ]
