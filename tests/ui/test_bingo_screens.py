"""Issue #18 on the touch screens, driven by touches against the demo hall: the booth sells
packs and paper by audit number and raffle tickets, and pays bingo prizes; the manager edits the
game program (each change a new version, checked against the limits)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import zxingcpp

from hardware.printer.escpos_image import interpret
from pos.clock import FixedClock
from pos.services import bingo_games, bingo_paper, bingo_program, raffle, receipts, settings
from pos.services.station import Station
from tests.ui.conftest import NOW, SELLER_PIN
from tests.ui.driver import Driver

PROGRAM: dict[str, Any] = {
    "name": "Saturday Night",
    "house_rules": "Players must be present to win.",
    "games": [
        {"kind": "regular", "name": "Early Bird", "pattern": "any line", "paper": "6-on",
         "prize": "100.00"},
        {"kind": "special", "name": "Special 1", "pattern": "letter X", "paper": "6-on",
         "prize": "150.00"},
        {"kind": "decision", "name": "Decision Bingo", "pattern": "any line", "entry": "1.00",
         "fee": "0.25"},
        {"kind": "progressive", "name": "Lucky 7", "pattern": "coverall", "paper": "PROG",
         "price": "1.00", "calls": 50, "prize": "500.00", "increase": "200.00"},
        {"kind": "raffle", "name": "Quilt raffle drawing", "raffle": "QUILT26"},
    ],
    "products": [{"kind": "pack", "name": "Door"}, {"kind": "paper", "name": "PROG",
                                                     "price": "1.00"}],
}  # fmt: skip


CHEST = {"kind": "treasure-chest", "price": "2.00",
         "house_rules": "The winner of the game the caller names tries one key."}  # fmt: skip


def bingo_night(hall: Path, *, chest: bool = False) -> None:
    """At booth-1: paper received from its invoice, the Door pack, the program, a raffle;
    `chest`: with a Treasure Chest Raffle as game 6."""
    with Station(hall / "booth-1", clock=FixedClock(NOW)) as st:
        for series, faces, first, last, progressive in (
            ("R6", "6-on", 1001, 1200, False),
            ("PROG", "1-on", 1, 100, True),
        ):
            bingo_paper.receive_paper(
                st, series=series, manufacturer="Arrow", faces=faces, first=first, last=last,
                invoice="INV-100", progressive=progressive, operator="M100",
            )  # fmt: skip
        bingo_paper.define_pack(
            st, "Door", price="20.00", items=[("R6", 1)], games="6-on, 9 games", operator="M100"
        )
        games = PROGRAM["games"] + ([CHEST] if chest else [])
        program = bingo_program.program_from_mapping({**PROGRAM, "games": games})
        bingo_program.create_program(st, program, operator="M100")
        terms = raffle.parse_terms(
            "QUILT26", name="Quilt raffle", drawing_date="2026-11-28", price="5.00",
            prizes=["Handmade quilt;250.00;appraisal by Riverside Quilters"],
        )  # fmt: skip
        raffle.create(st, terms, operator="M100")
        # a low W-2G threshold, so that a regular game's prize asks for the winner's data
        settings.set_rulebook_setting(st, "w2g_threshold", "120.00", operator="M100")


def _log_in(ui: Driver, pin: str = SELLER_PIN) -> None:
    for key in pin:
        ui.tap(f"key-{key}")
    ui.tap("login")


@pytest.mark.slow
def test_the_booth_sells_packs_paper_and_raffle_tickets_and_pays_prizes(
    demo_hall: Path, open_front: Any
) -> None:
    bingo_night(demo_hall)
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-bingo")
    assert ui.screen == "bingo"
    shown = ui.text()
    assert "Saturday Night v1" in shown, shown
    assert "Pack Door · $20.00" in shown and "200 packs here" in shown
    assert "Paper PROG · $1.00" in shown and "100 sheets here" in shown
    assert "Raffle QUILT26 · $5.00" in shown and "drawing 2026-11-28 · 0 sold" in shown
    assert "1. Early Bird · $100.00" in shown and "5. Quilt" not in shown  # a raffle pays no prize
    ui.shot("booth-bingo")

    ui.tap("bingo-qty-plus")  # 2, by touch
    ui.tap("sell-pack-Door")
    assert ui.find("bingo-headline").text == "SOLD 2 × pack Door"
    assert (
        "$40.00" in ui.find("bingo-detail").text and "R6 1001-1002" in ui.find("bingo-detail").text
    )
    assert "198 packs here" in ui.text()
    ui.tap("sell-paper-PROG")  # progressive paper apart, at the program's price (I2, I4)
    assert ui.find("bingo-headline").text == "SOLD 1 × paper PROG"
    assert ui.find("bingo-detail").text.endswith("audit PROG 1")
    ui.tap("sell-raffle-QUILT26")
    assert ui.find("bingo-headline").text == "SOLD 1 × RAFFLE QUILT26"
    assert "ticket 000001" in ui.find("bingo-detail").text
    # The raffle ticket went to the printer: its stub and the buyer's part, the QR verifies.
    job = ui.fake_printer.jobs[-1]
    printout = interpret(job.data, ui.fake_printer.profile)
    assert [line.strip() for line in printout.lines].count("No. 000001") == 2
    [code] = zxingcpp.read_barcodes(printout.image)
    checked = ui.runtime.worker_call(lambda st: receipts.verify_payload(st, code.text))
    assert checked["raffle"]["number"] == "000001" and checked["raffle"]["status"] == "sold"
    ui.shot("booth-bingo-sold", both=False)

    ui.tap("game-1")
    assert ui.find("prize-amount").text == "100.00"
    ui.tap("prize-winners-plus")  # 2 winners, by touch
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "PAY $100.00"
    assert "2 winners: $50.00, $50.00" in ui.find("bingo-detail").text
    assert "1. Early Bird · $100.00 · paid $100.00" in ui.text()
    ui.tap("game-2")
    ui.type("prize-amount", "500.00")
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "DO NOT PAY"
    assert "limit" in ui.find("bingo-detail").text
    assert "Rule" not in ui.find("bingo-detail").text  # plain words: no citation on the banner
    ui.shot("booth-bingo-refused")
    # A prize at the W-2G threshold: the winner's data is asked for, then it pays.
    ui.tap("game-2")
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "DO NOT PAY"
    assert "Form W-2G" in ui.find("bingo-detail").text
    assert "game-2" not in ui.idents()  # the W-2G fields stand in for the games
    assert ui.find("program").text == "W-2G for game 2. Special 1 · $150.00"
    ui.type("w2g-name", "Pat Winner")
    ui.type("w2g-address", "1 Elm St, Richmond VA")
    ui.type("w2g-tin", "123-45-6789")
    ui.type("w2g-id", "VA DL T12345678")
    ui.shot("booth-bingo-w2g")
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "PAY $150.00"
    assert "W-2G data recorded" in ui.find("bingo-detail").text
    assert "game-2" in ui.idents() and "w2g-name" not in ui.idents()


@pytest.mark.slow
def test_the_manager_edits_the_program(demo_hall: Path, open_front: Any, tmp_path: Path) -> None:
    ui = open_front(demo_hall / "manager")
    ui.front.media_roots = lambda: [tmp_path]  # the program's file on a USB stick
    path = tmp_path / "program.json"
    path.write_text(json.dumps({**PROGRAM, "products": []}))
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-program")
    assert "No game program yet" in ui.text()
    ui.tap("usb-program-0")
    ui.tap("program-load")
    assert ui.find("program-headline").text == "PROGRAM Saturday Night v1"
    assert ui.find("program-heading").text.startswith("Saturday Night · version 1 by M100")
    shown = ui.text()
    assert "1. Early Bird · regular" in shown and "3. Decision Bingo · decision" in shown
    assert ui.find("game-3-entry").text == "1.00" and ui.find("game-3-fee").text == "0.25"
    assert ui.find("game-4-price").text == "1.00" and ui.find("game-4-prize").text == "500.00"
    ui.shot("manager-program")

    ui.type("game-1-prize", "90.00")
    ui.tap("save-game-1")
    assert ui.find("program-headline").text == "VERSION 2"
    assert ui.find("game-1-prize").text == "90.00"
    ui.type("game-1-prize", "5000.00")  # above the regular game limit
    ui.tap("save-game-1")
    assert ui.find("program-headline").text == "Change refused"
    assert "Rule LIMIT" in ui.find("program-detail").text
    ui.type("house-rules-text", "Players must be present to win. No smoking.")
    ui.tap("house-rules-save")
    assert ui.find("program-headline").text == "VERSION 3"
    assert "No smoking." in ui.text()
    versions = ui.runtime.worker_call(lambda st: bingo_program.program_history(st))
    assert [v.version for v in versions] == [1, 2, 3]
    ui.shot("manager-program-edited")


@pytest.mark.slow
def test_the_booth_records_decision_progressive_and_treasure_chest_games(
    demo_hall: Path, open_front: Any
) -> None:
    bingo_night(demo_hall, chest=True)
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-session-games")
    shown = ui.text()
    assert "3. Decision Bingo" in shown and "4. Lucky 7" in shown and "6. Treasure Chest" in shown
    assert "$1.00 a face, $0.25 a card for each 3 numbers" in shown
    assert "(G2" not in shown  # plain words: no rule codes on the screen
    ui.shot("booth-games")
    # decision bingo: 60 faces entered, two rounds of fees on 60 cards, the prize announced
    ui.type("game-input-count", "60")
    ui.tap("game-enter")
    assert ui.find("game-headline").text == "GAME 3: PAID IN $60.00"
    for _ in range(2):
        ui.type("game-input-count", "60")
        ui.tap("game-fees")
    assert ui.find("game-headline").text == "GAME 3: PAID IN $90.00"
    ui.tap("game-announce")
    assert ui.find("game-headline").text == "ANNOUNCE" and ui.find("game-shout").text == "$90.00"
    ui.shot("booth-games-announced", both=False)
    # the progressive game not won: one more number next session (I5), played on (I6)
    ui.tap("session-game-4")
    assert "$500.00 in 50 numbers" in ui.find("game-status").text
    ui.tap("game-not-won")
    ui.tap("game-not-won")  # a second tap records it: it cannot be undone
    assert ui.find("game-headline").text == "NOT WON: PLAY ON AS REGULAR"
    assert "Next session: 51 numbers" in ui.find("game-detail").text
    assert "played on as a regular game" in ui.find("game-status").text
    # the treasure chest: entries, a participant through a game won this session (H3)
    ui.tap("session-game-6")
    ui.type("game-input-count", "10")
    ui.tap("game-sell")
    assert ui.find("game-headline").text == "10 ENTRIES"
    ui.type("game-input-via", "2")  # no winner of game 2 recorded yet
    ui.tap("game-participant")
    assert ui.find("game-headline").text == "Not recorded"
    assert "Rule H3" not in ui.text()  # the plain reason, not the rule's citation
    ui.runtime.worker_call(
        lambda st: bingo_games.pay_prize(st, game=1, amount="100.00", operator="S200")
    )
    ui.type("game-input-via", "1")
    ui.tap("game-participant")
    assert ui.find("game-headline").text == "PARTICIPANT CHOSEN"
    ui.tap("game-keys")
    ui.tap("game-keys")
    assert "not opened, every key tried" in ui.find("game-status").text
    assert "(H" not in ui.find("game-status").text
    ui.shot("booth-games-chest")
