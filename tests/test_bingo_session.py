"""Issue #18: a scripted bingo session in a training hall, through the `booth` command.

A program of 10 games (one decision bingo, one progressive game not won, one Treasure Chest
Raffle and one raffle drawing: its tickets sold during the session, one voided, the stubs counted
before witnesses, its numbers drawn and a prize claimed), packs sold at the door from
audit-numbered paper, and the day report and the reconciliation form checked against figures
worked out here by hand. Then a refusal per rule, each exit 1 naming it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pos.services import receipts
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, licence_barcode, refused
from tests.test_rule_d import roster, shift

S = ("--as", "S1")
RAFFLE = "R-2026-11"
QUILT = "Handmade quilt;250.00;appraisal by Riverside Quilters"
GIFT_CARD = "Gift card;50.00;face value of the card"
NEXT_DAY = "2026-11-29T23:00:00+00:00"  # 18:00 in the hall (America/New_York)

PROGRAM: dict[str, Any] = {
    "name": "Saturday Night",
    "house_rules": "Players must be present to win. Prizes are split between winners.",
    "games": [
        {"kind": "regular", "name": "Early Bird", "pattern": "any line", "paper": "6-on",
         "prize": "100.00"},
        {"kind": "regular", "name": "Four Corners", "pattern": "four corners", "paper": "6-on",
         "prize": "100.00"},
        {"kind": "special", "name": "Special 1", "pattern": "letter X", "paper": "SP",
         "prize": "150.00"},
        {"kind": "decision", "name": "Decision Bingo", "pattern": "any line", "entry": "1.00",
         "fee": "0.25"},
        {"kind": "progressive", "name": "Lucky 7", "pattern": "coverall", "paper": "PROG",
         "price": "1.00", "calls": 50, "prize": "500.00", "increase": "200.00"},
        {"kind": "jackpot", "name": "Jackpot", "pattern": "coverall", "paper": "6-on",
         "prize": "1000.00"},
        {"kind": "wingo", "name": "WINGO", "pattern": "any line", "prize": "50.00",
         "house_rules": "Raise the green card to show you have won."},
        {"kind": "treasure-chest", "price": "2.00",
         "house_rules": "The winner of the game named by the caller tries one key."},
        {"kind": "special", "name": "Special 2", "pattern": "picture frame", "paper": "SP",
         "prize": "200.00"},
        {"kind": "raffle", "name": "Holiday Raffle drawing", "raffle": RAFFLE},
    ],
    "products": [
        {"kind": "pack", "name": "Door"},
        {"kind": "device", "name": "Basic"},
        {"kind": "paper", "name": "PROG", "price": "1.00"},
    ],
}  # fmt: skip


def ok(result: Any) -> Any:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.json if result.stdout.lstrip().startswith(("{", "[")) else result


def pdf_text(path: Path) -> str:
    """A PDF's words, blanks and line breaks folded to one space (cells wrap)."""
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True)
    return " ".join(out.stdout.split())


def pdf_layout(path: Path) -> str:
    """A PDF's text with its columns kept in place, a table row on one line."""
    out = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    )
    return out.stdout


def _program_file(tmp_path: Path, data: dict[str, Any], name: str = "program.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def bingo_hall(hall: Hall, tmp_path: Path) -> Hall:
    """Paper received from its invoices, a pack, a device package and the program."""
    return stock_bingo_hall(hall, tmp_path)


def stock_bingo_hall(hall: Hall, tmp_path: Path) -> Hall:
    """`hall` with paper received from its invoices, a pack, a device package and the
    program (its file written under `tmp_path`)."""
    ok(
        hall(
            "paper",
            "receive",
            "--series",
            "R6",
            "--manufacturer",
            "Arrow",
            "--faces",
            "6-on",
            "--first",
            "1001",
            "--last",
            "1200",
            "--invoice",
            "INV-100",
            "--supplier",
            "Bingo Supply Co, 1 Main St",
            "--cost",
            "40.00",
        )
    )
    ok(
        hall(
            "paper",
            "receive",
            "--series",
            "SP",
            "--manufacturer",
            "Arrow",
            "--faces",
            "3-on",
            "--first",
            "5001",
            "--last",
            "5100",
            "--invoice",
            "INV-100",
        )
    )
    ok(
        hall(
            "paper",
            "receive",
            "--series",
            "PROG",
            "--manufacturer",
            "Arrow",
            "--faces",
            "1-on",
            "--first",
            "1",
            "--last",
            "100",
            "--invoice",
            "INV-101",
            "--progressive",
        )
    )
    ok(
        hall(
            "paper",
            "pack",
            "Door",
            "--price",
            "20.00",
            "--item",
            "R6:2",
            "--item",
            "SP:1",
            "--games",
            "6-on, 9 games + 2 specials",
        )
    )
    ok(hall("device", "add", "D1"))
    ok(hall("device", "package", "Basic", "--faces", "12", "--games", "10", "--price", "15.00"))
    ok(hall("program", "create", "--file", str(_program_file(tmp_path, PROGRAM)), "--json"))
    return hall


def _create_the_raffle(hall: Hall) -> None:
    """Raffle R-2026-11, $5.00 a ticket, drawn on the session's day; its prizes at fair market
    value with the basis for it (F2); a witness for the stub count."""
    ok(hall("staff", "add", "--name", "Wendy Witness", "--badge", "W1", "--role", "seller",
            "--dob", "1980-02-02"))  # fmt: skip
    ok(hall("raffle", "create", RAFFLE, "--name", "Holiday raffle", "--drawing", "2026-11-28",
            "--price", "5.00", "--prize", QUILT, "--prize", GIFT_CARD, "--json"))  # fmt: skip


def _sell_raffle_tickets(hall: Hall, qty: int) -> list[dict[str, Any]]:
    sold = ok(hall("raffle", "sell", RAFFLE, "--qty", str(qty), *S, "--json"))
    assert sold["amount"] == f"{5 * qty}.00"
    tickets: list[dict[str, Any]] = sold["tickets"]
    return tickets


def _ticket_code(hall: Hall, receipt: int) -> str:
    """The QR code printed on a ticket's buyer's part, as the winner presents it."""
    with Station(hall.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        code = receipts.receipt(st, st.id, receipt).qr
    assert code, f"receipt {receipt} has no QR code"
    return code


def _draw_the_raffle(hall: Hall, tickets: list[dict[str, Any]]) -> None:
    """Game 10: the stubs counted before two witnesses (11 = 12 sold less 1 voided, F1), then
    the quilt and the gift card drawn, and the quilt claimed with the winning ticket's code."""
    counted = ok(hall("raffle", "stubs", RAFFLE, "--count", "11", "--witness", "W1",
                      "--witness", "S1", "--json"))  # fmt: skip
    assert counted["witnesses"] == ["W1", "S1"]
    quilt = ok(hall("raffle", "draw", RAFFLE, "7", "--json"))
    assert (quilt["place"], quilt["ticket"]) == (1, "000007")
    assert ok(hall("raffle", "draw", RAFFLE, "11", "--json"))["place"] == 2
    seventh = next(t for t in tickets if t["ticket"] == 7)
    code = _ticket_code(hall, int(seventh["receipt"]))
    claimed = ok(hall("raffle", "claim", RAFFLE, "--place", "1", "--code", code, *S, "--json"))
    assert claimed["presented"] and claimed["ticket"] == "000007" and claimed["w2g"] is False
    assert ok(hall("raffle", "claim", RAFFLE, "--place", "2", *S, "--json"))["value"] == "50.00"


def test_a_scripted_session_reconciles_by_hand(bingo_hall: Hall, tmp_path: Path) -> None:
    hall = bingo_hall
    _create_the_raffle(hall)
    ok(hall("session", "open"))
    # Raffle tickets sold through the session: 8 at the door, 4 at the intermission.
    tickets = _sell_raffle_tickets(hall, 8)
    # Packs at the door: 4 + 3 + 3 + 1 packs; the last is handed back unplayed.
    sales = [ok(hall("paper", "sell", "--pack", "Door", "--qty", q, *S, "--json"))
             for q in ("4", "3", "3", "1")]  # fmt: skip
    assert sales[0]["audit_numbers"] == ["R6 1001-1008", "SP 5001-5004"]
    assert sales[1]["audit_numbers"] == ["R6 1009-1014", "SP 5005-5007"]
    assert sales[3]["audit_numbers"] == ["R6 1021-1022", "SP 5011"]
    returned = ok(hall("paper", "return", str(sales[3]["receipt"]), "--json"))
    assert returned["returned"] is True
    ok(hall("paper", "void", "R6", "--first", "1199", "--last", "1200", "--reason", "torn"))
    # Progressive paper, sold apart at the program's price (I2, I4): 20 + 10 sheets.
    prog = [ok(hall("paper", "sell", "--series", "PROG", "--qty", q, *S, "--json"))
            for q in ("20", "10")]  # fmt: skip
    assert prog[1]["audit_numbers"] == ["PROG 21-30"] and prog[1]["amount"] == "10.00"
    ok(hall("rent", "--faces", "12", "--games", "10", *S))

    # The games.
    paid = ok(hall("bingo", "pay", "--game", "1", "--amount", "100.00", "--winners", "2", *S,
                   "--json"))  # fmt: skip
    assert paid["shares"] == ["50.00", "50.00"]
    ok(hall("bingo", "pay", "--game", "2", "--amount", "100.00", *S))
    ok(hall("bingo", "pay", "--game", "3", "--amount", "150.00", *S))
    # Decision bingo: 80 faces at $1.00, then fees of $0.25 per card for 80, 60, 40 cards.
    ok(hall("bingo", "decision", "enter", "--game", "4", "--faces", "80", *S))
    for cards in ("80", "60", "40"):
        ok(hall("bingo", "decision", "fees", "--game", "4", "--cards", cards, *S))
    shown = ok(hall("bingo", "decision", "announce", "--game", "4", *S, "--json"))
    assert (shown["paid_in"], shown["prize"], shown["retained"]) == ("125.00", "100.00", "25.00")
    assert "$25.00 above the $100.00 limit is retained" in shown["announcement"]
    ok(hall("bingo", "pay", "--game", "4", "--amount", "100.00", *S))
    # The progressive game is not won within its 50 numbers: played on as a regular game (I6).
    result = ok(hall("bingo", "progressive", "result", "--game", "5", "--not-won", "--json"))
    assert result["continues_as_regular"] is True and result["calls"] == 50
    ok(hall("bingo", "pay", "--game", "5", "--amount", "100.00", *S))
    ok(hall("bingo", "pay", "--game", "6", "--amount", "1000.00", *S))
    ok(hall("bingo", "pay", "--game", "7", "--amount", "50.00", *S))
    # The Treasure Chest Raffle: 25 entries at $2.00; the WINGO winner tries the keys.
    ok(hall("bingo", "chest", "sell", "--game", "8", "--qty", "25", *S))
    ok(hall("bingo", "chest", "participant", "--game", "8", "--via", "7", *S))
    chest = ok(hall("bingo", "chest", "open", "--game", "8", "--not-opened", "--keys-tried", "6",
                    "--every-key-tried", *S, "--json"))  # fmt: skip
    assert chest["outcomes"] == [
        {"opened": False, "keys_tried": 6, "every_key_tried": True, "prize": "0.00"}
    ]
    ok(hall("bingo", "pay", "--game", "9", "--amount", "200.00", *S))
    # The intermission's raffle sales, ticket 5 voided (rung in error), then game 10's drawing.
    tickets += _sell_raffle_tickets(hall, 4)
    assert [t["number"] for t in tickets[-4:]] == ["000009", "000010", "000011", "000012"]
    ok(hall("raffle", "void", RAFFLE, "5", "--reason", "rung in error"))
    _draw_the_raffle(hall, tickets)

    # By hand. Paper, packs and devices: 10 packs kept x $20.00 + 1 rental $15.00 = $215.00;
    # prizes of traditional games (WINGO as bingo, J5; the progressive game played on as a
    # regular game, I6): 100 + 100 + 150 + 100 + 1000 + 50 + 200 = $1,700.00.
    # Decision: 80 x $1.00 + (80 + 60 + 40) x $0.25 = $125.00 in; $100.00 paid; $25.00 kept.
    # Progressive: 30 sheets x $1.00 = $30.00, nothing won. Treasure chest: 25 x $2.00 = $50.00.
    # Raffle: 12 tickets sold less 1 voided = 11 x $5.00 = $55.00; prizes drawn at fair market
    # value $250.00 + $50.00 = $300.00; net $55.00 - $300.00 = -$245.00.
    report = ok(hall("report", "day", "--date", "2026-11-28", "--json"))
    lines = {p["line"]: p for p in report["products"]}
    paper = lines["bingo paper, packs and devices"]
    assert (paper["gross"], paper["prizes_paid"], paper["net"]) == ("215.00", "1700.00", "-1485.00")
    assert paper["packs"] == 10 and paper["devices"] == 1
    assert paper["audit_numbers"] == ["R6 1001-1020", "SP 5001-5010"]
    decision = lines["decision bingo"]
    assert (decision["gross"], decision["prizes_paid"], decision["net"]) == (
        "125.00", "100.00", "25.00",
    )  # fmt: skip
    assert decision["retained"] == "25.00" and decision["tickets_sold"] == 80
    progressive = lines["progressive bingo"]
    assert (progressive["gross"], progressive["prizes_paid"], progressive["net"]) == (
        "30.00", "0.00", "30.00",
    )  # fmt: skip
    assert progressive["audit_numbers"] == ["PROG 1-30"]
    chest_line = lines["treasure chest"]
    assert (chest_line["gross"], chest_line["prizes_paid"], chest_line["net"]) == (
        "50.00", "0.00", "50.00",
    )  # fmt: skip
    raffles = lines["raffles"]
    assert (raffles["gross"], raffles["prizes_paid"], raffles["net"]) == (
        "55.00", "300.00", "-245.00",
    )  # fmt: skip
    assert raffles["tickets_sold"] == 11
    [raffle] = report["raffles"]
    assert (raffle["raffle"], raffle["tickets_sold"], raffle["tickets_voided"]) == (RAFFLE, 12, 1)
    assert (raffle["prizes_drawn"], raffle["price"]) == (2, "5.00")
    # The bingo total leaves the raffle out: it has its own line (H4 counts only the chest).
    bingo = report["bingo"]
    assert (bingo["gross"], bingo["prizes_paid"], bingo["net"]) == ("420.00", "1800.00", "-1380.00")
    # The paper reconciled by audit number: R6 opened 1001-1200; 22 sold (1001-1022), of which
    # 1021-1022 came back; 1199-1200 voided; closing 200 - 22 + 2 - 2 = 178, 1021-1198. Every
    # movement is in the sum (issue #28: sold counted 20 before, and the columns did not add up).
    r6 = next(r for r in bingo["paper"]["2026-11-28/1"] if r["series"] == "R6")
    assert r6["opening"] == ["1001-1200"] and r6["sold"] == ["1001-1022"]
    assert r6["returned"] == ["1021-1022"] and r6["voided"] == ["1199-1200"]
    assert r6["closing"] == ["1021-1198"]
    assert r6["counts"] == {
        "opening": 200, "received": 0, "sold": 22, "returned": 2, "voided": 2, "closing": 178,
    }  # fmt: skip
    # The drawer: rentals $15.00 + paper $230.00 + decision $125.00 + chest $50.00 + raffle
    # tickets $55.00 (ticket 5's $5.00 handed back) less the $1,800.00 of bingo prizes
    # = -$1,325.00 (the prizes came from the bank; the raffle's prizes are goods, not cash).
    cash = {c["station"]: c for c in report["cash"]}
    assert cash["manager"]["expected"] == "-1325.00"

    # The reconciliation form carries each line and the audit numbers.
    form = tmp_path / "form.pdf"
    ok(hall("report", "form", "--date", "2026-11-28", "--pdf", str(form)))
    text = pdf_text(form)
    for expected in (
        "bingo paper, packs and devices", "215.00", "1700.00", "-1485.00",
        "decision bingo", "125.00", "treasure chest / raffle sales (H4)", "50.00",
        "progressive bingo", "PROG 1-30", "R6 1001-1020", "retained by the organisation",
        "1021-1198", f"Raffle {RAFFLE}", "Holiday raffle",
    ):  # fmt: skip
        assert expected in text, expected
    # The raffle's row, read with its columns kept: price, sold, gross, prizes, net.
    [row] = [r for r in pdf_layout(form).splitlines() if f"Raffle {RAFFLE}" in r]
    assert row.split()[-5:] == ["5.00", "11", "55.00", "300.00", "-245.00"]

    # The next session: the progressive game's calls went up by one (I5) and its prize grew by
    # half of its paper's sales ($15.00; the program allows up to $200.00 a session).
    ok(hall("session", "close"))
    next_day = {"BOOTH_NOW": NEXT_DAY}
    ok(hall("session", "open", **next_day))
    posting = ok(hall("bingo", "progressive", "posting", "--json", **next_day))
    assert (posting[0]["calls"], posting[0]["prize"]) == (51, "515.00")
    shown_program = ok(hall("program", "show", "--json", **next_day))
    lucky = shown_program["games"][4]
    assert (lucky["calls"], lucky["pool"]) == (51, "515.00")
    # Every projection rebuilds to the same rows from the events (booth verify --deep).
    assert ok(hall("verify", "--deep", "--json", **next_day))["ok"] is True
    # Closing stock is the next session's opening.
    reconciled = ok(hall("paper", "reconcile", "--session", "2026-11-29/1", "--json", **next_day))
    r6_next = next(r for r in reconciled if r["series"] == "R6")
    assert r6_next["opening"] == r6["closing"] == ["1021-1198"]
    assert r6_next["counts"]["sold"] == 0 and r6_next["closing"] == ["1021-1198"]
    prog_next = next(r for r in reconciled if r["series"] == "PROG")
    assert prog_next["opening"] == ["31-100"]


def test_the_program_prints_for_the_wall_and_the_receipt_printer(
    bingo_hall: Hall, tmp_path: Path
) -> None:
    from hardware.printer.escpos_image import interpret

    pdf = tmp_path / "program.pdf"
    ok(bingo_hall("printer", "set", "file:printer.bin"))
    ok(bingo_hall("program", "print", "--pdf", str(pdf), "--print"))
    text = pdf_text(pdf)
    for expected in (
        "Treasure Chest Raffle", "Holiday Raffle drawing", "$1.00 per card face",
        "$0.25 per card for each 3 numbers called", "sheet $1.00", "50 numbers",
        "Raise the green card", "Players must be present", "Door $20.00",
    ):  # fmt: skip
        assert expected in text, expected
    printed = "\n".join(interpret((bingo_hall.directory / "printer.bin").read_bytes()).lines)
    assert "PROGRAM Saturday Night v1" in printed
    assert "8. Treasure Chest Raffle" in printed and "10. Holiday Raffle drawing" in printed


def test_every_version_of_the_program_is_kept_and_exported(
    bingo_hall: Hall, tmp_path: Path
) -> None:
    edited = ok(bingo_hall("program", "edit", "Saturday Night", "--game", "1",
                           "--set", "prize=75.00", "--json"))  # fmt: skip
    assert edited["version"] == 2 and edited["games"][0]["prize"] == "$75.00"
    versions = ok(bingo_hall("program", "show", "--all", "--json"))
    assert [v["version"] for v in versions] == [1, 2]
    assert versions[0]["games"][0]["prize"] == "$100.00"
    out = tmp_path / "inspection"
    ok(bingo_hall("export", "--inspector", str(out)))
    rows = (out / "tables" / "bingo_programs.csv").read_text()
    assert "75.00" in rows and "100.00" in rows


# --- refusals, each exit 1 naming its rule ----------------------------------------------------


def test_a_pack_holding_progressive_paper_is_refused(bingo_hall: Hall) -> None:
    result = bingo_hall("paper", "pack", "Big", "--price", "25.00", "--item", "R6:2",
                        "--item", "PROG:1")  # fmt: skip
    refused(result, "I2")
    assert "PROG" in result.stderr
    assert ok(bingo_hall("paper", "packs", "--json"))[0]["name"] == "Door"  # nothing else


def test_progressive_paper_sells_only_at_the_programs_price(bingo_hall: Hall) -> None:
    ok(bingo_hall("session", "open"))
    refused(bingo_hall("paper", "sell", "--series", "PROG", "--price", "0.50", *S), "I2")


def test_a_decision_pool_above_the_limit_keeps_the_excess(bingo_hall: Hall) -> None:
    ok(bingo_hall("session", "open"))
    ok(bingo_hall("bingo", "decision", "enter", "--game", "4", "--faces", "150", *S))
    shown = ok(bingo_hall("bingo", "decision", "announce", "--game", "4", *S, "--json"))
    assert (shown["prize"], shown["retained"]) == ("100.00", "50.00")
    result = bingo_hall("bingo", "pay", "--game", "4", "--amount", "150.00", *S)
    refused(result, "G4")
    assert "retained by the organisation" in result.stderr
    ok(bingo_hall("bingo", "pay", "--game", "4", "--amount", "100.00", *S))
    again = bingo_hall("bingo", "pay", "--game", "4", "--amount", "1.00", *S)
    refused(again, "PAID")  # the pool is paid once, whatever is asked the second time
    assert "already paid, $100.00 at 18:00 by Sam Seller (S1)" in again.stderr
    report = ok(bingo_hall("report", "day", "--json"))
    decision = next(p for p in report["products"] if p["line"] == "decision bingo")
    assert decision["retained"] == "50.00" and decision["net"] == "50.00"


def test_a_decision_prize_is_announced_before_it_is_paid(bingo_hall: Hall) -> None:
    ok(bingo_hall("session", "open"))
    ok(bingo_hall("bingo", "decision", "enter", "--game", "4", "--faces", "20", *S))
    refused(bingo_hall("bingo", "pay", "--game", "4", "--amount", "20.00", *S), "G5")


def test_a_chest_participant_not_chosen_through_a_game_of_the_session_is_refused(
    bingo_hall: Hall,
) -> None:
    ok(bingo_hall("session", "open"))
    result = bingo_hall("bingo", "chest", "participant", "--game", "8", "--via", "42", *S)
    refused(result, "H3")
    assert "same session" in result.stderr
    refused(bingo_hall("bingo", "chest", "participant", "--game", "8", "--via", "8", *S), "H3")
    # Game 7 was not won yet in this session: its winner cannot have been chosen.
    refused(bingo_hall("bingo", "chest", "participant", "--game", "8", "--via", "7", *S), "H3")
    ok(bingo_hall("bingo", "pay", "--game", "7", "--amount", "50.00", *S))
    ok(bingo_hall("bingo", "chest", "participant", "--game", "8", "--via", "7", *S))
    refused(bingo_hall("bingo", "chest", "open", "--game", "8", "--not-opened", *S), "H5")


def _bingo_worker(hall: Hall, badge: str = "W7", name: str = "Wes Worker") -> None:
    """A volunteer on tonight's bingo floor (the hall day of TRAINING_NOW, 18:00 there)."""
    ok(hall("staff", "add", "--name", name, "--badge", badge, "--role", "seller", "--dob",
            "1975-06-07"))  # fmt: skip
    roster(hall, shift(badge, "2026-11-28", "19:00", "23:00", "bingo", name, "1975-06-07"))


def test_nobody_working_the_session_plays_its_decision_or_chest_games(bingo_hall: Hall) -> None:
    """D: "no one involved in conducting bingo may play bingo at a session they worked or are
    rostered to work" covers every game of the session, not only its paper and devices: a
    decision entry, a treasure chest entry, a chest participant and a named winner. Each
    refusal is recorded and leaves the game as it was."""
    ok(bingo_hall("session", "open"))
    _bingo_worker(bingo_hall)
    attempts = [
        ("bingo", "decision", "enter", "--game", "4", "--faces", "5", "--buyer", "W7"),
        ("bingo", "chest", "sell", "--game", "8", "--qty", "2", "--buyer", "W7"),
        ("paper", "sell", "--pack", "Door", "--buyer", "W7"),
    ]
    for attempt in attempts:
        result = bingo_hall(*attempt, *S)
        refused(result, "D")
        assert "work bingo today 19:00-23:00" in result.stderr, result.stderr
    decision = ok(bingo_hall("bingo", "decision", "show", "--game", "4", "--json"))
    assert (decision["faces"], decision["paid_in"]) == (0, "0.00")
    chest = ok(bingo_hall("bingo", "chest", "show", "--game", "8", "--json"))
    assert chest["sold"] == 0

    # the worker named as a winner: no prize, no participant
    refused(bingo_hall("bingo", "pay", "--game", "7", "--amount", "50.00", "--player", "W7", *S),
            "D")  # fmt: skip
    ok(bingo_hall("bingo", "pay", "--game", "7", "--amount", "50.00", *S))
    refused(bingo_hall("bingo", "chest", "participant", "--game", "8", "--via", "7", "--player",
                       "W7", *S), "D")  # fmt: skip
    assert ok(bingo_hall("bingo", "chest", "show", "--game", "8", "--json"))["participants"] == []

    report = ok(bingo_hall("report", "day", "--json"))
    subjects = [b["serial"] for b in report["blocked_purchases"] if b["buyer"] == "W7"]
    assert len(subjects) == 5, report["blocked_purchases"]
    assert any("decision game 4" in s for s in subjects), subjects
    assert any("game 7's prize" in s for s in subjects), subjects
    assert sum("(game 8)" in s for s in subjects) == 2, subjects

    # a staff member who works no shift tonight and did no work at this session plays them all
    # (S1, who sold and paid at it, is a worker of it by the record: issue #28)
    ok(bingo_hall("staff", "add", "--name", "Pat Player", "--badge", "P1", "--role", "seller",
                  "--dob", "1985-01-01"))  # fmt: skip
    ok(bingo_hall("bingo", "decision", "enter", "--game", "4", "--faces", "5", "--buyer", "P1",
                  *S))  # fmt: skip
    ok(bingo_hall("bingo", "chest", "sell", "--game", "8", "--buyer", "P1", *S))
    refused(bingo_hall("bingo", "chest", "sell", "--game", "8", "--buyer", "S1", *S), "D")


def test_a_near_match_to_a_bingo_worker_is_a_managers_decision(bingo_hall: Hall) -> None:
    ok(bingo_hall("session", "open"))
    _bingo_worker(bingo_hall, "W9", "Robert Smith")
    scan = licence_barcode("SMITH", "BOB", "1975-06-07")
    entry = ("bingo", "decision", "enter", "--game", "4", "--faces", "2", "--buyer", scan, *S)
    asked = bingo_hall(*entry)
    refused(asked, "D")
    assert "a manager decides" in asked.stderr and "--manager BADGE" in asked.stderr
    allowed = bingo_hall(*entry, "--manager", "M1", "--reason", "his brother, ID checked")
    assert allowed.exit_code == 0, allowed.stderr
    assert ok(bingo_hall("bingo", "decision", "show", "--game", "4", "--json"))["faces"] == 2


def test_prizes_above_the_limits_are_refused(bingo_hall: Hall, tmp_path: Path) -> None:
    ok(bingo_hall("session", "open"))
    result = bingo_hall("bingo", "pay", "--game", "1", "--amount", "100.01", *S)
    refused(result, "LIMIT")
    assert "$100.00" in result.stderr
    refused(bingo_hall("bingo", "pay", "--game", "9", "--amount", "200.01", *S), "LIMIT")
    refused(bingo_hall("bingo", "pay", "--game", "6", "--amount", "1000.01", *S), "LIMIT")
    ok(bingo_hall("bingo", "pay", "--game", "6", "--amount", "600.00", *S))
    refused(bingo_hall("bingo", "pay", "--game", "6", "--amount", "500.00", *S), "PAID")
    # The day's jackpots together: a second session of the same day pays its jackpot only
    # within what the day has left.
    ok(bingo_hall("session", "close"))
    ok(bingo_hall("session", "open", "--number", "2"))
    result = bingo_hall("bingo", "pay", "--game", "6", "--amount", "500.00", *S)
    refused(result, "LIMIT")
    assert "$600.00 of jackpots were paid today" in result.stderr
    # The progressive game won within its calls pays at most its posted prize (I7); played on
    # as a regular game, at most the regular limit (I6).
    result = bingo_hall("bingo", "pay", "--game", "5", "--amount", "100.00", *S)
    refused(result, "I7")
    assert "record whether the progressive prize was won" in result.stderr
    ok(bingo_hall("bingo", "progressive", "result", "--game", "5", "--not-won"))
    refused(bingo_hall("bingo", "pay", "--game", "5", "--amount", "150.00", *S), "LIMIT")
    # A program above the limits is refused when it is defined.
    over = json.loads(json.dumps(PROGRAM))
    over["games"][5]["prize"] = "1500.00"
    refused(
        bingo_hall("program", "create", "--file", str(_program_file(tmp_path, over, "over.json"))),
        "LIMIT",
    )
    eleven = {**PROGRAM, "name": "Too many", "games": [
        {"kind": "special", "name": f"S{n}", "prize": "150.00"} for n in range(11)
    ]}  # fmt: skip
    result = bingo_hall(
        "program", "create", "--file", str(_program_file(tmp_path, eleven, "eleven.json"))
    )
    refused(result, "LIMIT")
    assert "at most 10 games a session" in result.stderr
    seven = {**PROGRAM, "name": "Seven", "games": [
        {"kind": "progressive", "name": f"P{n}", "paper": "PROG", "price": "1.00", "calls": 50,
         "prize": "500.00"} for n in range(7)
    ]}  # fmt: skip
    result = bingo_hall(
        "program", "create", "--file", str(_program_file(tmp_path, seven, "seven.json"))
    )
    refused(result, "I7")
    assert "at most 6" in result.stderr


def test_a_prize_at_the_w2g_threshold_needs_the_winners_data(bingo_hall: Hall) -> None:
    ok(bingo_hall("rules", "set", "w2g_threshold", "500.00"))
    ok(bingo_hall("session", "open"))
    refused(bingo_hall("bingo", "pay", "--game", "6", "--amount", "1000.00", *S), "W2G")
    # Split between two winners, each share is under the threshold.
    ok(bingo_hall("bingo", "pay", "--game", "6", "--amount", "900.00", "--winners", "2", *S))
    # Two winners at the threshold each give their data; the second missing is refused.
    winners = bingo_hall.tmp / "winners.json"
    one = {"name": "Pat Player", "address": "2 Elm St", "tin": "123-45-6789", "id": "VA DL 1"}
    winners.write_text(json.dumps([one, None]))
    ok(bingo_hall("rules", "set", "w2g_threshold", "50.00"))
    refused(
        bingo_hall(
            "bingo",
            "pay",
            "--game",
            "9",
            "--amount",
            "200.00",
            "--winners",
            "2",
            "--winners-file",
            str(winners),
            *S,
        ),
        "W2G",
    )
    winners.write_text(json.dumps([one, {**one, "name": "Lee Player", "tin": "987-65-4321"}]))
    paid = ok(
        bingo_hall(
            "bingo",
            "pay",
            "--game",
            "9",
            "--amount",
            "200.00",
            "--winners",
            "2",
            "--winners-file",
            str(winners),
            *S,
            "--json",
        )
    )
    assert paid["reportable"] == 2 and paid["shares"] == ["100.00", "100.00"]


def test_bingo_prizes_are_claimed_on_the_game_date(bingo_hall: Hall) -> None:
    ok(bingo_hall("session", "open"))
    result = bingo_hall("bingo", "pay", "--game", "1", "--amount", "100.00", *S, BOOTH_NOW=NEXT_DAY)
    refused(result, "B")


def test_wingo_and_the_chest_need_their_house_rules(bingo_hall: Hall, tmp_path: Path) -> None:
    wingo = json.loads(json.dumps(PROGRAM))
    del wingo["games"][6]["house_rules"]
    path = _program_file(tmp_path, wingo, "wingo.json")
    refused(bingo_hall("program", "create", "--file", str(path)), "J4")
    chest = json.loads(json.dumps(PROGRAM))
    del chest["games"][7]["house_rules"]
    path = _program_file(tmp_path, chest, "chest.json")
    refused(bingo_hall("program", "create", "--file", str(path)), "H1")
    no_fee = json.loads(json.dumps(PROGRAM))
    del no_fee["games"][3]["fee"]
    refused(
        bingo_hall("program", "create", "--file", str(_program_file(tmp_path, no_fee, "g.json"))),
        "G5",
    )


def test_paper_is_sold_once_by_audit_number(bingo_hall: Hall) -> None:
    ok(bingo_hall("session", "open"))
    refused(bingo_hall("paper", "sell", "--series", "PROG", "--qty", "101", *S), "PAPER")
    ok(bingo_hall("paper", "sell", "--series", "PROG", "--qty", "100", *S))
    refused(bingo_hall("paper", "sell", "--series", "PROG", *S), "PAPER")
    with Station(bingo_hall.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        from pos.services import bingo_paper

        stock = {(s.series, s.state): s.sheets for s in bingo_paper.paper_stock(st)}
    assert stock[("PROG", "sold")] == 100 and ("PROG", "stock") not in stock


def test_a_progressive_won_within_its_calls_pays_its_prize_and_starts_again(
    bingo_hall: Hall,
) -> None:
    ok(bingo_hall("session", "open"))
    ok(bingo_hall("paper", "sell", "--series", "PROG", "--qty", "40", *S))
    ok(bingo_hall("bingo", "progressive", "result", "--game", "5", "--not-won"))
    ok(bingo_hall("session", "close"))
    day2 = {"BOOTH_NOW": NEXT_DAY}
    ok(bingo_hall("session", "open", **day2))
    posted = ok(bingo_hall("bingo", "progressive", "posting", "--json", **day2))[0]
    assert (posted["calls"], posted["prize"]) == (51, "520.00")  # + half of $40.00 of paper
    won = ok(bingo_hall("bingo", "progressive", "result", "--game", "5", "--won", "--json", **day2))
    assert (won["calls"], won["prize"], won["continues_as_regular"]) == (51, "520.00", False)
    refused(bingo_hall("bingo", "pay", "--game", "5", "--amount", "520.01", *S, **day2), "I7")
    ok(bingo_hall("bingo", "pay", "--game", "5", "--amount", "520.00", *S, **day2))
    again = bingo_hall("bingo", "pay", "--game", "5", "--amount", "20.00", *S, **day2)
    refused(again, "PAID")  # the prize is paid once: a split is one payment of its shares
    report = ok(bingo_hall("report", "day", "--date", "2026-11-29", "--json", **day2))
    line = next(p for p in report["products"] if p["line"] == "progressive bingo")
    assert line["prizes_paid"] == "520.00"
    again = ok(bingo_hall("bingo", "progressive", "posting", "--json", **day2))[0]
    assert (again["calls"], again["prize"]) == (50, "500.00")  # the program's start again


def test_a_booth_sells_paper_the_manager_issued_and_the_manager_reconciles_it(
    bingo_hall: Hall, tmp_path: Path
) -> None:
    """Through the services (the screens' API): the manager issues paper to booth-1, the booth
    sells packs from it, and once synced the manager's day report has them by station."""
    from pos.services import bingo_games, bingo_paper, reports, sessions
    from pos.services import hall as hall_service
    from pos.services.replicate import pull

    environ = {"BOOTH_NOW": TRAINING_NOW}
    with Station(bingo_hall.directory, environ=environ) as m:
        bundle = hall_service.add_station(m, name="booth-1", role="booth", operator="M1")
        (tmp_path / "b.json").write_text(json.dumps(bundle))
        hall_service.join(tmp_path / "booth-1", tmp_path / "b.json", environ=environ)
        issued = bingo_paper.issue_paper(m, "R6", first=1101, last=1200, to="booth-1",
                                         operator="M1")  # fmt: skip
        assert issued["to"] == "booth-1"
        bingo_paper.issue_paper(m, "SP", first=5051, last=5100, to="booth-1", operator="M1")
        sessions.open_session(m, operator="M1")
    booth_dir = tmp_path / "booth-1"
    with (
        Station(bingo_hall.directory, environ=environ) as m,
        Station(booth_dir, environ=environ) as b,
    ):
        pull(m.ledger, b.ledger)
    with Station(booth_dir, environ=environ) as b:
        sale = bingo_paper.sell_pack(b, "Door", qty=2, operator="S1")
        assert sale.audit_numbers == ["R6 1101-1104", "SP 5051-5052"]
        prize = bingo_games.pay_prize(b, game=1, amount="100.00", winners=3, operator="S1")
        assert prize.shares == [3334, 3333, 3333]  # cents, adding up to the prize
        paid = bingo_games.session_prizes(b)
        assert [(p.game, p.amount, p.winners, p.station) for p in paid] == [
            (1, 10_000, 3, "booth-1")
        ]
    with Station(bingo_hall.directory, environ=environ) as m:
        mine = bingo_paper.sell_pack(m, "Door", qty=1, operator="S1")
        assert mine.audit_numbers == ["R6 1001-1002", "SP 5001"]  # the manager's own stock
        with Station(booth_dir, environ=environ) as b:
            pull(b.ledger, m.ledger)
        report = reports.day_report(m, "2026-11-28")
        line = next(p for p in report["products"] if p["line"] == "bingo paper, packs and devices")
        assert line["gross"] == "60.00" and line["prizes_paid"] == "100.00"
        assert line["audit_numbers"] == ["R6 1001-1002", "R6 1101-1104", "SP 5001", "SP 5051-5052"]
        cash = {c["station"]: c["expected"] for c in report["cash"]}
        assert cash == {"booth-1": "-60.00", "manager": "20.00"}


@pytest.mark.parametrize(
    ("kind", "body", "problem"),
    [
        ("PaperSold", {"session": "s", "qty": 2, "price": 100, "amount": 1, "sheets": []},
         "amount: is 1, not qty x price = 200"),
        ("PaperReceived", {"series": "R6", "manufacturer": "A", "faces": "6-on",
                           "progressive": False, "first": 10, "last": 9, "invoice": "I"},
         "last: 9 is not within"),
        ("BingoPrizePaid", {"session": "s", "game_date": "2026-11-28", "game": 1,
                            "kind": "regular", "name": "x", "amount": -5, "winners": []},
         "amount: is -5"),
        ("ProgramDefined", {"name": "x", "version": 1, "program": {"name": "x", "games": []}},
         "program: is not a game program"),
    ],
)  # fmt: skip
def test_bingo_event_bodies_are_checked(kind: str, body: dict[str, Any], problem: str) -> None:
    from pos.domain.event_schemas import body_problem

    found = body_problem(kind, body)
    assert found is not None and problem in found, found


def test_a_program_in_toml_reads_as_in_json(hall: Hall, tmp_path: Path) -> None:
    path = tmp_path / "program.toml"
    path.write_text(
        'name = "Bingo Lite"\nhouse_rules = "Be present to win."\n\n'
        '[[games]]\nkind = "regular"\nname = "Early Bird"\nprize = "50.00"\n\n'
        '[[games]]\nkind = "jackpot"\nname = "Jackpot"\nprize = "500.00"\n'
    )
    shown = ok(hall("program", "create", "--file", str(path), "--json"))
    assert [g["prize"] for g in shown["games"]] == ["$50.00", "$500.00"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "games": [{"kind": "bingo-bango", "name": "y"}]}')
    result = hall("program", "create", "--file", str(bad))
    assert result.exit_code == 2 and "bingo-bango" in result.stderr
