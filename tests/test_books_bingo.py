"""The quarter's figures (Form 102) count the bingo session and the raffles: a quarter holding
one session whose bingo and raffle lines equal the day report's product lines for it, checked
against figures worked out by hand, each line traced to its events in the CSV."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from pos.services import books_quarter
from pos.services.station import Station
from tests.halls import Hall
from tests.test_bingo_session import bingo_hall, ok
from tests.test_raffle import raffle

__all__ = ["bingo_hall", "raffle"]  # the fixtures, shared with the session's and raffles' tests

S = ("--as", "S1")
BINGO_LINES = ("bingo paper, packs and devices", "decision bingo", "progressive bingo")
CHEST_LINE = "treasure chest"
RAFFLE_LINE = "raffles"


def cents(amount: str) -> int:
    return round(float(amount) * 100)


def _play(hall: Hall) -> dict[str, Any]:
    """One session: packs (one handed back), progressive paper, a rental, a decision game, a
    treasure chest opened, bingo prizes; raffle QUILT26 sold, one ticket voided, drawn, claimed."""
    ok(hall("session", "open"))
    kept = ok(hall("paper", "sell", "--pack", "Door", "--qty", "2", *S, "--json"))
    back = ok(hall("paper", "sell", "--pack", "Door", "--qty", "1", *S, "--json"))
    ok(hall("paper", "return", str(back["receipt"]), "--json"))
    ok(hall("paper", "sell", "--series", "PROG", "--qty", "5", *S, "--json"))
    ok(hall("rent", "--faces", "12", "--games", "10", *S))
    ok(hall("bingo", "pay", "--game", "1", "--amount", "100.00", *S))
    ok(hall("bingo", "decision", "enter", "--game", "4", "--faces", "10", *S))
    ok(hall("bingo", "decision", "fees", "--game", "4", "--cards", "10", *S))
    shown = ok(hall("bingo", "decision", "announce", "--game", "4", *S, "--json"))
    ok(hall("bingo", "pay", "--game", "4", "--amount", shown["prize"], *S))
    ok(hall("bingo", "pay", "--game", "7", "--amount", "50.00", *S))
    ok(hall("bingo", "chest", "sell", "--game", "8", "--qty", "5", *S))
    ok(hall("bingo", "chest", "participant", "--game", "8", "--via", "7", *S))
    ok(hall("bingo", "chest", "open", "--game", "8", "--opened", "--prize", "8.00", *S))
    sold = ok(hall("raffle", "sell", "QUILT26", "--qty", "4", *S, "--json"))
    ok(hall("raffle", "void", "QUILT26", "2", "--reason", "rung in error"))
    ok(hall("raffle", "stubs", "QUILT26", "--count", "3", "--witness", "W1"))
    ok(hall("raffle", "draw", "QUILT26", "3", "--json"))  # the $250.00 quilt
    ok(hall("raffle", "claim", "QUILT26", "--place", "1", *S, "--json"))
    return {"kept": kept, "announced": shown, "tickets": sold["tickets"]}


@pytest.mark.rule("F2", "FEE")
def test_the_quarter_counts_the_bingo_session_and_the_raffles(
    bingo_hall: Hall, raffle: Hall, tmp_path: Path
) -> None:
    hall = bingo_hall
    played = _play(hall)
    # By hand. Bingo: 2 packs kept x $20.00 + 5 progressive sheets x $1.00 + 1 rental $15.00
    # + decision 10 faces x $1.00 + 10 cards x $0.25 = $72.50; prizes $100.00 + $50.00 (WINGO,
    # J5) + the decision prize announced, $12.50 (the whole pool, under the $100.00 limit).
    # Raffle (H4: treasure chest with the raffles): 5 chest entries x $2.00 + 3 tickets kept
    # x $5.00 = $25.00; prizes the chest's $8.00 + the quilt at its fair market value $250.00.
    assert played["announced"]["prize"] == "12.50"
    hand = {
        "receipts.bingo": 2 * 2000 + 5 * 100 + 1500 + 10 * 100 + 10 * 25,
        "prizes.bingo": 10_000 + 5_000 + 1_250,
        "receipts.raffle": 5 * 200 + 3 * 500,
        "prizes.raffle": 800 + 25_000,
        "receipts.instant": 0,
        "prizes.instant": 0,
    }
    assert (hand["receipts.bingo"], hand["prizes.bingo"]) == (7_250, 16_250)
    assert (hand["receipts.raffle"], hand["prizes.raffle"]) == (2_500, 25_800)

    # The day report's lines for the session.
    day = ok(hall("report", "day", "--date", "2026-11-28", "--json"))
    products = {p["line"]: p for p in day["products"]}
    day_figures = {
        "receipts.bingo": sum(cents(products[x]["gross"]) for x in BINGO_LINES),
        "prizes.bingo": sum(cents(products[x]["prizes_paid"]) for x in BINGO_LINES),
        "receipts.raffle": sum(cents(products[x]["gross"]) for x in (CHEST_LINE, RAFFLE_LINE)),
        "prizes.raffle": sum(cents(products[x]["prizes_paid"]) for x in (CHEST_LINE, RAFFLE_LINE)),
    }
    assert day_figures == {k: v for k, v in hand.items() if k in day_figures}

    # The quarter (2026 Q4) through the command, with its CSV of source events.
    sources = tmp_path / "q4.csv"
    report = ok(hall("report", "quarter", "--year", "2026", "--quarter", "4", "--json",
                     "--csv", str(sources)))  # fmt: skip
    lines = {line["key"]: line for line in books_quarter.lines_of(report)}
    for key, amount in hand.items():
        assert lines[key]["cents"] == amount, key
    assert lines["receipts.total"]["cents"] == hand["receipts.bingo"] + hand["receipts.raffle"]
    assert lines["prizes.total"]["cents"] == hand["prizes.bingo"] + hand["prizes.raffle"]
    assert len(report["sessions"]) == 1
    # the audit fee's base is every gross receipt but electronic gaming's: 0.75% of $97.50
    gross = hand["receipts.bingo"] + hand["receipts.raffle"]
    assert lines["fee.base"]["cents"] == gross == 9_750
    assert lines["fee.amount"]["cents"] == (gross * 75 + 5_000) // 10_000 == 73

    # Every figure traces to its events; the sources add up to the line.
    with sources.open() as handle:
        rows = list(csv.DictReader(handle))
    by_key: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        if row["event"]:
            by_key.setdefault(row["key"], []).append(row)
    for key in ("receipts.bingo", "prizes.bingo", "receipts.raffle", "prizes.raffle"):
        assert sum(cents(r["amount"]) for r in by_key[key]) == hand[key], key
    kinds = {key: sorted(r["kind"] for r in found) for key, found in by_key.items()}
    assert kinds["receipts.bingo"] == [
        "DecisionEntered",
        "DecisionFeesCollected",
        "DeviceRented",
        "PaperSold",
        "PaperSold",
    ]  # fmt: skip  (the pack handed back is not there)
    assert kinds["prizes.bingo"] == ["BingoPrizePaid"] * 3
    assert kinds["receipts.raffle"] == ["ChestSold"] + ["RaffleTicketSold"] * 3  # not ticket 2
    assert kinds["prizes.raffle"] == ["ChestOpened", "RafflePrizeClaimed"]
    tickets = sorted(r["detail"] for r in by_key["receipts.raffle"] if r["kind"] != "ChestSold")
    assert tickets == [f"raffle QUILT26 ticket {n}" for n in (1, 3, 4)]
    pack = next(r for r in by_key["receipts.bingo"] if "pack Door" in r["detail"])
    assert pack["amount"] == "40.00" and "R6 1001-1004" in pack["detail"]
    # each source names an event of its kind in the ledger
    with Station(hall.directory) as st:
        for found in by_key.values():
            for r in found:
                origin, _, seq = r["event"].rpartition(":")
                [(kind,)] = st.ledger.conn.execute(
                    "SELECT type FROM events WHERE origin = ? AND seq = ?", (origin, int(seq))
                ).fetchall()
                assert kind == ("BingoPrizePaid" if r["kind"] == "prize paid" else r["kind"])


def test_a_ticket_voided_in_a_later_quarter_comes_off_that_quarter(hall: Hall) -> None:
    """Raffle receipts are counted as the day reports count them: a ticket sold in one quarter
    and voided in the next is a receipt of the first and a negative one of the second; one sold
    and voided in the same quarter is in neither."""
    ok(hall("raffle", "create", "TV27", "--name", "TV raffle", "--drawing", "2027-01-30",
            "--price", "2.00", "--prize", "Television;400.00;retail price", "--json"))  # fmt: skip
    ok(hall("raffle", "sell", "TV27", "--qty", "3", *S, "--json"))
    ok(hall("raffle", "void", "TV27", "3", "--reason", "rung in error"))
    later = {"BOOTH_NOW": "2027-01-04T15:00:00+00:00"}
    ok(hall("raffle", "void", "TV27", "1", "--reason", "refunded", **later))
    q4 = ok(hall("report", "quarter", "--year", "2026", "--quarter", "4", "--json", **later))
    q1 = ok(hall("report", "quarter", "--year", "2027", "--quarter", "1", "--json", **later))
    line4 = next(x for x in books_quarter.lines_of(q4) if x["key"] == "receipts.raffle")
    line1 = next(x for x in books_quarter.lines_of(q1) if x["key"] == "receipts.raffle")
    assert line4["cents"] == 400
    assert [(s["kind"], s["detail"]) for s in line4["sources"]] == [
        ("RaffleTicketSold", "raffle TV27 ticket 1"), ("RaffleTicketSold", "raffle TV27 ticket 2"),
    ]  # fmt: skip
    assert line1["cents"] == -200
    assert [(s["kind"], s["amount"], s["detail"]) for s in line1["sources"]] == [
        ("RaffleTicketVoided", -200, "raffle TV27 ticket 1")
    ]
    # the day reports add up to the same
    sold_day = ok(hall("report", "day", "--date", "2026-11-28", "--json", **later))
    void_day = ok(hall("report", "day", "--date", "2027-01-04", "--json", **later))
    assert [p["gross"] for p in sold_day["products"] if p["line"] == RAFFLE_LINE] == ["4.00"]
    assert [p["gross"] for p in void_day["products"] if p["line"] == RAFFLE_LINE] == ["-2.00"]


@pytest.mark.rule("F2")
def test_a_raffle_prize_drawn_but_not_claimed_is_a_gap(raffle: Hall) -> None:
    """The day report counts a raffle prize when it is drawn; the form counts it once it is
    handed over, and lists one drawn and not handed over for a person to settle."""
    ok(raffle("raffle", "sell", "QUILT26", "--qty", "2", *S, "--json"))
    ok(raffle("raffle", "stubs", "QUILT26", "--count", "2", "--witness", "W1"))
    ok(raffle("raffle", "draw", "QUILT26", "2", "--json"))
    day = ok(raffle("report", "day", "--date", "2026-11-28", "--json"))
    assert [p["prizes_paid"] for p in day["products"] if p["line"] == RAFFLE_LINE] == ["250.00"]
    report = ok(raffle("report", "quarter", "--year", "2026", "--quarter", "4", "--json"))
    line = next(x for x in books_quarter.lines_of(report) if x["key"] == "prizes.raffle")
    assert line["cents"] == 0 and line["sources"] == []
    [gap] = [g for g in report["gaps"] if g["line"] == "prizes.raffle"]
    assert "raffle QUILT26 prize 1 (Handmade quilt, $250.00)" in gap["what"]
    assert "booth raffle claim QUILT26 --place 1" in gap["what"]
    ok(raffle("raffle", "claim", "QUILT26", "--place", "1", *S, "--json"))
    claimed = ok(raffle("report", "quarter", "--year", "2026", "--quarter", "4", "--json"))
    line = next(x for x in books_quarter.lines_of(claimed) if x["key"] == "prizes.raffle")
    assert line["cents"] == 25_000
    assert [s["kind"] for s in line["sources"]] == ["RafflePrizeClaimed"]
    assert not [g for g in claimed["gaps"] if g["line"] == "prizes.raffle"]
