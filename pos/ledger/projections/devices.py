"""Electronic bingo devices, packages, rentals and the faces each rental loaded (rule E)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import dict_rows, placeholders

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


# --- read models: devices -----------------------------------------------------------------------


def device_state(conn: sqlite3.Connection, device: str) -> str | None:
    """free, rented, defective or retired; None when the device is not on file."""
    row = conn.execute("SELECT state FROM p_devices WHERE device = ?", (device,)).fetchone()
    return str(row[0]) if row else None


def device_list(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every device, its state and its rental if rented: device, model, state, session, faces,
    games, buyer."""
    return dict_rows(
        conn,
        "SELECT d.device, d.model, d.state, r.session, r.faces, r.games, r.buyer "
        "FROM p_devices d LEFT JOIN p_rentals r ON r.origin = d.rental_origin "
        "AND r.seq = d.rental_seq ORDER BY d.device",
    )


def next_free_device(conn: sqlite3.Connection) -> str | None:
    """The device free the longest (first come, first served: E.1.d)."""
    row = conn.execute(
        "SELECT device FROM p_devices WHERE state = 'free' ORDER BY free_since, device LIMIT 1"
    ).fetchone()
    return str(row[0]) if row else None


def devices_not_returned(conn: sqlite3.Connection, session: str) -> list[tuple[str, str | None]]:
    """(device, buyer) of each device still rented out in a session."""
    return [
        (row[0], row[1])
        for row in conn.execute(
            "SELECT d.device, r.buyer FROM p_devices d JOIN p_rentals r "
            "ON r.origin = d.rental_origin AND r.seq = d.rental_seq "
            "WHERE d.state = 'rented' AND r.session = ?",
            (session,),
        )
    ]


# --- read models: packages ----------------------------------------------------------------------


@dataclass(frozen=True)
class Package:
    name: str
    faces: int
    games: int
    price: int


def packages(conn: sqlite3.Connection) -> list[Package]:
    """Every rental package, cheapest first."""
    return [
        Package(row[0], int(row[1]), int(row[2]), int(row[3]))
        for row in conn.execute(
            "SELECT name, faces, games, price FROM p_packages ORDER BY price, faces"
        )
    ]


def packages_by_faces(conn: sqlite3.Connection) -> list[Package]:
    """Every rental package, fewest faces first."""
    return [
        Package(row[0], int(row[1]), int(row[2]), int(row[3]))
        for row in conn.execute("SELECT name, faces, games, price FROM p_packages ORDER BY faces")
    ]


def package_for(conn: sqlite3.Connection, faces: int, games: int) -> tuple[str, int] | None:
    """(name, price) of the package of `faces` faces for `games` games."""
    row = conn.execute(
        "SELECT name, price FROM p_packages WHERE faces = ? AND games = ?", (faces, games)
    ).fetchone()
    return (str(row[0]), int(row[1])) if row else None


# --- read models: rentals and faces -------------------------------------------------------------


def last_face(conn: sqlite3.Connection, series: str) -> int:
    """The last face number loaded from a series; 0 before the first."""
    row = conn.execute("SELECT last FROM p_face_series WHERE series = ?", (series,)).fetchone()
    return int(row[0]) if row else 0


@dataclass(frozen=True)
class LoadedFaces:
    series: str
    first_face: int
    faces: int
    games: int
    session: str


def loaded_faces(conn: sqlite3.Connection, device: str) -> LoadedFaces | None:
    """The faces a rented device holds, from its rental; None when it is not rented."""
    row = conn.execute(
        "SELECT r.series, r.first_face, r.faces, r.games, r.session FROM p_devices d "
        "JOIN p_rentals r ON r.origin = d.rental_origin AND r.seq = d.rental_seq "
        "WHERE d.device = ?",
        (device,),
    ).fetchone()
    return LoadedFaces(row[0], int(row[1]), int(row[2]), int(row[3]), row[4]) if row else None


def rental_totals(conn: sqlite3.Connection, sessions: Sequence[str]) -> tuple[int, int]:
    """(rentals, cents) over `sessions`."""
    row = conn.execute(
        f"SELECT count(*), coalesce(sum(amount), 0) FROM p_rentals "
        f"WHERE session IN ({placeholders(sessions)})",
        tuple(sessions),
    ).fetchone()
    return int(row[0]), int(row[1])


def station_rentals(conn: sqlite3.Connection, station: str, sessions: Sequence[str]) -> int:
    """Cents a station took for rentals over `sessions`."""
    row = conn.execute(
        f"SELECT coalesce(sum(amount), 0) FROM p_rentals WHERE origin = ? AND "
        f"session IN ({placeholders(sessions)})",
        (station, *sessions),
    ).fetchone()
    return int(row[0])


def rental_stamps(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[str, int]]:
    """(hlc, cents) of each rental over `sessions`."""
    return [
        (row[0], int(row[1]))
        for row in conn.execute(
            f"SELECT hlc, amount FROM p_rentals WHERE session IN ({placeholders(sessions)})",
            tuple(sessions),
        )
    ]


def renter(conn: sqlite3.Connection, device: str) -> str | None:
    """Who rented a device now rented out (a buyer code), or None."""
    row = conn.execute(
        "SELECT r.buyer FROM p_devices d JOIN p_rentals r ON r.origin = d.rental_origin "
        "AND r.seq = d.rental_seq WHERE d.device = ?",
        (device,),
    ).fetchone()
    return str(row[0]) if row and row[0] else None
