"""Credit a player leaves on the kiosk, from a usability walk (a 70-year-old at the kiosk): the
result screen says the credit left as large as its headline, with what to do; the voucher waits
until the player touches Done; a player who walked away (the kiosk timed out, or someone else
scanned in) gets nothing printed to an empty kiosk: the credit is kept on the record for staff
(kiosk_cash.credit_left_open), the next player cannot spend it, and staff pay it out once.
Driven by touches, scans and bills fed into the simulated acceptor, against a real demo hall."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kiosk.ui.theme import theme
from pos.errors import BoothError
from pos.services import kiosk_cash
from tests.ui.driver import Driver
from tests.ui.test_kiosk import Seconds
from tests.ui.test_kiosk_cash import feed, ledger, printed_text

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _bought_two_with_five(ui: Driver, card: str = "C-1001") -> None:
    ui.scan(card)
    ui.tap("buy-A100003-2")
    feed(ui, 500)
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"


def _vouchers(ui: Driver) -> list[Any]:
    return ledger(ui, "SELECT amount FROM p_vouchers WHERE station = 'kiosk-1'")


def test_the_result_says_the_credit_left_and_done_prints_its_voucher(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    vouchers_before = _vouchers(ui)
    before = len(ui.fake_printer.jobs)
    _bought_two_with_five(ui)
    assert ui.find("result-credit").text == "You have $3.00 left"
    assert ui.find("result-credit-how").text == (
        "Buy more with it, or touch Done to get it on a voucher."
    )
    headline = ui.find("result-headline")
    assert ui.find("result-credit").font_size == pytest.approx(headline.font_size)
    ui.shot("kiosk-result-credit-left")
    assert _vouchers(ui) == vouchers_before, "no voucher before the player touches Done"
    assert b"VOUCHER" not in printed_text(ui, before).upper()
    # buying more from the credit: what is left is said again; none left, nothing said
    ui.tap("more")
    ui.tap("buy-A100003-2")
    ui.tap("pay-go")
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    assert ui.find("result-credit").text == "You have $1.00 left"
    ui.tap("more")
    ui.tap("buy-A100003-1")
    ui.tap("pay-go")
    assert ui.find("result-headline").text == "Take your 1 ticket from the tray"
    assert "result-credit" not in ui.idents()
    assert "left" not in ui.text()
    # $1.00 left, then Done: the voucher prints for the player standing there
    ui.tap("more")
    ui.tap("buy-A100003-1")
    feed(ui, 200)
    assert ui.find("result-credit").text == "You have $1.00 left"
    printed = len(ui.fake_printer.jobs)
    ui.tap("result-done")
    assert ui.screen == "idle"
    assert ui.find("idle-note").text.startswith("Your credit of $1.00 printed as voucher #")
    paper = printed_text(ui, printed)
    assert b"VOUCHER" in paper.upper() and b"1.00" in paper
    assert ledger(ui, "SELECT cents FROM p_kiosk_credit WHERE station = 'kiosk-1'") == [(0,)]
    assert ui.runtime.worker_call(kiosk_cash.credit_left_open) == []


@pytest.mark.parametrize("spanish", [False, True])
def test_the_credit_left_fits_in_large_text(
    demo_hall: Path, open_front: Any, spanish: bool
) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    if spanish:
        ui.tap("idle-language")
    ui.tap("idle-large")
    _bought_two_with_five_any_language(ui)
    expected = "Le quedan $3.00" if spanish else "You have $3.00 left"
    assert ui.find("result-credit").text == expected
    assert float(theme.text_scale) > 1
    ui.shot(f"kiosk-result-credit-left-large-{'es' if spanish else 'en'}")


def _bought_two_with_five_any_language(ui: Driver) -> None:
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    feed(ui, 500)
    assert ui.screen == "result"


def test_a_player_who_walks_away_gets_nothing_printed_and_staff_see_the_credit(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "kiosk-1", idle_timeout=60)
    clock = Seconds()
    ui.front.idle_watch.clock = clock
    ui.front.idle_watch.timer.touch(clock())
    vouchers_before = _vouchers(ui)
    _bought_two_with_five(ui, "C-1002")
    before = len(ui.fake_printer.jobs)
    clock.now += 61  # the player walked away
    ui.until(lambda: ui.screen == "idle")
    ui.settle()
    assert ui.front.player is None
    assert ui.find("idle-note").text == "", "nothing said to whoever stands here next"
    assert "3.00" not in ui.text()
    assert b"VOUCHER" not in printed_text(ui, before).upper(), "nothing printed to nobody"
    assert _vouchers(ui) == vouchers_before
    left = ui.runtime.worker_call(kiosk_cash.credit_left_open)
    assert [(c.amount, c.reason, c.voucher) for c in left] == [
        (300, "the player walked away", None)
    ]
    assert ledger(ui, "SELECT cents FROM p_kiosk_credit WHERE station = 'kiosk-1'") == [(0,)]
    calls = ledger(ui, "SELECT detail FROM p_flags WHERE kind = 'kiosk-credit-left'")
    assert len(calls) == 1 and "$3.00 of credit" in calls[0][0]
    # the next player cannot spend it: their purchase asks for bills
    ui.scan("C-1001")
    assert ui.find("games-credit").text == ""
    ui.tap("buy-A100003-2")
    assert ui.find("pay-prompt").text == "Put in $2.00 in bills, or scan a voucher."
    assert ui.find("pay-go").opacity == 0
    ui.tap("pay-cancel")
    ui.tap("done")
    # staff pay it out when they choose: a voucher, once
    printed = len(ui.fake_printer.jobs)
    kept = left[0].kept
    paid = ui.runtime.worker_call(
        lambda st: kiosk_cash.pay_out_credit_left(st, kept, operator="M100")
    )
    ui.runtime.print_queue()
    ui.settle()
    assert paid.amount == 300
    assert b"3.00" in printed_text(ui, printed)
    assert ui.runtime.worker_call(kiosk_cash.credit_left_open) == []
    with pytest.raises(BoothError):
        ui.runtime.worker_call(lambda st: kiosk_cash.pay_out_credit_left(st, kept, operator="M100"))
    assert _vouchers(ui) == [*vouchers_before, (300,)]


def test_a_scan_at_the_result_goes_on_or_starts_afresh(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    _bought_two_with_five(ui)
    ui.scan("C-1001")  # the same player scans again: on to the games with their credit
    assert ui.screen == "games"
    assert ui.find("games-credit").text == "Your credit: $3.00"
    ui.shot("kiosk-games-credit")
    ui.tap("buy-A100003-1")
    ui.tap("pay-go")
    assert ui.find("result-credit").text == "You have $2.00 left"
    vouchers_before = _vouchers(ui)
    ui.scan("C-1002")  # someone else: the last player's credit is kept, not theirs
    assert ui.screen == "games"
    assert "Hello, MK" in ui.text()
    assert ui.find("games-credit").text == ""
    assert _vouchers(ui) == vouchers_before
    left = ui.runtime.worker_call(kiosk_cash.credit_left_open)
    assert [c.amount for c in left] == [200]
