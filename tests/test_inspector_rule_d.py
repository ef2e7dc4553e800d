"""Issue #28: rule D counts the record, not only the roster. 11VAC15-40-60 D: no one involved
in conducting bingo plays at a session they worked or are rostered to work; whoever the ledger
shows working a session (selling its paper, packs, decision or chest entries or device rentals,
paying its prizes, counting its cash, recording its games) is a worker of it."""

from __future__ import annotations

from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, refused
from tests.test_bingo_session import bingo_hall, ok

__all__ = ["bingo_hall"]  # the fixture, shared with the session's tests

S = ("--as", "S1")


def kinds(hall: Hall) -> list[str]:
    """The type of every event on the hall's ledger, oldest first."""
    with Station(hall.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as station:
        return [row[0] for row in station.ledger.conn.execute("SELECT type FROM events")]


def test_whoever_sold_a_sessions_paper_plays_none_of_its_games(bingo_hall: Hall) -> None:
    """11VAC15-40-60 D: no one "involved in conducting bingo" plays at a session they worked.
    S1 is on no roster; the ledger shows S1 selling this session's paper, so S1 is a worker of
    it: buying its paper, entering its decision game or its chest, or being paid its prize is
    refused (exit 1, rule D), the attempt recorded and nothing sold."""
    hall = bingo_hall
    ok(hall("session", "open"))
    ok(hall("paper", "sell", "--pack", "Door", "--qty", "1", *S, "--json"))
    before = kinds(hall)
    for attempt in (
        ("paper", "sell", "--pack", "Door", "--qty", "1", "--buyer", "S1"),
        ("paper", "sell", "--series", "PROG", "--qty", "1", "--buyer", "S1"),
        ("bingo", "decision", "enter", "--game", "4", "--faces", "3", "--buyer", "S1"),
        ("bingo", "chest", "sell", "--game", "8", "--qty", "1", "--buyer", "S1"),
        ("rent", "--faces", "12", "--games", "10", "--buyer", "S1"),
    ):
        result = hall(*attempt)
        refused(result, "D")
        assert "2026-11-28/1" in result.stderr, result.stderr
    after = kinds(hall)
    assert after[: len(before)] == before
    assert set(after[len(before) :]) == {"PurchaseBlocked"}
    assert hall("check-buyer", "S1", "--json").json["bingo"]["allowed"] is False


def test_paying_a_prize_or_counting_a_drawer_makes_a_worker_of_the_session(
    bingo_hall: Hall,
) -> None:
    """D: every kind of work the record shows counts, not only selling paper: M1 pays game 1's
    prize (and is then refused its paper); W2 counts the drawer (and is then refused too)."""
    hall = bingo_hall
    ok(hall("staff", "add", "--name", "Wes Two", "--badge", "W2", "--role", "seller", "--dob",
            "1981-03-03"))  # fmt: skip
    ok(hall("session", "open"))
    ok(hall("bingo", "pay", "--game", "1", "--amount", "100.00"))  # by M1
    refused(hall("paper", "sell", "--pack", "Door", "--buyer", "M1", *S), "D")
    ok(hall("paper", "sell", "--pack", "Door", "--buyer", "W2", *S))  # W2 has not worked yet
    ok(hall("drawer", "count", "20.00", "--as", "W2"))
    refused(hall("paper", "sell", "--pack", "Door", "--buyer", "W2", *S), "D")


def test_work_at_one_session_leaves_the_next_one_open_to_play(bingo_hall: Hall) -> None:
    """D names the session worked: S1 sold paper at session 1 and plays session 2 of the day."""
    hall = bingo_hall
    ok(hall("session", "open"))
    ok(hall("paper", "sell", "--pack", "Door", *S))
    ok(hall("session", "close"))
    second = ok(hall("session", "open", "--json"))
    assert second["session"] == "2026-11-28/2"
    ok(hall("paper", "sell", "--pack", "Door", "--buyer", "S1"))
