"""Deals, bins, sessions, sales and settings, as the log says they are.

Handlers are upserts so that events of different origins may arrive in either order (a sale
relayed before the deal's intake): every station ends with the same rows.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.domain.canonical import canonical_json
from pos.domain.flare import flare_to_dict, parse_flare
from pos.ledger.events import Event
from pos.ledger.projections.base import Projection, forget, session_state_key

SCHEMA = """
CREATE TABLE p_deals (
    serial TEXT PRIMARY KEY, game TEXT, name TEXT, form TEXT, manufacturer TEXT,
    tickets INTEGER, price INTEGER, prizes_total INTEGER, flare TEXT,
    state TEXT NOT NULL DEFAULT 'unknown', holder TEXT, bin TEXT,
    received_hlc TEXT, received_by TEXT, opened_hlc TEXT, closed_hlc TEXT,
    sold INTEGER NOT NULL DEFAULT 0, gross INTEGER NOT NULL DEFAULT 0,
    unsold INTEGER, keep_until TEXT, released_to TEXT,
    holder_key TEXT  -- hlc:origin of the event that named the holder: the latest wins
);
CREATE TABLE p_prize_tiers (
    serial TEXT NOT NULL, amount INTEGER NOT NULL, count INTEGER NOT NULL,
    paid INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (serial, amount)
);
CREATE TABLE p_bins (
    station TEXT NOT NULL, bin TEXT NOT NULL, serial TEXT NOT NULL,
    PRIMARY KEY (station, bin, serial)
);
CREATE TABLE p_sessions (
    session TEXT PRIMARY KEY, game_date TEXT NOT NULL, number INTEGER NOT NULL,
    opened_hlc TEXT NOT NULL, opened_by TEXT, opened_on TEXT,
    closed_hlc TEXT, closed_by TEXT, state TEXT NOT NULL
);
CREATE INDEX p_sessions_open ON p_sessions (state, opened_hlc);
CREATE TABLE p_session_sales (
    session TEXT NOT NULL, serial TEXT NOT NULL, qty INTEGER NOT NULL, gross INTEGER NOT NULL,
    PRIMARY KEY (session, serial)
);
CREATE INDEX p_session_sales_serial ON p_session_sales (serial, session);
CREATE TABLE p_receipt_numbers (station TEXT PRIMARY KEY, last INTEGER NOT NULL);
CREATE TABLE p_sales (
    station TEXT NOT NULL, receipt INTEGER NOT NULL, serial TEXT NOT NULL, qty INTEGER NOT NULL,
    amount INTEGER NOT NULL, session TEXT NOT NULL, seller TEXT, hlc TEXT NOT NULL,
    voided INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (station, receipt)
);
CREATE INDEX p_sales_session ON p_sales (session, station);
CREATE TABLE p_settings (
    scope TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, set_by TEXT, set_hlc TEXT,
    PRIMARY KEY (scope, key)
);
CREATE TABLE p_overrides (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, rule TEXT NOT NULL, reason TEXT NOT NULL,
    manager TEXT NOT NULL, subject TEXT NOT NULL, hlc TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
)
"""


def _deal_received(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    flare = parse_flare(body["flare"])
    conn.execute(
        "INSERT INTO p_deals (serial, game, name, form, manufacturer, tickets, price, "
        "prizes_total, flare, state, received_hlc, received_by) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'received', ?, ?) ON CONFLICT (serial) DO UPDATE SET "
        "game = excluded.game, name = excluded.name, form = excluded.form, "
        "manufacturer = excluded.manufacturer, tickets = excluded.tickets, "
        "price = excluded.price, prizes_total = excluded.prizes_total, flare = excluded.flare, "
        "received_hlc = excluded.received_hlc, received_by = excluded.received_by, "
        "state = CASE WHEN p_deals.state = 'unknown' THEN 'received' ELSE p_deals.state END",
        (
            flare.serial,
            flare.game.value,
            flare.name,
            flare.form,
            flare.manufacturer,
            flare.tickets,
            flare.price,
            flare.total_prizes,
            canonical_json(flare_to_dict(flare)),
            event.hlc,
            body.get("by"),
        ),
    )
    for tier in flare.prizes:
        conn.execute(
            "INSERT INTO p_prize_tiers (serial, amount, count) VALUES (?, ?, ?) "
            "ON CONFLICT (serial, amount) DO UPDATE SET count = excluded.count",
            (flare.serial, tier.amount, tier.count),
        )


def _ensure_deal(conn: sqlite3.Connection, serial: str) -> None:
    conn.execute("INSERT INTO p_deals (serial) VALUES (?) ON CONFLICT DO NOTHING", (serial,))


def _names_holder(conn: sqlite3.Connection, event: Event, serial: str) -> bool:
    """Whether `event` is the latest (by HLC, then origin) to name the deal's holder, whatever
    order this station received the events in; if so it becomes the one that did."""
    key = f"{event.hlc}:{event.origin}"
    changed = conn.execute(
        "UPDATE p_deals SET holder_key = ? WHERE serial = ? "
        "AND (holder_key IS NULL OR holder_key < ?)",
        (key, serial, key),
    ).rowcount
    return changed > 0


def _deal_opened(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    serial = body["serial"]
    _ensure_deal(conn, serial)
    if not _names_holder(conn, event, serial):
        return
    conn.execute(
        "UPDATE p_deals SET state = 'in-play', holder = ?, bin = ?, opened_hlc = ? "
        "WHERE serial = ? AND state != 'closed'",
        (body["station"], body["bin"], event.hlc, serial),
    )
    conn.execute("DELETE FROM p_bins WHERE serial = ?", (serial,))
    conn.execute(
        "INSERT OR IGNORE INTO p_bins VALUES (?, ?, ?)", (body["station"], body["bin"], serial)
    )


def _deal_released(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_deals SET released_to = ? WHERE serial = ? AND holder = ?",
        (body["to"], body["serial"], event.origin),
    )


def _deal_acquired(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    serial = body["serial"]
    _ensure_deal(conn, serial)
    if not _names_holder(conn, event, serial):
        return
    conn.execute(
        "UPDATE p_deals SET holder = ?, bin = ?, released_to = NULL, state = CASE "
        "WHEN state IN ('received', 'unknown') THEN 'in-play' ELSE state END WHERE serial = ?",
        (body["station"], body["bin"], serial),
    )
    conn.execute("DELETE FROM p_bins WHERE serial = ?", (serial,))
    conn.execute(
        "INSERT OR IGNORE INTO p_bins VALUES (?, ?, ?)", (body["station"], body["bin"], serial)
    )


def _deal_closed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    serial = body["serial"]
    _ensure_deal(conn, serial)
    conn.execute(
        "UPDATE p_deals SET state = 'closed', closed_hlc = ?, unsold = ?, keep_until = ? "
        "WHERE serial = ?",
        (event.hlc, int(body["unsold"]), body["keep_until"], serial),
    )
    conn.execute("DELETE FROM p_bins WHERE serial = ?", (serial,))


def _tickets_sold(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    serial, qty, amount = body["serial"], int(body["qty"]), int(body["amount"])
    _ensure_deal(conn, serial)
    conn.execute(
        "UPDATE p_deals SET sold = sold + ?, gross = gross + ? WHERE serial = ?",
        (qty, amount, serial),
    )
    conn.execute(
        "INSERT INTO p_session_sales VALUES (?, ?, ?, ?) ON CONFLICT (session, serial) "
        "DO UPDATE SET qty = qty + excluded.qty, gross = gross + excluded.gross",
        (body["session"], serial, qty, amount),
    )
    conn.execute(
        "INSERT OR IGNORE INTO p_sales (station, receipt, serial, qty, amount, session, seller, "
        "hlc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            int(body["receipt"]),
            serial,
            qty,
            amount,
            body["session"],
            body.get("seller"),
            event.hlc,
        ),
    )


def _session_opened(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    forget(session_state_key(body["session"]))
    # The same session opened on two stations while apart is one session: the first stamp wins.
    conn.execute(
        "INSERT INTO p_sessions (session, game_date, number, opened_hlc, opened_by, opened_on, "
        "state) VALUES (?, ?, ?, ?, ?, ?, 'open') ON CONFLICT (session) DO UPDATE SET "
        "opened_hlc = min(opened_hlc, excluded.opened_hlc)",
        (
            body["session"],
            body["game_date"],
            int(body["number"]),
            event.hlc,
            body.get("by"),
            event.origin,
        ),
    )
    for serial in body.get("resumed", []):
        conn.execute(
            "UPDATE p_deals SET state = 'in-play' WHERE serial = ? AND state = 'carried-over'",
            (serial,),
        )


def _session_closed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    forget(session_state_key(body["session"]))
    conn.execute(
        "UPDATE p_sessions SET state = 'closed', closed_hlc = coalesce(min(closed_hlc, ?), ?), "
        "closed_by = coalesce(closed_by, ?) WHERE session = ?",
        (event.hlc, event.hlc, body.get("by"), body["session"]),
    )
    for serial in body.get("carried_over", []):
        conn.execute(
            "UPDATE p_deals SET state = 'carried-over' WHERE serial = ? AND state = 'in-play'",
            (serial,),
        )


def _setting_set(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    scope = "house" if event.kind == "HouseRuleSet" else "rulebook"
    conn.execute(
        "INSERT INTO p_settings VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET "
        "value = excluded.value, set_by = excluded.set_by, set_hlc = excluded.set_hlc "
        "WHERE excluded.set_hlc > p_settings.set_hlc",
        (scope, body["key"], body["value"], body.get("by"), event.hlc),
    )


def _override_granted(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_overrides VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["rule"],
            body["reason"],
            body["manager"],
            body["subject"],
            event.hlc,
        ),
    )


DEALS = Projection(
    name="deals",
    version=6,
    schema=SCHEMA,
    handlers={
        "DealReceived": _deal_received,
        "DealOpened": _deal_opened,
        "DealClosed": _deal_closed,
        "DealReleased": _deal_released,
        "DealAcquired": _deal_acquired,
        "TicketsSold": _tickets_sold,
        "SessionOpened": _session_opened,
        "SessionClosed": _session_closed,
        "HouseRuleSet": _setting_set,
        "RulebookSettingSet": _setting_set,
        "OverrideGranted": _override_granted,
    },
)
