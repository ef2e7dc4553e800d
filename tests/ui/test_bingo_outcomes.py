"""Outcomes that cannot be undone take two taps: a progressive game "Not won", a treasure chest
"Not opened", a seal line signed. The first tap asks ("tap again to record it"); a touch
anywhere else, or leaving the screen, takes it back. A seal line is signed by the hold ticket
scanned (checked against the seal's hold tickets), not by tapping a ticket number."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pos.services import bingo_games
from tests.ui.test_bingo_screens import _log_in, bingo_night
from tests.ui.test_money_path_screens import _count

pytestmark = pytest.mark.slow  # Kivy renders every screen


def test_not_won_and_not_opened_take_a_second_tap(demo_hall: Path, open_front: Any) -> None:
    bingo_night(demo_hall, chest=True)
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-session-games")
    ui.tap("session-game-4")
    # the first tap asks, and records nothing
    ui.tap("game-not-won")
    assert ui.find("game-not-won").text == "Not won: tap again to record it"
    assert "Tap it again to record it" in ui.find("game-headline").text
    assert _count(ui, "ProgressivePlayed") == 0
    ui.shot("booth-games-not-won-asked")
    # a touch elsewhere takes it back
    ui.tap("game-status")
    assert ui.find("game-not-won").text == "Not won"
    assert ui.find("game-headline").text == "Taken back: nothing recorded"
    ui.tap("game-not-won")  # asks again: one tap after taking back is a first tap
    assert _count(ui, "ProgressivePlayed") == 0
    ui.tap("game-won")  # another button takes the first tap back and is itself tapped once
    assert ui.find("game-headline").text == "WON: PAY THE PRIZE"
    assert _count(ui, "ProgressivePlayed") == 1

    # the treasure chest's "Not opened": the screen changing takes the first tap back
    ui.runtime.worker_call(
        lambda st: bingo_games.pay_prize(st, game=1, amount="100.00", operator="S200")
    )
    ui.tap("session-game-6")
    ui.type("game-input-via", "1")
    ui.tap("game-participant")
    assert ui.find("game-headline").text == "PARTICIPANT CHOSEN"
    ui.tap("game-keys")
    assert ui.find("game-keys").text == "Not opened: tap again to record it"
    ui.tap("tab-bingo")
    ui.tap("tab-session-games")
    ui.tap("session-game-6")
    assert ui.find("game-keys").text == "Not opened"
    ui.tap("game-keys")
    assert _count(ui, "ChestOpened") == 0
    ui.tap("game-keys")
    assert ui.find("game-headline").text == "RECORDED"
    assert "not opened, every key tried" in ui.find("game-status").text
    assert _count(ui, "ChestOpened") == 1
    ui.shot("booth-games-not-opened")


def test_a_seal_line_is_signed_by_the_scanned_hold_ticket_on_a_second_tap(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-seal")
    assert "Seal the Deal (S200001)" in ui.text()
    assert "Scan the winning hold ticket" in ui.text()
    assert not [i for i in ui.idents() if i.startswith("hold-")]  # no ticket numbers to tap
    ui.shot("booth-seal-scan")
    # a line tapped before a ticket is scanned signs nothing
    ui.tap("line-7")
    ui.tap("line-7")
    assert ui.find("seal-headline").text == "Scan the winning hold ticket"
    assert _count(ui, "SealLineSigned") == 0
    # a ticket of another deal, and a ticket of this deal that holds no line: said, nothing kept
    ui.scan("A100001/0100/500")
    assert ui.find("seal-headline").text == "Not a hold ticket to sign with"
    assert "from deal A100001, not this seal card" in ui.find("seal-detail").text
    ui.scan("S200001/042")
    assert "Ticket 042 is not a hold ticket" in ui.find("seal-detail").text
    assert "013, 113 and 213" in ui.find("seal-detail").text
    ui.shot("booth-seal-wrong-ticket", both=False)
    ui.tap("line-7")
    assert ui.find("seal-headline").text == "Scan the winning hold ticket"
    assert _count(ui, "SealLineSigned") == 0
    # the hold ticket scanned: a line's first tap asks, a touch elsewhere takes it back
    ui.scan("S200001/113")
    assert ui.find("seal-ticket").text == "Hold ticket 113: tap a free line"
    ui.tap("line-7")
    assert ui.find("line-7").text == "Sign?"
    assert "tap it again to sign it" in ui.find("seal-headline").text
    ui.shot("booth-seal-asked")
    ui.tap("seal-ticket")
    assert ui.find("line-7").text == "7"
    assert ui.find("seal-headline").text == "Taken back: nothing signed"
    ui.tap("line-7")
    ui.tap("line-8")  # another line: a first tap on it
    assert ui.find("line-7").text == "7" and ui.find("line-8").text == "Sign?"
    assert _count(ui, "SealLineSigned") == 0
    ui.tap("line-8")
    assert ui.find("seal-headline").text == "LINE 8 SIGNED"
    assert ui.find("line-8").text == "8: 113" and ui.find("line-8").disabled
    assert _count(ui, "SealLineSigned") == 1
    # the same ticket again has signed already
    ui.scan("S200001/113")
    assert "Hold ticket 113 has already signed a line" in ui.find("seal-detail").text
    ui.tap("line-9")
    ui.tap("line-9")
    assert _count(ui, "SealLineSigned") == 1
    # a player card scanned is the player signing, as before
    ui.scan("C-1001")
    assert ui.find("seal-player").text == "C-1001"
    ui.shot("booth-seal-signed")


def test_the_bingo_tab_says_plain_reasons_and_counts_by_touch(
    demo_hall: Path, open_front: Any
) -> None:
    bingo_night(demo_hall)
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-bingo")
    # quantities by touch: − and + keys, 48 px and more, no keyboard
    assert ui.find("bingo-qty").text == "Qty 1"
    assert ui.find("bingo-qty-minus").disabled  # not below 1
    ui.tap("bingo-qty-plus")
    ui.tap("bingo-qty-plus")
    ui.tap("bingo-qty-minus")
    assert ui.find("bingo-qty").text == "Qty 2"
    for key in ("bingo-qty-minus", "bingo-qty-plus", "prize-winners-plus"):
        assert min(ui.find(key).size) >= 48
    ui.tap("sell-pack-Door")
    assert ui.find("bingo-headline").text == "SOLD 2 × pack Door"
    assert ui.find("bingo-qty").text == "Qty 1"  # back to one for the next buyer
    ui.tap("game-1")
    ui.tap("prize-winners-plus")
    ui.tap("prize-winners-plus")
    assert ui.find("prize-winners").text == "3 winners"
    ui.type("prize-amount", "99.00")
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "PAY $99.00"
    assert "3 winners: $33.00, $33.00, $33.00" in ui.find("bingo-detail").text
    assert ui.find("prize-winners").text == "1 winner"
    # a refusal: the plain reason, without the law's citation
    ui.tap("game-2")
    ui.type("prize-amount", "500.00")
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "DO NOT PAY"
    banner = ui.find("bingo-detail").text
    assert "limit" in banner
    for cited in ("Code of Virginia", "§", "VAC", "Rule LIMIT"):
        assert cited not in banner, banner
    ui.shot("booth-bingo-plain-refusal")
