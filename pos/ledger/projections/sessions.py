"""Sessions and the schedule, as the log says they are: a session opened (the first stamp wins
when two stations opened it apart) and closed, and the game dates scheduled (C4 reads them)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from pos.ledger.events import Event
from pos.ledger.projections.base import Projection, forget, session_state_key

SCHEMA = """
CREATE TABLE p_sessions (
    session TEXT PRIMARY KEY, game_date TEXT NOT NULL, number INTEGER NOT NULL,
    opened_hlc TEXT NOT NULL, opened_by TEXT, opened_on TEXT,
    closed_hlc TEXT, closed_by TEXT, state TEXT NOT NULL
);
CREATE INDEX p_sessions_open ON p_sessions (state, opened_hlc);
CREATE TABLE p_schedule (
    game_date TEXT PRIMARY KEY, games TEXT NOT NULL, set_by TEXT, set_hlc TEXT NOT NULL
)
"""


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


def _session_closed(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    forget(session_state_key(body["session"]))
    conn.execute(
        "UPDATE p_sessions SET state = 'closed', closed_hlc = coalesce(min(closed_hlc, ?), ?), "
        "closed_by = coalesce(closed_by, ?) WHERE session = ?",
        (event.hlc, event.hlc, body.get("by"), body["session"]),
    )


def _session_scheduled(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_schedule VALUES (?, ?, ?, ?) ON CONFLICT (game_date) DO UPDATE SET "
        "games = excluded.games, set_by = excluded.set_by, set_hlc = excluded.set_hlc "
        "WHERE excluded.set_hlc > p_schedule.set_hlc",
        (body["game_date"], ",".join(body["games"]), body.get("by"), event.hlc),
    )


SESSIONS = Projection(
    name="sessions",
    version=1,
    schema=SCHEMA,
    handlers={
        "SessionOpened": _session_opened,
        "SessionClosed": _session_closed,
        "SessionScheduled": _session_scheduled,
    },
)


# --- read models --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Session:
    id: str
    game_date: str
    number: int
    state: str


def open_session(conn: sqlite3.Connection) -> Session | None:
    """The session open now (the latest opened, if several are)."""
    row = conn.execute(
        "SELECT session, game_date, number, state FROM p_sessions WHERE state = 'open' "
        "ORDER BY opened_hlc DESC LIMIT 1"
    ).fetchone()
    return Session(row[0], row[1], int(row[2]), row[3]) if row else None


def latest_session(conn: sqlite3.Connection) -> str | None:
    """The session opened last, open or closed."""
    row = conn.execute("SELECT session FROM p_sessions ORDER BY opened_hlc DESC LIMIT 1").fetchone()
    return str(row[0]) if row else None


def last_session_number(conn: sqlite3.Connection, game_date: str) -> int:
    """The highest session number held on a game date; 0 when none was."""
    row = conn.execute(
        "SELECT coalesce(max(number), 0) FROM p_sessions WHERE game_date = ?", (game_date,)
    ).fetchone()
    return int(row[0])


def session_held(conn: sqlite3.Connection, session: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM p_sessions WHERE session = ?", (session,)).fetchone()
        is not None
    )


def session_game_date(conn: sqlite3.Connection, session: str) -> str | None:
    row = conn.execute("SELECT game_date FROM p_sessions WHERE session = ?", (session,)).fetchone()
    return str(row[0]) if row else None


def sessions_on(conn: sqlite3.Connection, game_date: str) -> list[str]:
    """The sessions of a game date, by number."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT session FROM p_sessions WHERE game_date = ? ORDER BY number", (game_date,)
        )
    ]


def scheduled_after(conn: sqlite3.Connection, day: str, game: str) -> list[str]:
    """The scheduled game dates after `day` whose sessions sell `game` tickets, in order."""
    return [
        str(row[0])
        for row in conn.execute(
            "SELECT game_date, games FROM p_schedule WHERE game_date > ? ORDER BY game_date",
            (day,),
        )
        if game in str(row[1]).split(",")
    ]


def schedule(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every scheduled game date and the ticket types its sessions sell."""
    return [
        {"game_date": row[0], "games": str(row[1]).split(",")}
        for row in conn.execute("SELECT game_date, games FROM p_schedule ORDER BY game_date")
    ]
