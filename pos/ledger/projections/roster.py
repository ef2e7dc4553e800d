"""Shifts, who the ledger says sold or redeemed what on which day, and who it shows working
which bingo session (rule D).

`p_block_exceptions` lists purchases that rule D would have refused had the station known then
what it learned by sync later: a worker who sold on another station minutes before buying.
Both orders of arrival give the same rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import date, time, timedelta
from typing import Any

from pos.domain.eligibility import Involvement, SessionWork
from pos.domain.event_time import legal_day
from pos.domain.roster import Shift
from pos.ledger.events import Event
from pos.ledger.projections.base import TIME_ZONE, Projection, remembered
from pos.ledger.rows import dict_row, dict_rows, placeholders

SCHEMA = """
CREATE TABLE p_shifts (
    key TEXT PRIMARY KEY, badge TEXT NOT NULL, name TEXT NOT NULL, date_of_birth TEXT,
    organisation TEXT NOT NULL, day TEXT NOT NULL, start TEXT NOT NULL, end TEXT NOT NULL,
    duty TEXT NOT NULL, state TEXT NOT NULL, hlc TEXT NOT NULL, session TEXT
);
CREATE INDEX p_shifts_session ON p_shifts (badge, session);
CREATE INDEX p_shifts_badge ON p_shifts (badge, day);
CREATE INDEX p_shifts_day ON p_shifts (day);
CREATE TABLE p_involvement (
    badge TEXT NOT NULL, serial TEXT NOT NULL, day TEXT NOT NULL, what TEXT NOT NULL,
    origin TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (badge, serial, day, what)
);
CREATE INDEX p_involvement_day ON p_involvement (badge, day);
CREATE TABLE p_bingo_work (
    badge TEXT NOT NULL, session TEXT NOT NULL, day TEXT NOT NULL, what TEXT NOT NULL,
    origin TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_bingo_work_badge ON p_bingo_work (badge, session);
CREATE INDEX p_bingo_work_day ON p_bingo_work (badge, day);
CREATE TABLE p_purchases (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, buyer_staff TEXT NOT NULL, serial TEXT NOT NULL,
    day TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_purchases_staff ON p_purchases (buyer_staff);
CREATE TABLE p_blocked (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, rule TEXT NOT NULL, buyer TEXT NOT NULL,
    serial TEXT, reason TEXT NOT NULL, by TEXT, day TEXT NOT NULL, verdict TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
);
CREATE TABLE p_block_exceptions (
    purchase_origin TEXT NOT NULL, purchase_seq INTEGER NOT NULL,
    involvement_origin TEXT NOT NULL, involvement_seq INTEGER NOT NULL,
    badge TEXT NOT NULL, serial TEXT NOT NULL, day TEXT NOT NULL, reason TEXT NOT NULL,
    PRIMARY KEY (purchase_origin, purchase_seq, involvement_origin, involvement_seq)
)
"""


def _hall_day(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> str:
    """The event's legal day: the hall's clock when it was recorded (pos.domain.event_time)."""
    row = remembered(TIME_ZONE, lambda: conn.execute("SELECT time_zone FROM p_hall").fetchone())
    return legal_day(event.hlc, body, row[0] if row else "UTC")


def _shifts(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.executemany(
        "INSERT INTO p_shifts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?) "
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
                s.get("session"),
            )
            for s in body["shifts"]
        ],
    )


def _shift_changed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    if "session" in body:
        conn.execute(
            "UPDATE p_shifts SET session = ? WHERE key = ? AND hlc < ?",
            (body["session"], body["key"], event.hlc),
        )
    conn.execute(
        "UPDATE p_shifts SET day = ?, start = ?, end = ?, duty = ?, hlc = ? WHERE key = ? "
        "AND hlc < ?",
        (body["day"], body["start"], body["end"], body["duty"], event.hlc, body["key"], event.hlc),
    )


def _shift_cancelled(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute("UPDATE p_shifts SET state = 'cancelled' WHERE key = ?", (body["key"],))


def _involved(
    conn: sqlite3.Connection,
    event: Event,
    body: dict[str, Any],
    badge: str | None,
    serial: str,
    what: str,
) -> None:
    if not badge:
        return
    day = _hall_day(conn, event, body)
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
    _involved(conn, event, body, body.get("seller"), serial, "sold")
    buyer = body.get("buyer_staff")
    if buyer:
        day = _hall_day(conn, event, body)
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
    _involved(conn, event, body, body.get("by"), body["serial"], "redeemed")


# What each event of a bingo session says its `by` did there: whoever the record shows working
# a session (selling its paper, packs, entries or rentals, paying its prizes, counting its cash,
# recording its games) is a worker of it, on the roster or not (rule D).
BINGO_WORK = {
    "PaperSold": "sold bingo paper",
    "PaperReturned": "took back bingo paper",
    "PaperVoided": "voided bingo paper",
    "DecisionEntered": "sold decision bingo entries",
    "DecisionFeesCollected": "collected decision bingo fees",
    "DecisionPrizeAnnounced": "announced a decision bingo prize",
    "ProgressivePlayed": "recorded a progressive game's calls",
    "BingoPrizePaid": "paid a bingo prize",
    "ChestSold": "sold treasure chest entries",
    "ChestParticipantChosen": "chose the treasure chest participant",
    "ChestOpened": "tried the treasure chest's keys",
    "DeviceRented": "rented out a bingo device",
    "DrawerCounted": "counted the cash",
    "CountVerified": "verified a cash count",
}


def _worked(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    badge, session = body.get("by"), body.get("session")
    if not badge or not session:
        return
    conn.execute(
        "INSERT OR IGNORE INTO p_bingo_work VALUES (?, ?, ?, ?, ?, ?)",
        (
            badge,
            session,
            _hall_day(conn, event, body),
            BINGO_WORK[event.kind],
            event.origin,
            event.seq,
        ),
    )


def _verdict(body: dict[str, Any]) -> str:
    """The refusal's verdict: a field of the event since the one money path (#26). One written
    before then says it only in its sentence, which was always worded so for a near match."""
    if "verdict" in body:
        return str(body["verdict"])
    return "needs-override" if "a manager decides" in body["reason"] else "refused"


def _blocked(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_blocked VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["rule"],
            body["buyer"],
            body.get("serial"),
            body["reason"],
            body.get("by"),
            _hall_day(conn, event, body),
            _verdict(body),
        ),
    )


ROSTER = Projection(
    name="roster",
    version=4,
    schema=SCHEMA,
    handlers={
        "ShiftsImported": _shifts,
        "ShiftChanged": _shift_changed,
        "ShiftCancelled": _shift_cancelled,
        "TicketsSold": _sold,
        "WinnerRedeemed": _redeemed,
        "SealPrizePaid": _redeemed,
        "PurchaseBlocked": _blocked,
        **dict.fromkeys(BINGO_WORK, _worked),
    },
)


# --- read models: shifts and involvement (rule D) -----------------------------------------------


def _shift(badge: str, row: Sequence[Any]) -> Shift:
    """A Shift from (name, organisation, day, start, end, duty[, session])."""
    return Shift(
        row[0],
        None,
        badge,
        row[1],
        date.fromisoformat(row[2]),
        time.fromisoformat(row[3]),
        time.fromisoformat(row[4]),
        row[5],
        row[6] if len(row) > 6 else None,
    )


def shifts_starting(
    conn: sqlite3.Connection, badge: str, days: Sequence[date], session: str | None = None
) -> list[Shift]:
    """A person's active shifts starting on `days`, and those that work `session`."""
    return [
        _shift(badge, row)
        for row in conn.execute(
            "SELECT name, organisation, day, start, end, duty, session FROM p_shifts "
            f"WHERE badge = ? AND state = 'active' AND (day IN ({placeholders(days)}) "
            "OR session = ?)",
            (badge, *(day.isoformat() for day in days), session),
        )
    ]


def shifts_and_involvement(
    conn: sqlite3.Connection, badge: str, today: date
) -> tuple[list[Shift], list[Involvement]]:
    """In one query: a person's active shifts that can touch `today` (starting today, or
    yesterday past midnight) and what the ledger says they did today."""
    shifts, involvement = [], []
    for row in conn.execute(
        "SELECT 's', name, organisation, day, start, end, duty FROM p_shifts "
        "WHERE badge = ? AND state = 'active' AND day IN (?, ?) "
        "UNION ALL SELECT 'i', serial, NULL, day, what, NULL, NULL FROM p_involvement "
        "WHERE badge = ? AND day = ?",
        (
            badge,
            today.isoformat(),
            (today - timedelta(days=1)).isoformat(),
            badge,
            today.isoformat(),
        ),
    ):
        if row[0] == "s":
            shifts.append(_shift(badge, row[1:]))
        else:
            involvement.append(Involvement(row[1], date.fromisoformat(row[3]), row[4]))
    return shifts, involvement


def involvement_in(conn: sqlite3.Connection, badge: str, serial: str) -> list[Involvement]:
    """Whether the ledger says a person sold or redeemed a deal (one row is enough)."""
    return [
        Involvement(row[0], date.fromisoformat(row[1]), row[2])
        for row in conn.execute(
            "SELECT serial, day, what FROM p_involvement WHERE badge = ? AND serial = ? "
            "ORDER BY day LIMIT 1",
            (badge, serial),
        )
    ]


def bingo_work(
    conn: sqlite3.Connection, badge: str, session: str | None, day: date
) -> list[SessionWork]:
    """What the ledger shows a person doing at `session` (or, with none, at any session on
    `day`): one row per kind of work is enough."""
    return [
        SessionWork(row[0], date.fromisoformat(row[1]), row[2])
        for row in conn.execute(
            "SELECT session, day, min(what) FROM p_bingo_work WHERE badge = ? AND "
            "(session = ? OR (? IS NULL AND day = ?)) GROUP BY session, day ORDER BY day",
            (badge, session, session, day.isoformat()),
        )
    ]


# --- read models: the roster --------------------------------------------------------------------


def shift_keys(conn: sqlite3.Connection) -> set[str]:
    """The key of every shift ever on the roster (active or not)."""
    return {row[0] for row in conn.execute("SELECT key FROM p_shifts")}


def shift_on_roster(conn: sqlite3.Connection, key: str) -> bool:
    return conn.execute("SELECT 1 FROM p_shifts WHERE key = ?", (key,)).fetchone() is not None


def active_shift(conn: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    """An active shift (every column of p_shifts), or None."""
    return dict_row(conn, "SELECT * FROM p_shifts WHERE key = ? AND state = 'active'", (key,))


def active_shifts(conn: sqlite3.Connection, day: str | None = None) -> list[dict[str, Any]]:
    """The active shifts (of `day`, or all), by day, start and name."""
    sql = (
        "SELECT key, badge, name, organisation, day, start, end, duty, session, state "
        "FROM p_shifts "
        "WHERE state = 'active'"
    )
    params: list[Any] = []
    if day:
        params.append(day)
        sql += " AND day = ?"
    return dict_rows(conn, sql + " ORDER BY day, start, name", params)


# --- read models: refusals and what was found after sync ----------------------------------------


def blocked_on(conn: sqlite3.Connection, day: str) -> list[dict[str, Any]]:
    """Purchases refused on a hall day: origin, rule, buyer, serial, reason, by."""
    return dict_rows(
        conn,
        "SELECT origin, rule, buyer, serial, reason, by FROM p_blocked WHERE day = ? "
        "ORDER BY origin, seq",
        (day,),
    )


def near_matches(conn: sqlite3.Connection) -> list[tuple[str, int, str, str, str | None, str, str]]:
    """(origin, seq, rule, buyer, serial, reason, day) of refusals a manager decides (a near
    match to a worker), newest day first."""
    return [
        tuple(row)
        for row in conn.execute(
            "SELECT origin, seq, rule, buyer, serial, reason, day FROM p_blocked "
            "WHERE verdict = 'needs-override' ORDER BY day DESC"
        )
    ]


def late_purchases(conn: sqlite3.Connection) -> list[tuple[str, int, str, str, str, str]]:
    """(purchase origin, purchase seq, badge, serial, day, reason) of each purchase rule D would
    have refused had the station known then (found after sync), newest day first."""
    return [
        tuple(row)
        for row in conn.execute(
            "SELECT purchase_origin, purchase_seq, badge, serial, day, min(reason) "
            "FROM p_block_exceptions GROUP BY purchase_origin, purchase_seq ORDER BY day DESC"
        )
    ]


def late_purchases_on(conn: sqlite3.Connection, day: str) -> list[dict[str, Any]]:
    """Purchases found after sync that rule D would have refused, on a hall day:
    purchase_origin, reason (one row per worker involvement)."""
    return dict_rows(
        conn, "SELECT purchase_origin, reason FROM p_block_exceptions WHERE day = ?", (day,)
    )
