"""Issue #28: expected cash belongs to its session. A drawer's expected cash at a session counts
what was taken in and paid out during that session only, not an earlier session's raffle tickets:
an honest count is then no variance."""

from __future__ import annotations

from pos.services import books_cash
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall
from tests.test_bingo_session import bingo_hall, ok

__all__ = ["bingo_hall"]  # the fixture, shared with the session's tests

S = ("--as", "S1")


def test_a_sessions_expected_cash_leaves_out_an_earlier_sessions_raffle_tickets(
    bingo_hall: Hall,
) -> None:
    """Session 1 sells 2 raffle tickets at $5.00: its drawer expects 2 x $5.00 = $10.00. Session
    2, the same day, has sold nothing: an honest count of $0.00 is no variance. It then hands
    back one of session 1's tickets (voided, its $5.00 out of the drawer): session 2 expects
    -$5.00 and session 1 still $10.00; the day together $10.00 - $5.00 = $5.00."""
    hall = bingo_hall
    ok(hall("raffle", "create", "R-1", "--name", "Quilt", "--drawing", "2026-11-28", "--price",
            "5.00", "--prize", "Quilt;250.00;appraisal"))  # fmt: skip
    ok(hall("session", "open"))
    ok(hall("raffle", "sell", "R-1", "--qty", "2", *S, "--json"))
    one = ok(hall("drawer", "count", "10.00", "--json"))
    assert (one["expected"], one["variance"]) == ("10.00", "0.00")
    ok(hall("session", "close"))
    ok(hall("session", "open"))
    two = ok(hall("drawer", "count", "0.00", "--json"))
    assert (two["session"], two["expected"], two["variance"]) == ("2026-11-28/2", "0.00", "0.00")
    ok(hall("raffle", "void", "R-1", "1", "--reason", "handed back"))
    with Station(hall.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as station:
        assert books_cash.expected(station, "2026-11-28/2", "manager") == -500
        assert books_cash.expected(station, "2026-11-28/1", "manager") == 1000
