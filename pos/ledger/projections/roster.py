"""Shifts, and who the ledger says sold or redeemed what on which day (rule D).

`p_block_exceptions` lists purchases that rule D would have refused had the station known then
what it learned by sync later: a worker who sold on another station minutes before buying.
Both orders of arrival give the same rows.
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from pos.domain.hlc import Stamp
from pos.ledger.events import Event
from pos.ledger.projections.base import TIME_ZONE, Projection, remembered

SCHEMA = """
CREATE TABLE p_shifts (
    key TEXT PRIMARY KEY, badge TEXT NOT NULL, name TEXT NOT NULL, date_of_birth TEXT,
    organisation TEXT NOT NULL, day TEXT NOT NULL, start TEXT NOT NULL, end TEXT NOT NULL,
    duty TEXT NOT NULL, state TEXT NOT NULL, hlc TEXT NOT NULL
);
CREATE INDEX p_shifts_badge ON p_shifts (badge, day);
CREATE INDEX p_shifts_day ON p_shifts (day);
CREATE TABLE p_involvement (
    badge TEXT NOT NULL, serial TEXT NOT NULL, day TEXT NOT NULL, what TEXT NOT NULL,
    origin TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (badge, serial, day, what)
);
CREATE INDEX p_involvement_day ON p_involvement (badge, day);
CREATE TABLE p_purchases (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, buyer_staff TEXT NOT NULL, serial TEXT NOT NULL,
    day TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_purchases_staff ON p_purchases (buyer_staff);
CREATE TABLE p_blocked (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, rule TEXT NOT NULL, buyer TEXT NOT NULL,
    serial TEXT, reason TEXT NOT NULL, by TEXT, day TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE TABLE p_block_exceptions (
    purchase_origin TEXT NOT NULL, purchase_seq INTEGER NOT NULL,
    involvement_origin TEXT NOT NULL, involvement_seq INTEGER NOT NULL,
    badge TEXT NOT NULL, serial TEXT NOT NULL, day TEXT NOT NULL, reason TEXT NOT NULL,
    PRIMARY KEY (purchase_origin, purchase_seq, involvement_origin, involvement_seq)
)
"""


@lru_cache(maxsize=8)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def _hall_day(conn: sqlite3.Connection, event: Event) -> str:
    row = remembered(TIME_ZONE, lambda: conn.execute("SELECT time_zone FROM p_hall").fetchone())
    instant = Stamp.parse(event.hlc).instant
    return (instant.astimezone(_zone(row[0])) if row else instant).date().isoformat()


def _shifts(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.executemany(
        "INSERT INTO p_shifts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?) "
        "ON CONFLICT (key) DO NOTHING",
        [
            (
                s["key"],
                s["badge"],
                s["name"],
                s.get("date_of_birth"),
                s["organisation"],
                s["day"],
                s["start"],
                s["end"],
                s["duty"],
                event.hlc,
            )
            for s in body["shifts"]
        ],
    )
    for person in body.get("new_staff", []):
        conn.execute(
            "INSERT INTO p_staff (badge, name, roles, date_of_birth, added_by, added_hlc) "
            "VALUES (?, ?, '[]', ?, ?, ?) ON CONFLICT (badge) DO NOTHING",
            (
                person["badge"],
                person["name"],
                person.get("date_of_birth"),
                body.get("by"),
                event.hlc,
            ),
        )


def _shift_changed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_shifts SET day = ?, start = ?, end = ?, duty = ?, hlc = ? WHERE key = ? "
        "AND hlc < ?",
        (body["day"], body["start"], body["end"], body["duty"], event.hlc, body["key"], event.hlc),
    )


def _shift_cancelled(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute("UPDATE p_shifts SET state = 'cancelled' WHERE key = ?", (body["key"],))


def _involved(
    conn: sqlite3.Connection, event: Event, badge: str | None, serial: str, what: str
) -> None:
    if not badge:
        return
    day = _hall_day(conn, event)
    conn.execute(
        "INSERT OR IGNORE INTO p_involvement VALUES (?, ?, ?, ?, ?, ?)",
        (badge, serial, day, what, event.origin, event.seq),
    )
    for origin, seq, p_serial, p_day in conn.execute(
        "SELECT origin, seq, serial, day FROM p_purchases WHERE buyer_staff = ? AND "
        "(serial = ? OR day = ?)",
        (badge, serial, day),
    ).fetchall():
        _exception(
            conn,
            (origin, seq),
            (event.origin, event.seq),
            badge,
            p_serial,
            p_day,
            serial,
            day,
            what,
        )


def _exception(
    conn: sqlite3.Connection,
    purchase: tuple[str, int],
    involvement: tuple[str, int],
    badge: str,
    serial: str,
    day: str,
    involved_serial: str,
    involved_day: str,
    what: str,
) -> None:
    reason = (
        f"{badge} {what} deal {involved_serial} on {involved_day} and bought "
        f"{serial} on {day} (found after sync)"
    )
    conn.execute(
        "INSERT OR IGNORE INTO p_block_exceptions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (*purchase, *involvement, badge, serial, day, reason),
    )


def _sold(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    serial = body["serial"]
    _involved(conn, event, body.get("seller"), serial, "sold")
    buyer = body.get("buyer_staff")
    if buyer:
        day = _hall_day(conn, event)
        conn.execute(
            "INSERT OR IGNORE INTO p_purchases VALUES (?, ?, ?, ?, ?)",
            (event.origin, event.seq, buyer, serial, day),
        )
        for origin, seq, i_serial, i_day, what in conn.execute(
            "SELECT origin, seq, serial, day, what FROM p_involvement WHERE badge = ? AND "
            "(serial = ? OR day = ?) AND NOT (origin = ? AND seq = ?)",
            (buyer, serial, day, event.origin, event.seq),
        ).fetchall():
            _exception(
                conn,
                (event.origin, event.seq),
                (origin, seq),
                buyer,
                serial,
                day,
                i_serial,
                i_day,
                what,
            )


def _redeemed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    _involved(conn, event, body.get("by"), body["serial"], "redeemed")


def _blocked(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_blocked VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["rule"],
            body["buyer"],
            body.get("serial"),
            body["reason"],
            body.get("by"),
            _hall_day(conn, event),
        ),
    )


ROSTER = Projection(
    name="roster",
    version=1,
    schema=SCHEMA,
    handlers={
        "ShiftsImported": _shifts,
        "ShiftChanged": _shift_changed,
        "ShiftCancelled": _shift_cancelled,
        "TicketsSold": _sold,
        "WinnerRedeemed": _redeemed,
        "SealPrizePaid": _redeemed,
        "PurchaseBlocked": _blocked,
    },
)
