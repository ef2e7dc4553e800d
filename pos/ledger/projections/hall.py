"""The hall, its stations and its staff, as the log says they are."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import TIME_ZONE, Projection, forget
from pos.ledger.rows import dict_rows

SCHEMA = """
CREATE TABLE p_hall (
    hall TEXT PRIMARY KEY, organisation TEXT NOT NULL, location TEXT NOT NULL,
    time_zone TEXT NOT NULL, training INTEGER NOT NULL, public_key TEXT NOT NULL,
    created_hlc TEXT NOT NULL
);
CREATE TABLE p_stations (
    station TEXT PRIMARY KEY, role TEXT NOT NULL, public_key TEXT NOT NULL,
    certificate TEXT NOT NULL, added_hlc TEXT NOT NULL, joined_hlc TEXT, location TEXT
);
CREATE TABLE p_staff (
    badge TEXT PRIMARY KEY, name TEXT NOT NULL, roles TEXT NOT NULL, date_of_birth TEXT,
    added_by TEXT, added_hlc TEXT NOT NULL, active INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE p_parental_consents (
    badge TEXT NOT NULL, name TEXT NOT NULL, guardian TEXT NOT NULL, signed TEXT NOT NULL,
    by TEXT, origin TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_parental_consents_badge ON p_parental_consents (badge)
"""


def _roster_staff(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """A roster imported names people the hall did not know: on its staff, with no role."""
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


def _hall_created(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    forget(TIME_ZONE)
    conn.execute(
        "INSERT OR REPLACE INTO p_hall VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            body["hall"],
            body["organisation"],
            body["location"],
            body["time_zone"],
            int(body["training"]),
            body["hall_public_key"],
            event.hlc,
        ),
    )
    _station_certified(conn, event, body)


def _station_certified(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    cert = body["certificate"]
    conn.execute(
        "INSERT INTO p_stations (station, role, public_key, certificate, added_hlc, location) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (station) "
        "DO UPDATE SET location = coalesce(p_stations.location, excluded.location)",
        (
            cert["station"],
            cert["role"],
            cert["key"],
            json.dumps(cert, sort_keys=True),
            event.hlc,
            body.get("location"),
        ),
    )
    if event.kind in ("StationJoined", "HallCreated"):
        conn.execute(
            "UPDATE p_stations SET joined_hlc = ? WHERE station = ?", (event.hlc, cert["station"])
        )


def _staff_added(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO p_staff (badge, name, roles, date_of_birth, added_by, added_hlc) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            body["badge"],
            body["name"],
            json.dumps(sorted(body["roles"])),
            body.get("date_of_birth"),
            body.get("by"),
            event.hlc,
        ),
    )


def _consent(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_parental_consents VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            body["badge"],
            body["name"],
            body["guardian"],
            body["signed"],
            body.get("by"),
            event.origin,
            event.seq,
        ),
    )


HALL = Projection(
    name="hall",
    version=4,
    schema=SCHEMA,
    handlers={
        "HallCreated": _hall_created,
        "StationAdded": _station_certified,
        "StationJoined": _station_certified,
        "StaffAdded": _staff_added,
        "ShiftsImported": _roster_staff,
        "ParentalConsentRecorded": _consent,
    },
)


# --- read models --------------------------------------------------------------------------------


def station_location(conn: sqlite3.Connection, station: str) -> str | None:
    """Where a station stands, as its certificate said; None when not said."""
    row = conn.execute("SELECT location FROM p_stations WHERE station = ?", (station,)).fetchone()
    return str(row[0]) if row and row[0] else None


def stations(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(station, role) of every station of the hall, by name."""
    return [
        (row[0], row[1])
        for row in conn.execute("SELECT station, role FROM p_stations ORDER BY station")
    ]


def station_certificates(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every station's key and certificate: station, role, public_key, certificate, location."""
    return dict_rows(
        conn, "SELECT station, role, public_key, certificate, location FROM p_stations"
    )


def station_identity(conn: sqlite3.Connection, station: str) -> tuple[str, str, str] | None:
    """(the hall's public key as its HallCreated said, the station's public key, its certificate
    as JSON) of `station`; None when the log holds no certificate for it (or no hall)."""
    row = conn.execute(
        "SELECT h.public_key, s.public_key, s.certificate FROM p_stations s, p_hall h "
        "WHERE s.station = ?",
        (station,),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]), str(row[2]))


def hall_is_training(conn: sqlite3.Connection) -> bool | None:
    """Whether the hall is a training hall; None before its HallCreated is held."""
    row = conn.execute("SELECT training FROM p_hall").fetchone()
    return bool(row[0]) if row else None


# --- read models: staff -------------------------------------------------------------------------


def staff_member(conn: sqlite3.Connection, badge: str) -> tuple[str, str, str | None] | None:
    """(badge, name, date of birth) of a staff record, active or not."""
    row = conn.execute(
        "SELECT badge, name, date_of_birth FROM p_staff WHERE badge = ?", (badge,)
    ).fetchone()
    return (row[0], row[1], row[2]) if row else None


def staff_people(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(badge, name, date of birth) of every staff record with a date of birth."""
    return [
        (row[0], row[1], row[2])
        for row in conn.execute(
            "SELECT badge, name, date_of_birth FROM p_staff WHERE date_of_birth IS NOT NULL"
        )
    ]


def staff_names(conn: sqlite3.Connection) -> dict[str, tuple[str, str | None]]:
    """badge -> (name, date of birth) of every staff record, active or not."""
    return {
        row[0]: (row[1], row[2])
        for row in conn.execute("SELECT badge, name, date_of_birth FROM p_staff")
    }


def active_staff(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """The active staff by name: badge, name, roles (a list), date_of_birth."""
    return [
        {"badge": row[0], "name": row[1], "roles": json.loads(row[2]), "date_of_birth": row[3]}
        for row in conn.execute(
            "SELECT badge, name, roles, date_of_birth FROM p_staff WHERE active = 1 ORDER BY name"
        )
    ]


def projection_errors(conn: sqlite3.Connection) -> list[tuple[str, int, str, str]]:
    """(origin, seq, type, error) of each event a projection could not take in."""
    return [
        (row[0], int(row[1]), row[2], row[3])
        for row in conn.execute("SELECT origin, seq, type, error FROM p_projection_errors")
    ]


def hall_settings(conn: sqlite3.Connection) -> tuple[str, str, str, str, bool] | None:
    """(hall, organisation, location, time zone, training) of the hall record, if held yet."""
    row = conn.execute(
        "SELECT hall, organisation, location, time_zone, training FROM p_hall"
    ).fetchone()
    return None if row is None else (row[0], row[1], row[2], row[3], bool(row[4]))


def active_staff_member(conn: sqlite3.Connection, badge: str) -> tuple[str, str, list[str]] | None:
    """(badge, name, roles) of an active member of staff. A badge typed in another case ("m100")
    finds its person when only one badge matches it so."""
    row = conn.execute(
        "SELECT badge, name, roles FROM p_staff WHERE badge = ? AND active = 1", (badge,)
    ).fetchone()
    if row is None:
        rows = conn.execute(
            "SELECT badge, name, roles FROM p_staff WHERE badge = ? COLLATE NOCASE AND active = 1 "
            "LIMIT 2",
            (badge,),
        ).fetchall()
        row = rows[0] if len(rows) == 1 else None
    return None if row is None else (row[0], row[1], list(json.loads(row[2])))


def parental_consent(conn: sqlite3.Connection, badge: str) -> tuple[str, str] | None:
    """(guardian, signed) of the earliest-signed written consent on file for `badge`."""
    row = conn.execute(
        "SELECT guardian, signed FROM p_parental_consents WHERE badge = ? "
        "ORDER BY signed, origin, seq LIMIT 1",
        (badge,),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def has_manager(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT 1 FROM p_staff, json_each(p_staff.roles) WHERE json_each.value = 'manager' LIMIT 1"
    ).fetchone()
    return row is not None
