"""Electronic bingo devices, packages, rentals and the faces each rental loaded (rule E)."""

from __future__ import annotations

import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_devices (
    device TEXT PRIMARY KEY, model TEXT, state TEXT NOT NULL, free_since TEXT,
    rental_origin TEXT, rental_seq INTEGER
);
CREATE INDEX p_devices_free ON p_devices (state, free_since);
CREATE TABLE p_packages (
    name TEXT PRIMARY KEY, faces INTEGER NOT NULL, games INTEGER NOT NULL,
    price INTEGER NOT NULL
);
CREATE TABLE p_rentals (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, device TEXT NOT NULL, session TEXT NOT NULL,
    faces INTEGER NOT NULL, games INTEGER NOT NULL, series TEXT NOT NULL,
    first_face INTEGER NOT NULL, amount INTEGER NOT NULL, buyer TEXT, receipt INTEGER,
    returned_hlc TEXT, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_rentals_session ON p_rentals (session);
CREATE TABLE p_face_series (series TEXT PRIMARY KEY, last INTEGER NOT NULL);
CREATE TABLE p_exchanges (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, old TEXT NOT NULL, new TEXT NOT NULL,
    witness TEXT NOT NULL, game INTEGER, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
)
"""


def _added(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_devices (device, model, state, free_since) VALUES (?, ?, 'free', ?) "
        "ON CONFLICT (device) DO UPDATE SET model = excluded.model, state = 'free', "
        "free_since = excluded.free_since WHERE p_devices.state = 'retired'",
        (body["device"], body.get("model"), event.hlc),
    )


def _retired(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_devices SET state = 'retired', free_since = NULL WHERE device = ?",
        (body["device"],),
    )


def _package(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO p_packages VALUES (?, ?, ?, ?)",
        (body["name"], int(body["faces"]), int(body["games"]), int(body["price"])),
    )


def _rented(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE p_devices SET state = 'rented', free_since = NULL, rental_origin = ?, "
        "rental_seq = ? WHERE device = ?",
        (event.origin, event.seq, body["device"]),
    )
    conn.execute(
        "INSERT OR IGNORE INTO p_rentals VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
        (
            event.origin,
            event.seq,
            body["device"],
            body["session"],
            int(body["faces"]),
            int(body["games"]),
            body["series"],
            int(body["first_face"]),
            int(body["amount"]),
            body.get("buyer"),
            body.get("receipt"),
            event.hlc,
        ),
    )
    last = int(body["first_face"]) + int(body["faces"]) * int(body["games"]) - 1
    conn.execute(
        "INSERT INTO p_face_series VALUES (?, ?) ON CONFLICT (series) "
        "DO UPDATE SET last = max(last, excluded.last)",
        (body["series"], last),
    )


def _returned(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    row = conn.execute(
        "SELECT rental_origin, rental_seq FROM p_devices WHERE device = ?", (body["device"],)
    ).fetchone()
    conn.execute(
        "UPDATE p_devices SET state = 'free', free_since = ?, rental_origin = NULL, "
        "rental_seq = NULL WHERE device = ? AND state = 'rented'",
        (event.hlc, body["device"]),
    )
    if row and row[0]:
        conn.execute(
            "UPDATE p_rentals SET returned_hlc = ? WHERE origin = ? AND seq = ?",
            (event.hlc, row[0], row[1]),
        )


def _exchanged(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    old, new = body["old"], body["new"]
    row = conn.execute(
        "SELECT rental_origin, rental_seq FROM p_devices WHERE device = ?", (old,)
    ).fetchone()
    conn.execute(
        "UPDATE p_devices SET state = 'defective', free_since = NULL, "
        "rental_origin = NULL, rental_seq = NULL WHERE device = ?",
        (old,),
    )
    if row and row[0]:
        conn.execute(
            "UPDATE p_devices SET state = 'rented', free_since = NULL, "
            "rental_origin = ?, rental_seq = ? WHERE device = ?",
            (row[0], row[1], new),
        )
        conn.execute(
            "UPDATE p_rentals SET device = ? WHERE origin = ? AND seq = ?", (new, row[0], row[1])
        )
    conn.execute(
        "INSERT OR IGNORE INTO p_exchanges VALUES (?, ?, ?, ?, ?, ?, ?)",
        (event.origin, event.seq, old, new, body["witness"], body.get("game"), event.hlc),
    )


DEVICES = Projection(
    name="devices",
    version=2,
    schema=SCHEMA,
    handlers={
        "DeviceAdded": _added,
        "DeviceRetired": _retired,
        "PackageDefined": _package,
        "DeviceRented": _rented,
        "DeviceReturned": _returned,
        "DeviceExchanged": _exchanged,
    },
)
