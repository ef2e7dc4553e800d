"""The games of a bingo session, as the log says they are: decision bingo, progressive games,
treasure chests and bingo prizes paid."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pos.domain.money import amount_cents
from pos.ledger.events import Event
from pos.ledger.projections.base import Projection
from pos.ledger.rows import dict_rows, placeholders

SCHEMA = """
CREATE TABLE p_decision (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, session TEXT NOT NULL, game INTEGER NOT NULL,
    what TEXT NOT NULL, count INTEGER NOT NULL, unit INTEGER NOT NULL, amount INTEGER NOT NULL,
    round INTEGER, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_decision_session ON p_decision (session, game);
CREATE TABLE p_decision_announced (
    session TEXT NOT NULL, game INTEGER NOT NULL, paid_in INTEGER NOT NULL,
    prize INTEGER NOT NULL, retained INTEGER NOT NULL, hlc TEXT NOT NULL,
    PRIMARY KEY (session, game)
);
CREATE TABLE p_progressives (
    name TEXT PRIMARY KEY, calls INTEGER NOT NULL, pool INTEGER NOT NULL,
    start_calls INTEGER NOT NULL, start_pool INTEGER NOT NULL, series TEXT NOT NULL,
    updated_hlc TEXT NOT NULL
);
CREATE TABLE p_progressive_plays (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, session TEXT NOT NULL, game INTEGER NOT NULL,
    name TEXT NOT NULL, won INTEGER NOT NULL, calls INTEGER NOT NULL, pool INTEGER NOT NULL,
    next_calls INTEGER NOT NULL, next_pool INTEGER NOT NULL, hlc TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
);
CREATE INDEX p_progressive_plays_session ON p_progressive_plays (session, game);
CREATE TABLE p_bingo_prizes (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, session TEXT NOT NULL, game INTEGER NOT NULL,
    kind TEXT NOT NULL, name TEXT NOT NULL, amount INTEGER NOT NULL, winners INTEGER NOT NULL,
    as_regular INTEGER NOT NULL, reportable INTEGER NOT NULL, game_date TEXT NOT NULL,
    receipt INTEGER, by TEXT, hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_bingo_prizes_session ON p_bingo_prizes (session, game);
CREATE INDEX p_bingo_prizes_date ON p_bingo_prizes (game_date, kind);
CREATE TABLE p_chest_sales (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, session TEXT NOT NULL, game INTEGER NOT NULL,
    qty INTEGER NOT NULL, price INTEGER NOT NULL, amount INTEGER NOT NULL, receipt INTEGER,
    hlc TEXT NOT NULL, PRIMARY KEY (origin, seq)
);
CREATE INDEX p_chest_sales_session ON p_chest_sales (session);
CREATE TABLE p_chest_events (
    origin TEXT NOT NULL, seq INTEGER NOT NULL, session TEXT NOT NULL, game INTEGER NOT NULL,
    what TEXT NOT NULL, via_game INTEGER, player TEXT, opened INTEGER, keys_tried INTEGER,
    every_key INTEGER, prize INTEGER NOT NULL DEFAULT 0, hlc TEXT NOT NULL,
    PRIMARY KEY (origin, seq)
);
CREATE INDEX p_chest_events_session ON p_chest_events (session, game)
"""


def _progressives_defined(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    """A program defined: each progressive game it names starts (or restarts) from the
    program's calls and prize."""
    program = body["program"]
    for game in program.get("games", []):
        if game.get("kind") != "progressive":
            continue
        calls = int(game["calls"])
        pool = amount_cents(game["prize"])
        conn.execute(
            "INSERT INTO p_progressives VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE "
            "SET start_calls = excluded.start_calls, start_pool = excluded.start_pool, "
            "series = excluded.series",
            (game["name"], calls, pool, calls, pool, game.get("paper", ""), event.hlc),
        )


def _decision_entered(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_decision VALUES (?, ?, ?, ?, 'entry', ?, ?, ?, NULL, ?)",
        (
            event.origin,
            event.seq,
            body["session"],
            int(body["game"]),
            int(body["faces"]),
            int(body["entry"]),
            int(body["amount"]),
            event.hlc,
        ),
    )


def _decision_fees(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_decision VALUES (?, ?, ?, ?, 'fees', ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["session"],
            int(body["game"]),
            int(body["cards"]),
            int(body["fee"]),
            int(body["amount"]),
            int(body["round"]),
            event.hlc,
        ),
    )


def _decision_announced(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO p_decision_announced VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session, game) "
        "DO UPDATE SET paid_in = excluded.paid_in, prize = excluded.prize, "
        "retained = excluded.retained, hlc = excluded.hlc WHERE excluded.hlc > hlc",
        (
            body["session"],
            int(body["game"]),
            int(body["paid_in"]),
            int(body["prize"]),
            int(body["retained"]),
            event.hlc,
        ),
    )


def _progressive(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_progressive_plays VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["session"],
            int(body["game"]),
            body["name"],
            int(bool(body["won"])),
            int(body["calls"]),
            int(body["pool"]),
            int(body["next_calls"]),
            int(body["next_pool"]),
            event.hlc,
        ),
    )
    conn.execute(
        "UPDATE p_progressives SET calls = ?, pool = ?, updated_hlc = ? "
        "WHERE name = ? AND updated_hlc < ?",
        (int(body["next_calls"]), int(body["next_pool"]), event.hlc, body["name"], event.hlc),
    )


def _prize(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    winners = body["winners"]
    conn.execute(
        "INSERT OR IGNORE INTO p_bingo_prizes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["session"],
            int(body["game"]),
            body["kind"],
            body["name"],
            int(body["amount"]),
            len(winners),
            int(bool(body.get("as_regular"))),
            sum(1 for w in winners if w.get("w2g")),
            body["game_date"],
            body.get("receipt"),
            body.get("by"),
            event.hlc,
        ),
    )


def _chest_sold(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_chest_sales VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["session"],
            int(body["game"]),
            int(body["qty"]),
            int(body["price"]),
            int(body["amount"]),
            body.get("receipt"),
            event.hlc,
        ),
    )


def _chest_participant(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_chest_events (origin, seq, session, game, what, via_game, "
        "player, hlc) VALUES (?, ?, ?, ?, 'participant', ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["session"],
            int(body["game"]),
            int(body["via_game"]),
            body.get("player"),
            event.hlc,
        ),
    )


def _chest_opened(conn: sqlite3.Connection, event: Event, body: dict[str, Any]) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO p_chest_events (origin, seq, session, game, what, opened, "
        "keys_tried, every_key, prize, hlc) VALUES (?, ?, ?, ?, 'outcome', ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            body["session"],
            int(body["game"]),
            int(bool(body["opened"])),
            int(body.get("keys_tried") or 0),
            int(bool(body.get("every_key_tried"))),
            int(body.get("prize") or 0),
            event.hlc,
        ),
    )


BINGO_GAMES = Projection(
    name="bingo_games",
    version=1,
    schema=SCHEMA,
    handlers={
        "ProgramDefined": _progressives_defined,
        "DecisionEntered": _decision_entered,
        "DecisionFeesCollected": _decision_fees,
        "DecisionPrizeAnnounced": _decision_announced,
        "ProgressivePlayed": _progressive,
        "BingoPrizePaid": _prize,
        "ChestSold": _chest_sold,
        "ChestParticipantChosen": _chest_participant,
        "ChestOpened": _chest_opened,
    },
)


# --- read models ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionTotals:
    session: str
    game: int
    faces: int  # card faces entered
    entries: int  # cents
    rounds: int  # rounds of fees collected
    fees: int  # cents
    announced_prize: int | None
    announced_retained: int | None


def decision_totals(conn: sqlite3.Connection, session: str, game: int) -> DecisionTotals:
    row = conn.execute(
        "SELECT coalesce(sum(CASE WHEN what = 'entry' THEN count END), 0), "
        "coalesce(sum(CASE WHEN what = 'entry' THEN amount END), 0), "
        "count(CASE WHEN what = 'fees' THEN 1 END), "
        "coalesce(sum(CASE WHEN what = 'fees' THEN amount END), 0) "
        "FROM p_decision WHERE session = ? AND game = ?",
        (session, game),
    ).fetchone()
    announced = conn.execute(
        "SELECT prize, retained FROM p_decision_announced WHERE session = ? AND game = ?",
        (session, game),
    ).fetchone()
    return DecisionTotals(
        session,
        game,
        int(row[0]),
        int(row[1]),
        int(row[2]),
        int(row[3]),
        int(announced[0]) if announced else None,
        int(announced[1]) if announced else None,
    )


def decision_games(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[str, int]]:
    return [
        (r[0], int(r[1]))
        for r in conn.execute(
            f"SELECT DISTINCT session, game FROM p_decision WHERE session IN "
            f"({placeholders(sessions)}) ORDER BY session, game",
            tuple(sessions),
        )
    ]


def last_decision_round(conn: sqlite3.Connection, session: str, game: int) -> int:
    row = conn.execute(
        "SELECT coalesce(max(round), 0) FROM p_decision WHERE session = ? AND game = ? "
        "AND what = 'fees'",
        (session, game),
    ).fetchone()
    return int(row[0])


@dataclass(frozen=True)
class Progressive:
    name: str
    calls: int
    pool: int
    start_calls: int
    start_pool: int
    series: str


def progressive(conn: sqlite3.Connection, name: str) -> Progressive | None:
    row = conn.execute(
        "SELECT name, calls, pool, start_calls, start_pool, series FROM p_progressives "
        "WHERE name = ?",
        (name,),
    ).fetchone()
    return (
        Progressive(row[0], int(row[1]), int(row[2]), int(row[3]), int(row[4]), row[5])
        if row
        else None
    )


@dataclass(frozen=True)
class ProgressivePlay:
    session: str
    game: int
    name: str
    won: bool
    calls: int
    pool: int
    next_calls: int
    next_pool: int


def progressive_plays(
    conn: sqlite3.Connection, sessions: Sequence[str], name: str | None = None
) -> list[ProgressivePlay]:
    sql = (
        "SELECT session, game, name, won, calls, pool, next_calls, next_pool "
        f"FROM p_progressive_plays WHERE session IN ({placeholders(sessions)})"
    )
    params: list[Any] = list(sessions)
    if name is not None:
        sql += " AND name = ?"
        params.append(name)
    return [
        ProgressivePlay(
            r[0], int(r[1]), r[2], bool(r[3]), int(r[4]), int(r[5]), int(r[6]), int(r[7])
        )
        for r in conn.execute(sql + " ORDER BY hlc", params)
    ]


def progressive_history(conn: sqlite3.Connection, name: str) -> list[ProgressivePlay]:
    return [
        ProgressivePlay(
            r[0], int(r[1]), r[2], bool(r[3]), int(r[4]), int(r[5]), int(r[6]), int(r[7])
        )
        for r in conn.execute(
            "SELECT session, game, name, won, calls, pool, next_calls, next_pool "
            "FROM p_progressive_plays WHERE name = ? ORDER BY hlc",
            (name,),
        )
    ]


@dataclass(frozen=True)
class PrizePaid:
    origin: str
    seq: int
    session: str
    game: int
    kind: str
    name: str
    amount: int
    winners: int
    as_regular: bool
    reportable: int
    receipt: int | None
    by: str | None


def prizes_paid(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[PrizePaid]:
    return [
        PrizePaid(
            r[0],
            int(r[1]),
            r[2],
            int(r[3]),
            r[4],
            r[5],
            int(r[6]),
            int(r[7]),
            bool(r[8]),
            int(r[9]),
            r[10],
            r[11],
        )
        for r in conn.execute(
            "SELECT origin, seq, session, game, kind, name, amount, winners, as_regular, "
            f"reportable, receipt, by FROM p_bingo_prizes WHERE session IN "
            f"({placeholders(sessions)}) ORDER BY hlc",
            tuple(sessions),
        )
    ]


def game_prizes(conn: sqlite3.Connection, session: str, game: int) -> int:
    """Cents paid for a game of a session."""
    row = conn.execute(
        "SELECT coalesce(sum(amount), 0) FROM p_bingo_prizes WHERE session = ? AND game = ?",
        (session, game),
    ).fetchone()
    return int(row[0])


def games_paid_above(conn: sqlite3.Connection, session: str, limit: int) -> dict[int, int]:
    """Game number -> cents paid, for each regular, special or WINGO game of a session (or a
    progressive game played on as a regular one) whose prizes together are above `limit`,
    whatever version of the program it was paid under."""
    return {
        int(r[0]): int(r[1])
        for r in conn.execute(
            "SELECT game, sum(amount) FROM p_bingo_prizes WHERE session = ? AND "
            "(kind IN ('regular', 'special', 'wingo') OR as_regular = 1) GROUP BY game "
            "HAVING sum(amount) > ? ORDER BY game",
            (session, limit),
        )
    }


def game_has_winner(conn: sqlite3.Connection, session: str, game: int) -> bool:
    row = conn.execute(
        "SELECT 1 FROM p_bingo_prizes WHERE session = ? AND game = ? LIMIT 1", (session, game)
    ).fetchone()
    return row is not None


def jackpots_paid_on(conn: sqlite3.Connection, game_date: str) -> int:
    row = conn.execute(
        "SELECT coalesce(sum(amount), 0) FROM p_bingo_prizes WHERE game_date = ? "
        "AND kind = 'jackpot'",
        (game_date,),
    ).fetchone()
    return int(row[0])


def station_bingo_cash(conn: sqlite3.Connection, station: str, sessions: Sequence[str]) -> int:
    """Cents a station's drawer took in for bingo (paper and packs less returns, decision
    entries and fees, treasure chest sales) less the bingo prizes it paid."""
    ss = tuple(sessions)
    marks = placeholders(ss)
    row = conn.execute(
        f"SELECT (SELECT coalesce(sum(amount), 0) FROM p_paper_sales WHERE origin = ? AND "
        f"returned = 0 AND session IN ({marks})) "
        f"+ (SELECT coalesce(sum(amount), 0) FROM p_decision WHERE origin = ? AND session IN "
        f"({marks})) "
        f"+ (SELECT coalesce(sum(amount), 0) FROM p_chest_sales WHERE origin = ? AND session IN "
        f"({marks})) "
        f"- (SELECT coalesce(sum(amount), 0) FROM p_bingo_prizes WHERE origin = ? AND session "
        f"IN ({marks})) "
        f"- (SELECT coalesce(sum(prize), 0) FROM p_chest_events WHERE origin = ? AND session IN "
        f"({marks}))",
        (station, *ss, station, *ss, station, *ss, station, *ss, station, *ss),
    ).fetchone()
    return int(row[0])


@dataclass(frozen=True)
class ChestTotals:
    session: str
    game: int
    sold: int  # entries sold
    gross: int  # cents
    participants: list[dict[str, Any]]  # via_game, player
    outcomes: list[dict[str, Any]]  # opened, keys_tried, every_key, prize
    prizes: int


def chest_totals(conn: sqlite3.Connection, session: str, game: int) -> ChestTotals:
    sold = conn.execute(
        "SELECT coalesce(sum(qty), 0), coalesce(sum(amount), 0) FROM p_chest_sales "
        "WHERE session = ? AND game = ?",
        (session, game),
    ).fetchone()
    participants = dict_rows(
        conn,
        "SELECT via_game, player FROM p_chest_events WHERE session = ? AND game = ? "
        "AND what = 'participant' ORDER BY hlc",
        (session, game),
    )
    outcomes = dict_rows(
        conn,
        "SELECT opened, keys_tried, every_key, prize FROM p_chest_events WHERE session = ? "
        "AND game = ? AND what = 'outcome' ORDER BY hlc",
        (session, game),
    )
    return ChestTotals(
        session,
        game,
        int(sold[0]),
        int(sold[1]),
        participants,
        outcomes,
        sum(int(o["prize"]) for o in outcomes),
    )


def chest_games(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[str, int]]:
    ss = tuple(sessions)
    return [
        (r[0], int(r[1]))
        for r in conn.execute(
            f"SELECT session, game FROM p_chest_sales WHERE session IN ({placeholders(ss)}) "
            f"UNION SELECT session, game FROM p_chest_events WHERE session IN "
            f"({placeholders(ss)}) ORDER BY 1, 2",
            (*ss, *ss),
        )
    ]


def decision_events(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[Any, ...]]:
    """(origin, seq, event type, session, game, faces or cards, cents) of each decision bingo
    entry and round of fees in `sessions`."""
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT origin, seq, CASE what WHEN 'entry' THEN 'DecisionEntered' "
            "ELSE 'DecisionFeesCollected' END, session, game, count, amount FROM p_decision "
            f"WHERE session IN ({placeholders(sessions)}) ORDER BY session, origin, seq",
            tuple(sessions),
        )
    ]


def chest_sale_events(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[Any, ...]]:
    """(origin, seq, session, game, entries, cents) of each treasure chest sale in `sessions`."""
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT origin, seq, session, game, qty, amount FROM p_chest_sales "
            f"WHERE session IN ({placeholders(sessions)}) ORDER BY session, origin, seq",
            tuple(sessions),
        )
    ]


def chest_prize_events(conn: sqlite3.Connection, sessions: Sequence[str]) -> list[tuple[Any, ...]]:
    """(origin, seq, session, game, cents) of each treasure chest opened with a prize in
    `sessions`."""
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT origin, seq, session, game, prize FROM p_chest_events "
            f"WHERE what = 'outcome' AND prize > 0 AND session IN ({placeholders(sessions)}) "
            "ORDER BY session, origin, seq",
            tuple(sessions),
        )
    ]
