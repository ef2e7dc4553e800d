"""Registered player cards: a keyed hash of the ID number, the 18+ flag, initials."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection

SCHEMA = """
CREATE TABLE p_players (
    card TEXT PRIMARY KEY, initials TEXT NOT NULL, adult INTEGER NOT NULL, id_sha256 TEXT,
    checked_on TEXT, person TEXT, registered_hlc TEXT NOT NULL, person_whole TEXT
)
"""


def _player_registered(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_players VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (card) DO UPDATE SET "
        "initials = excluded.initials, adult = excluded.adult, id_sha256 = excluded.id_sha256, "
        "checked_on = excluded.checked_on, person = excluded.person, "
        "registered_hlc = excluded.registered_hlc, person_whole = excluded.person_whole "
        "WHERE excluded.registered_hlc > p_players.registered_hlc",
        (
            body["card"],
            body["initials"],
            int(body["adult"]),
            body.get("id_sha256"),
            body.get("checked_on"),
            body.get("person"),
            event.hlc,
            body.get("person_whole"),
        ),
    )


PLAYERS = Projection(
    name="players", version=3, schema=SCHEMA, handlers={"PlayerRegistered": _player_registered}
)


# --- read models --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerCard:
    card: str
    initials: str
    adult: bool
    person: str | None  # the keyed hash of the person, when registered from an ID
    #: the same with every given name fused ("Mary-Ann", "MARY ANN": "maryann"), when that
    #: differs: the key a staff list writing "Maryann" gives
    person_whole: str | None = None

    @property
    def persons(self) -> frozenset[str]:
        return frozenset(key for key in (self.person, self.person_whole) if key)


def player_card(conn: sqlite3.Connection, card: str) -> PlayerCard | None:
    row = conn.execute(
        "SELECT card, initials, adult, person, person_whole FROM p_players WHERE card = ?",
        (card,),
    ).fetchone()
    return PlayerCard(row[0], row[1], bool(row[2]), row[3], row[4]) if row else None


def card_id_hash(conn: sqlite3.Connection, card: str) -> str | None:
    """The keyed hash of the ID a player card was registered with, or None."""
    row = conn.execute("SELECT id_sha256 FROM p_players WHERE card = ?", (card,)).fetchone()
    return str(row[0]) if row and row[0] else None
