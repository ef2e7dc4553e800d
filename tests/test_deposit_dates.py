"""A deposit holds receipts a session took in: it cannot be dated before that session's game
date (11VAC20-20-80 D: "receipts ... deposited by the second business day following the
session" - a deposit follows its session; one dated before it would count as on time while it
holds money not yet taken in)."""

from __future__ import annotations

import pytest

from tests.conftest import Result
from tests.halls import Hall, refused


def _closed_session(hall: Hall) -> str:
    result = hall("session", "open", "--json")
    assert result.exit_code == 0, result.stderr
    session: str = result.json["session"]
    assert hall("sell", "A123456", "--qty", "10", "--as", "S1").exit_code == 0
    closed = hall("session", "close")
    assert closed.exit_code == 0, closed.stderr
    return session


def _deposit(hall: Hall, bag: str, on: str, *sessions: str, receipts: str = "session") -> Result:
    args = [a for s in sessions for a in ("--session", s)]
    return hall(
        "deposit", "record", "--bag", bag, *args, "--cash", "10.00", "--taken-by", "M1",
        "--on", on, "--receipts", receipts,
    )  # fmt: skip


@pytest.fixture
def in_play(hall: Hall) -> Hall:
    from tests.halls import flare

    assert hall.receive(flare()).exit_code == 0
    assert hall("deal", "open", "A123456", "--bin", "drawer-1").exit_code == 0
    return hall


@pytest.mark.rule("DEPOSIT")
@pytest.mark.parametrize("receipts", ["session", "weekly"])
def test_a_deposit_dated_before_its_session_is_refused(in_play: Hall, receipts: str) -> None:
    session = _closed_session(in_play)  # game date 2026-11-28, the training day
    before = in_play.count()
    early = _deposit(in_play, "B-1", "2026-11-27", session, receipts=receipts)
    refused(early, "DEPOSIT")
    assert "2026-11-27" in early.stderr and session in early.stderr
    assert in_play.count() == before
    # on the game date itself (after the session, that night) it is on time
    same_day = _deposit(in_play, "B-1", "2026-11-28", session, receipts=receipts)
    assert same_day.exit_code == 0, same_day.stderr


@pytest.mark.rule("DEPOSIT")
def test_a_bag_of_two_sessions_is_dated_on_or_after_the_later_one(in_play: Hall) -> None:
    first = _closed_session(in_play)
    second = _closed_session(in_play)  # session 2 of 2026-11-28
    assert first != second
    before = in_play.count()
    refused(_deposit(in_play, "B-2", "2026-11-01", first, second), "DEPOSIT")
    assert in_play.count() == before
    assert _deposit(in_play, "B-2", "2026-11-30", first, second).exit_code == 0


def test_a_deposit_date_that_is_not_a_date_is_bad_input(in_play: Hall) -> None:
    session = _closed_session(in_play)
    before = in_play.count()
    bad = _deposit(in_play, "B-3", "28/11/2026", session)
    assert bad.exit_code == 2
    assert in_play.count() == before
