"""Deals, bins, sales and managers' overrides, as the log says they are (sessions and settings
have their own projections).

Handlers are upserts so that events of different origins may arrive in either order (a sale
relayed before the deal's intake): every station ends with the same rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pos.domain.canonical import canonical_json
from pos.domain.flare import flare_to_dict, parse_flare
from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import dict_row, dict_rows, placeholders

SCHEMA = """
CREATE TABLE p_deals (
    serial TEXT PRIMARY KEY, game TEXT, name TEXT, form TEXT, manufacturer TEXT,
    tickets INTEGER, price INTEGER, prizes_total INTEGER, flare TEXT,
    state TEXT NOT NULL DEFAULT 'unknown', holder TEXT, bin TEXT,
    received_hlc TEXT, received_by TEXT, opened_hlc TEXT, closed_hlc TEXT,
    sold INTEGER NOT NULL DEFAULT 0, gross INTEGER NOT NULL DEFAULT 0,
    unsold INTEGER, keep_until TEXT, released_to TEXT,
    holder_key TEXT,  -- hlc:origin of the event that named the holder: the latest wins
    tampered INTEGER NOT NULL DEFAULT 0,  -- C1: received marked as tampered, never in play
    offered_in TEXT, close_note TEXT, close_override TEXT  -- C4: a close's diligent efforts
);
CREATE TABLE p_prize_tiers (
    serial TEXT NOT NULL, amount INTEGER NOT NULL, count INTEGER NOT NULL,
    paid INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (serial, amount)
);
CREATE TABLE p_bins (
    station TEXT NOT NULL, bin TEXT NOT NULL, serial TEXT NOT NULL,
    PRIMARY KEY (station, bin, serial)
);
CREATE TABLE p_session_sales (
    session TEXT NOT NULL, serial TEXT NOT NULL, qty INTEGER NOT NULL, gross INTEGER NOT NULL,
    PRIMARY KEY (session, serial)
);
CREATE INDEX p_session_sales_serial ON p_session_sales (serial, session);
CREATE TABLE p_sales (
    station TEXT NOT NULL, receipt INTEGER NOT NULL, serial TEXT NOT NULL, qty INTEGER NOT NULL,
    amount INTEGER NOT NULL, session TEXT NOT NULL, seller TEXT, hlc TEXT NOT NULL,
    voided INTEGER NOT NULL DEFAULT 0, buyer TEXT, PRIMARY KEY (station, receipt)
);
CREATE INDEX p_sales_session ON p_sales (session, station);
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
        "prizes_total, flare, state, received_hlc, received_by, tampered) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (serial) DO UPDATE SET "
        "game = excluded.game, name = excluded.name, form = excluded.form, "
        "manufacturer = excluded.manufacturer, tickets = excluded.tickets, "
        "price = excluded.price, prizes_total = excluded.prizes_total, flare = excluded.flare, "
        "received_hlc = excluded.received_hlc, received_by = excluded.received_by, "
        "tampered = excluded.tampered, state = CASE WHEN excluded.tampered = 1 THEN 'tampered' "
        "WHEN p_deals.state = 'unknown' THEN 'received' ELSE p_deals.state END",
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
            "tampered" if flare.tampered else "received",
            event.hlc,
            body.get("by"),
            int(flare.tampered),
        ),
    )
    if flare.tampered:
        conn.execute("DELETE FROM p_bins WHERE serial = ?", (flare.serial,))
    for tier in flare.prizes:
        conn.execute(
            "INSERT INTO p_prize_tiers (serial, amount, count) VALUES (?, ?, ?) "
            "ON CONFLICT (serial, amount) DO UPDATE SET count = excluded.count",
            (flare.serial, tier.amount, tier.count),
        )


def _ensure_deal(conn: sqlite3.Connection, serial: str) -> None:
    conn.execute("INSERT INTO p_deals (serial) VALUES (?) ON CONFLICT DO NOTHING", (serial,))


def _tampered(conn: sqlite3.Connection, serial: str) -> bool:
    row = conn.execute("SELECT tampered FROM p_deals WHERE serial = ?", (serial,)).fetchone()
    return bool(row and row[0])


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
    if _tampered(conn, serial) or not _names_holder(conn, event, serial):
        return
    conn.execute(
        "UPDATE p_deals SET state = 'in-play', holder = ?, bin = ?, opened_hlc = ? "
        "WHERE serial = ? AND state NOT IN ('closed', 'tampered')",
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
    if _tampered(conn, serial) or not _names_holder(conn, event, serial):
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
        "UPDATE p_deals SET state = 'closed', closed_hlc = ?, unsold = ?, keep_until = ?, "
        "offered_in = ?, close_note = ?, close_override = ? WHERE serial = ?",
        (
            event.hlc,
            int(body["unsold"]),
            body["keep_until"],
            ",".join(body.get("offered_in") or []) or None,
            body.get("note"),
            body.get("override_reason"),
            serial,
        ),
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
        "hlc, buyer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            int(body["receipt"]),
            serial,
            qty,
            amount,
            body["session"],
            body.get("seller"),
            event.hlc,
            body.get("for") or body.get("buyer"),  # who holds the tickets
        ),
    )


def _winner_paid(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """A ticket winner paid: one fewer of its tier left (the payment itself is winners')."""
    conn.execute(
        "UPDATE p_prize_tiers SET paid = paid + 1 WHERE serial = ? AND amount = ?",
        (body["serial"], int(body["amount"])),
    )


def _sale_voided(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """A sale voided, once: off its deal's and its session's totals."""
    station, receipt = body["station"], int(body["sale_receipt"])
    row = conn.execute(
        "SELECT serial, qty, amount, session, voided FROM p_sales WHERE station = ? AND "
        "receipt = ?",
        (station, receipt),
    ).fetchone()
    if row is None or row[4]:
        return
    serial, qty, amount, session, _ = row
    conn.execute(
        "UPDATE p_sales SET voided = 1 WHERE station = ? AND receipt = ?", (station, receipt)
    )
    conn.execute(
        "UPDATE p_deals SET sold = sold - ?, gross = gross - ? WHERE serial = ?",
        (qty, amount, serial),
    )
    conn.execute(
        "UPDATE p_session_sales SET qty = qty - ?, gross = gross - ? WHERE session = ? AND "
        "serial = ?",
        (qty, amount, session, serial),
    )


def _deals_resumed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """A session opened: the deals carried over into it are in play again."""
    for serial in body.get("resumed", []):
        conn.execute(
            "UPDATE p_deals SET state = 'in-play' WHERE serial = ? AND state = 'carried-over'",
            (serial,),
        )


def _deals_carried_over(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """A session closed: its unfinished deals carry over to the next."""
    for serial in body.get("carried_over", []):
        conn.execute(
            "UPDATE p_deals SET state = 'carried-over' WHERE serial = ? AND state = 'in-play'",
            (serial,),
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
    version=7,
    schema=SCHEMA,
    handlers={
        "DealReceived": _deal_received,
        "DealOpened": _deal_opened,
        "DealClosed": _deal_closed,
        "DealReleased": _deal_released,
        "DealAcquired": _deal_acquired,
        "TicketsSold": _tickets_sold,
        "WinnerRedeemed": _winner_paid,
        "SaleVoided": _sale_voided,
        "SessionOpened": _deals_resumed,
        "SessionClosed": _deals_carried_over,
        "OverrideGranted": _override_granted,
    },
)


# --- read models: deals -------------------------------------------------------------------------


def deal_on_file(conn: sqlite3.Connection, serial: str) -> dict[str, Any] | None:
    """A received deal's row (every column of p_deals), or None."""
    return dict_row(
        conn, "SELECT * FROM p_deals WHERE serial = ? AND received_hlc IS NOT NULL", (serial,)
    )


@dataclass(frozen=True)
class DealForSale:
    """What a sale checks of its deal."""

    serial: str
    state: str
    holder: str | None
    bin: str | None
    tickets: int
    sold: int
    released_to: str | None


def deal_for_sale(conn: sqlite3.Connection, serial: str) -> DealForSale | None:
    row = conn.execute(
        "SELECT serial, state, holder, bin, tickets, sold, released_to FROM p_deals "
        "WHERE serial = ? AND received_hlc IS NOT NULL",
        (serial,),
    ).fetchone()
    return DealForSale(*row) if row else None


def received_serials(conn: sqlite3.Connection) -> frozenset[str]:
    """Every deal received here (the intake refuses a serial twice)."""
    return frozenset(
        row[0] for row in conn.execute("SELECT serial FROM p_deals WHERE received_hlc IS NOT NULL")
    )


def deal_name(conn: sqlite3.Connection, serial: str) -> str | None:
    row = conn.execute("SELECT name FROM p_deals WHERE serial = ?", (serial,)).fetchone()
    return str(row[0]) if row and row[0] else None


def deal_flare_json(conn: sqlite3.Connection, serial: str) -> str | None:
    row = conn.execute("SELECT flare FROM p_deals WHERE serial = ?", (serial,)).fetchone()
    return str(row[0]) if row else None


def deal_figures(conn: sqlite3.Connection, serial: str) -> tuple[Any, ...] | None:
    """(game, name, form, price, tickets, prizes_total, state) of a deal, for the day report."""
    row = conn.execute(
        "SELECT game, name, form, price, tickets, prizes_total, state FROM p_deals "
        "WHERE serial = ?",
        (serial,),
    ).fetchone()
    return tuple(row) if row else None


def deal_list(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every deal received here and its state, by state and serial."""
    return dict_rows(
        conn,
        "SELECT serial, game, name, state, holder, bin, tickets, sold, price FROM p_deals "
        "WHERE received_hlc IS NOT NULL ORDER BY state, serial",
    )


def closed_deals(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Closed deals and until when their tickets are kept."""
    return dict_rows(
        conn,
        "SELECT serial, game, name, unsold, keep_until FROM p_deals WHERE state = 'closed' "
        "ORDER BY keep_until, serial",
    )


def deals_in_play(conn: sqlite3.Connection) -> list[tuple[str, str, str, int]]:
    """(serial, name, game, tickets left) of every deal in play, by serial."""
    return [
        (row[0], row[1], row[2], int(row[3]))
        for row in conn.execute(
            "SELECT serial, name, game, tickets - sold FROM p_deals WHERE state = 'in-play' "
            "ORDER BY serial"
        )
    ]


def carried_over_serials(conn: sqlite3.Connection) -> list[str]:
    return [
        row[0]
        for row in conn.execute(
            "SELECT serial FROM p_deals WHERE state = 'carried-over' ORDER BY serial"
        )
    ]


def seal_cards_held_by(conn: sqlite3.Connection, station: str) -> list[str]:
    """Serials of the seal card deals a station holds, received here."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT serial FROM p_deals WHERE game = 'seal-card' AND holder = ? "
            "AND received_hlc IS NOT NULL ORDER BY serial",
            (station,),
        )
    ]


def seal_cards_in_play(conn: sqlite3.Connection, *, exclude: str) -> list[tuple[str, str]]:
    """(serial, flare JSON) of the seal card deals in play but `exclude`, first opened first."""
    return [
        (row[0], row[1])
        for row in conn.execute(
            "SELECT serial, flare FROM p_deals WHERE state = 'in-play' AND game = 'seal-card' "
            "AND serial != ? ORDER BY opened_hlc",
            (exclude,),
        )
    ]


def games_in_bin(conn: sqlite3.Connection, station: str, bin_name: str) -> list[str]:
    """The games of the deals in a station's bin."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT d.game FROM p_bins b JOIN p_deals d USING (serial) "
            "WHERE b.station = ? AND b.bin = ?",
            (station, bin_name),
        )
    ]


# --- read models: prize tiers -------------------------------------------------------------------


def prize_tiers(conn: sqlite3.Connection, serial: str) -> list[tuple[int, int, int]]:
    """(amount, count, paid) of each prize tier of a deal, the highest first."""
    return [
        (int(row[0]), int(row[1]), int(row[2]))
        for row in conn.execute(
            "SELECT amount, count, paid FROM p_prize_tiers WHERE serial = ? ORDER BY amount DESC",
            (serial,),
        )
    ]


def winners_left(conn: sqlite3.Connection, serial: str, amount: int) -> int | None:
    """Winners of a tier not yet paid; None when the deal has no such tier."""
    row = conn.execute(
        "SELECT count - paid FROM p_prize_tiers WHERE serial = ? AND amount = ?", (serial, amount)
    ).fetchone()
    return int(row[0]) if row else None


# --- read models: sessions ----------------------------------------------------------------------


def sessions_offered(conn: sqlite3.Connection, serial: str) -> list[str]:
    """The sessions a deal was offered in: those open while it was in play (opened before its
    close, closed after it was put in play), and any it sold in."""
    row = conn.execute(
        "SELECT opened_hlc, closed_hlc FROM p_deals WHERE serial = ?", (serial,)
    ).fetchone()
    sold_in = conn.execute("SELECT session FROM p_session_sales WHERE serial = ?", (serial,))
    found = {str(r[0]) for r in sold_in}
    if row is not None and row[0] is not None:
        found.update(
            str(r[0])
            for r in conn.execute(
                "SELECT session FROM p_sessions WHERE (closed_hlc IS NULL OR closed_hlc > ?) "
                "AND (? IS NULL OR opened_hlc < ?)",
                (row[0], row[1], row[1]),
            )
        )
    return sorted(found)


# --- read models: sales -------------------------------------------------------------------------


def sold_on(conn: sqlite3.Connection, serial: str, game_date: str) -> bool:
    """Whether a deal sold tickets in a session of `game_date`."""
    row = conn.execute(
        "SELECT 1 FROM p_session_sales ss JOIN p_sessions s USING (session) WHERE ss.serial = ? "
        "AND s.game_date = ? AND ss.qty > 0 LIMIT 1",
        (serial, game_date),
    ).fetchone()
    return row is not None


def tickets_bought_on(conn: sqlite3.Connection, serial: str, buyer: str, game_date: str) -> int:
    """Tickets of a deal sold to an identified buyer (or bought for them) in the sessions of
    `game_date`, voided sales off."""
    row = conn.execute(
        "SELECT coalesce(sum(qty), 0) FROM p_sales s JOIN p_sessions USING (session) "
        "WHERE s.serial = ? AND s.buyer = ? AND s.voided = 0 AND p_sessions.game_date = ?",
        (serial, buyer, game_date),
    ).fetchone()
    return int(row[0])


def last_sale_date(conn: sqlite3.Connection, serial: str) -> str | None:
    """The last game date a deal sold tickets on."""
    row = conn.execute(
        "SELECT max(s.game_date) FROM p_session_sales ss JOIN p_sessions s USING (session) "
        "WHERE ss.serial = ? AND ss.qty > 0",
        (serial,),
    ).fetchone()
    return row[0] if row else None


def session_sales_of(conn: sqlite3.Connection, serial: str) -> list[dict[str, Any]]:
    """A deal's sales per session: session, qty, gross."""
    return dict_rows(
        conn,
        "SELECT session, qty, gross FROM p_session_sales WHERE serial = ? ORDER BY session",
        (serial,),
    )


def sales_by_deal(conn: sqlite3.Connection, sessions: Sequence[str]) -> dict[str, tuple[int, int]]:
    """serial -> (tickets sold, gross) over `sessions`."""
    return {
        row[0]: (int(row[1]), int(row[2]))
        for row in conn.execute(
            f"SELECT serial, sum(qty), sum(gross) FROM p_session_sales "
            f"WHERE session IN ({placeholders(sessions)}) GROUP BY serial",
            tuple(sessions),
        )
    }


def sale_on_receipt(conn: sqlite3.Connection, station: str, receipt: int) -> tuple[Any, ...] | None:
    """(serial, qty, amount, voided) of the sale a station recorded on a receipt."""
    row = conn.execute(
        "SELECT serial, qty, amount, voided FROM p_sales WHERE station = ? AND receipt = ?",
        (station, receipt),
    ).fetchone()
    return tuple(row) if row else None


def station_sales(
    conn: sqlite3.Connection, station: str, sessions: Sequence[str]
) -> tuple[int, int]:
    """(sales, cents) a station recorded over `sessions`, voided sales left out."""
    row = conn.execute(
        f"SELECT count(*), coalesce(sum(amount), 0) FROM p_sales WHERE station = ? "
        f"AND session IN ({placeholders(sessions)}) AND voided = 0",
        (station, *sessions),
    ).fetchone()
    return int(row[0]), int(row[1])


def seller_totals(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[str, int, int]]:
    """(seller or '(kiosk)', sales, cents) over `sessions`, voided sales left out."""
    return [
        (row[0], int(row[1]), int(row[2]))
        for row in conn.execute(
            f"SELECT coalesce(seller, '(kiosk)'), count(*), sum(amount) FROM p_sales "
            f"WHERE session IN ({placeholders(sessions)}) AND voided = 0 GROUP BY seller",
            tuple(sessions),
        )
    ]


def sale_stamps(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[str, int, str]]:
    """(hlc, cents, game) of each sale over `sessions`, voided sales left out."""
    return [
        (row[0], int(row[1]), row[2])
        for row in conn.execute(
            f"SELECT s.hlc, s.amount, d.game FROM p_sales s JOIN p_deals d USING (serial) "
            f"WHERE s.session IN ({placeholders(sessions)}) AND s.voided = 0",
            tuple(sessions),
        )
    ]


# --- read models: overrides --------------------------------------------------------


def overrides_between(conn: sqlite3.Connection, low: str, high: str) -> list[dict[str, Any]]:
    """Manager overrides stamped in [low, high): rule, reason, manager, subject."""
    return dict_rows(
        conn,
        "SELECT rule, reason, manager, subject FROM p_overrides WHERE hlc >= ? AND hlc < ? "
        "ORDER BY hlc",
        (low, high),
    )
