"""Issue #28: the paper reconciles. With paper returned and voided, opening + received - sold +
returned - voided = closing, at the CLI, in the report and on the signed form alike, every
movement of paper in the arithmetic the form prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pos.domain.bingo_paper import PaperMove, paper_figures
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall
from tests.test_bingo_session import bingo_hall, ok, pdf_text

__all__ = ["bingo_hall"]  # the fixture, shared with the session's tests

S = ("--as", "S1")


def kinds(hall: Hall) -> list[str]:
    """The type of every event on the hall's ledger, oldest first."""
    with Station(hall.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as station:
        return [row[0] for row in station.ledger.conn.execute("SELECT type FROM events")]


def _reconcile(hall: Hall, session: str) -> dict[str, Any]:
    lines = ok(hall("paper", "reconcile", "--session", session, "--json"))
    return {line["series"]: line for line in lines}


def _adds_up(line: dict[str, Any]) -> None:
    c = line["counts"]
    assert c["opening"] + c["received"] - c["sold"] + c["returned"] - c["voided"] == c["closing"], c


def test_paper_returned_and_voided_adds_up_on_every_form(bingo_hall: Hall, tmp_path: Path) -> None:
    """The session reconciliation form (11VAC20-20-90; REGULATION.md: paper reconciled per session,
    opening, sold, voided, closing). By hand, R6 (1001-1200, 200 sheets, 2 to a pack):
    - receipt A: 3 packs, R6 1001-1006; receipt B: 1 pack, R6 1007-1008, handed back
      (returned: 1007-1008);
    - receipt C: 1 pack, the lowest in stock again: R6 1007-1008; voided: 1199-1200.
    Sold: 6 + 2 + 2 = 10 sheets; returned 2; voided 2.
    Closing: 200 - 10 + 2 - 2 = 190, which is 1009-1198 (190 sheets)."""
    hall = bingo_hall
    ok(hall("session", "open"))
    ok(hall("paper", "sell", "--pack", "Door", "--qty", "3", *S, "--json"))
    back = ok(hall("paper", "sell", "--pack", "Door", *S, "--json"))
    ok(hall("paper", "return", str(back["receipt"])))
    again = ok(hall("paper", "sell", "--pack", "Door", *S, "--json"))
    assert "R6 1007-1008" in again["audit_numbers"]
    ok(hall("paper", "void", "R6", "--first", "1199", "--last", "1200", "--reason", "torn"))
    r6 = _reconcile(hall, "2026-11-28/1")["R6"]
    assert r6["counts"] == {
        "opening": 200, "received": 0, "sold": 10, "returned": 2, "voided": 2, "closing": 190,
    }  # fmt: skip
    assert r6["closing"] == ["1009-1198"]
    for line in _reconcile(hall, "2026-11-28/1").values():
        _adds_up(line)
    text = hall("paper", "reconcile", "--session", "2026-11-28/1").stdout
    assert "R6: opening 200" in text and "sold 10" in text and "returned 2" in text, text
    assert "voided 2" in text and "closing 190" in text, text
    form = tmp_path / "form.pdf"
    ok(hall("report", "form", "--date", "2026-11-28", "--pdf", str(form)))
    words = pdf_text(form)
    assert "Received" in words
    for figure in ("200: 1001-1200", "10: 1001-1008", "2: 1007-1008", "2: 1199-1200",
                   "190: 1009-1198"):  # fmt: skip
        assert figure in words, (figure, words)


def test_paper_sold_at_one_session_and_handed_back_at_the_next(bingo_hall: Hall) -> None:
    """A sheet sold at session 1 is not in session 2's opening stock; handed back at session 2 it
    is returned there. By hand, SP (5001-5100): session 1 sells 2 packs, SP 5001-5002; closing
    98. Session 2: opening 98 (5003-5100), the second pack (receipt of SP 5002) back: returned
    1, closing 98 + 1 = 99."""
    hall = bingo_hall
    ok(hall("session", "open"))
    ok(hall("paper", "sell", "--pack", "Door", *S, "--json"))
    second = ok(hall("paper", "sell", "--pack", "Door", *S, "--json"))
    ok(hall("session", "close"))
    ok(hall("session", "open"))
    ok(hall("paper", "return", str(second["receipt"])))
    one = _reconcile(hall, "2026-11-28/1")["SP"]
    two = _reconcile(hall, "2026-11-28/2")["SP"]
    assert one["counts"]["closing"] == 98 and one["closing"] == ["5003-5100"]
    assert two["counts"] == {
        "opening": 98, "received": 0, "sold": 0, "returned": 1, "voided": 0, "closing": 99,
    }  # fmt: skip
    assert two["opening"] == one["closing"] and two["closing"] == ["5002-5100"]
    _adds_up(one)
    _adds_up(two)


@given(
    st.lists(
        st.tuples(st.sampled_from(["sell", "return", "void", "receive"]), st.integers(0, 6)),
        max_size=30,
    ),
    st.integers(0, 3),
)
def test_any_mix_of_movements_adds_up(moves: list[tuple[str, int]], before: int) -> None:
    """Whatever is received, sold, handed back and voided, in whatever order, across sessions:
    closing = opening + received - sold + returned - voided, the closing stock is the sheets in
    stock (worked out here by keeping the stock as a set), and it is the next opening."""
    stock = set(range(1, 21))
    sales: list[set[int]] = []
    log: list[PaperMove] = []
    session = 0
    openings: dict[int, set[int]] = {}
    closings: dict[int, set[int]] = {}
    next_audit = 21
    for index, (move, n) in enumerate(moves):
        if index == before:  # a session boundary: the next session opens here
            closings[session] = set(stock)
            session += 1
        openings.setdefault(session, set(stock))
        tag = f"s{session}"
        if move == "sell" and stock:
            taken = set(sorted(stock)[: n + 1])
            stock -= taken
            sales.append(taken)
            log += [PaperMove("sold", a, tag) for a in sorted(taken)]
        elif move == "return" and sales:
            back = sales.pop(n % len(sales))
            stock |= back
            log += [PaperMove("returned", a, tag) for a in sorted(back)]
        elif move == "void" and stock:
            gone = set(sorted(stock)[-(n + 1) :])
            stock -= gone
            log += [PaperMove("voided", a, tag) for a in sorted(gone)]
        elif move == "receive":
            new = set(range(next_audit, next_audit + n + 1))
            next_audit += n + 1
            stock |= new
            log += [PaperMove("received", a, tag) for a in sorted(new)]
    openings.setdefault(session, set(stock))
    closings[session] = set(stock)
    for number, opening in openings.items():
        figures = paper_figures(opening, [m for m in log if m.session == f"s{number}"])
        assert figures.closing == closings[number]
        assert figures.adds_up
        c = figures.counts()
        assert (
            c["opening"] + c["received"] - c["sold"] + c["returned"] - c["voided"] == (c["closing"])
        )
        if number + 1 in openings:
            assert openings[number + 1] == figures.closing
