"""The kiosk (player, self-service) driven by touches and scans against a real demo hall."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from pos.clock import FixedClock
from pos.services import devices, receipts, settings, vouchers
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.conftest import NOW
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen


def test_idle_refusals_games_buy_rent_check(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    assert ui.screen == "idle"
    shown = ui.text()
    assert "Riverside Volunteer Fire Company (TRAINING)" in shown
    assert "Scan your player card or ID to start" in shown
    assert "You must be 18 or older" in shown and "18.2-340.28 C" in shown
    assert "House rule: kiosks may sell pull-tabs from their dispenser." in shown
    ui.shot("kiosk-idle")
    # under 18: a kind refusal, with its rule
    ui.scan("C-1003")
    assert ui.screen == "refusal"
    assert ui.find("refusal-headline").text == "Sorry, you need to be 18 or older"
    assert "refusal-rule" not in ui.idents()  # plain words: no rule code for a player
    assert "Rule" not in ui.text() and "AGE" not in ui.text()
    ui.shot("kiosk-refused-age")
    ui.tap("refusal-ok")
    assert ui.screen == "idle"
    # a worker who sold today
    ui.scan("S200")
    assert ui.find("refusal-headline").text == "You are working today"
    assert "rule D" not in ui.text() and "Rule D" not in ui.text()
    ui.shot("kiosk-refused-worker", both=False)
    ui.tap("refusal-not-now")  # they may still rent a device: offered, declined
    # a card nobody knows
    ui.scan("C-9999")
    assert ui.find("refusal-headline").text == "We could not read that card"
    ui.tap("refusal-ok")
    # a player: the games with their flare and winners left
    ui.scan("C-1001")
    assert ui.screen == "games"
    shown = ui.text()
    assert "Hello, JD" in shown
    assert "Kiosk Classic · $1.00 a ticket" in shown
    assert "Prizes: 1 × $100, 20 × $10" in shown
    assert "Winners left: $100 ×1 · $10 ×20" in shown
    assert "Kiosk Seal" in shown
    ui.shot("kiosk-games")
    before = len(ui.fake_printer.names)
    assert ui.find("buy-A100003-2").text == "Buy 2 · $2.00"  # the price, before anything
    ui.tap("buy-A100003-2")
    assert ui.screen == "pay"
    assert ui.find("pay-title").text == "Buy 2 · $2.00"
    ui.runtime.acceptor.insert(100)
    ui.settle()
    assert ui.screen == "pay" and ui.find("pay-credit").text == "Your credit: $1.00"
    ui.runtime.acceptor.insert(100)
    ui.settle()
    assert ui.screen == "result"
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    assert "is printing" in ui.find("result-detail").text
    assert len(ui.fake_printer.names) == before + 1
    ui.shot("kiosk-bought")
    ui.tap("more")
    assert "774 tickets left" in ui.text()
    # rent a device
    ui.tap("go-rent")
    assert "Bingo devices: 3 free of 3" in ui.text()
    ui.shot("kiosk-rent")
    ui.tap("kiosk-rent-Starter")  # price first, then cash, then the rental
    assert ui.screen == "pay" and ui.find("pay-title").text == "Rent Starter · $5.00"
    assert ui.find("pay-prompt").text == "Put in $5.00 in bills."
    ui.shot("kiosk-pay-rental", both=False)
    feed = ui.runtime.acceptor
    feed.insert(500)
    ui.settle()
    assert ui.find("result-headline").text == "DEVICE D-01"
    paid = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT body FROM events WHERE type = 'DeviceRented' ORDER BY rowid DESC LIMIT 1"
        ).fetchone()[0]
    )
    assert '"paid_credit":500' in paid.replace(" ", "")
    ui.tap("more")
    # sign a seal line: the player scans their hold ticket, then taps a free line twice
    ui.tap("go-kiosk-seal")
    assert "Kiosk Seal (S300001)" in ui.text()
    assert "Scan the winning hold ticket" in ui.text()
    ui.shot("kiosk-seal")
    ui.scan("C-1001")  # a card is not a hold ticket
    assert ui.find("seal-headline").text == "Scan the winning hold ticket"
    ui.scan("S300001/107")
    ui.tap("line-5")
    assert ui.find("line-5").text == "Sign?"
    ui.tap("line-5")
    assert ui.find("seal-headline").text == "LINE 5 IS YOURS"
    assert "Hold ticket 107 signed line 5 of S300001" in ui.find("seal-detail").text
    ui.scan("S300001/107")
    assert "Hold ticket 107 has already signed a line" in ui.find("seal-detail").text
    assert ui.find("line-5").disabled
    ui.shot("kiosk-seal-signed", both=False)
    signed = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT ticket, player, by FROM p_seal_lines WHERE serial = 'S300001'"
        ).fetchall()
    )
    assert signed == [("107", "C-1001", None)]
    ui.tap("back")
    # check a ticket
    ui.tap("go-check")
    ui.shot("kiosk-check")
    ui.scan("A100003/0005/1000")
    assert ui.find("check-headline").text == "WINNER $10.00"
    assert ui.find("check-detail").text == "Take this ticket to the booth."
    ui.shot("kiosk-checked", both=False)
    ui.tap("back-done")
    assert ui.screen == "idle" and ui.front.player is None


class Seconds:
    """The idle watch's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def wait(ui: Driver, clock: Seconds, seconds: float, *, touching: str | None = None) -> None:
    """Let `seconds` pass, a quarter second at a time, touching a widget at each step."""
    for _ in range(int(seconds * 4)):
        clock.now += 0.25
        if touching:
            ui.tap_now(touching)
        time.sleep(0.26)  # the watch looks four times a second
        ui.frames(1)


def test_times_out_back_to_idle_and_forgets_the_player(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1", idle_timeout=60)
    clock = Seconds()
    ui.front.idle_watch.clock = clock
    ui.front.idle_watch.timer.touch(clock())
    ui.scan("C-1002")
    assert ui.screen == "games" and "Hello, MK" in ui.text()
    clock.now += 45
    wait(ui, clock, 0.5, touching="greeting")  # a touch keeps the player's screen
    clock.now += 45
    wait(ui, clock, 0.5)
    assert ui.screen == "games"
    clock.now += 30  # a minute without a touch: back to idle
    wait(ui, clock, 0.5)
    ui.settle()
    assert ui.screen == "idle"
    assert ui.front.player is None
    games = ui.front.screens.get_screen("games")
    assert games.greeting.text == "" and games.vm is None
    assert "MK" not in ui.text()
    # from the result screen too, after a purchase
    ui.scan("C-1002")
    ui.tap("buy-A100003-1")
    ui.runtime.acceptor.insert(100)
    ui.settle()
    assert ui.screen == "result"
    clock.now += 61
    wait(ui, clock, 0.5)
    ui.settle()
    assert ui.screen == "idle" and ui.front.player is None
    assert ui.front.screens.get_screen("result").outcome.headline.text == ""


def test_house_rule_off_and_a_jamming_dispenser(demo_hall: Path, open_front: Any) -> None:
    with Station(demo_hall / "kiosk-1") as st:
        devices.set_device(st, "dispenser", "sim:jam-every=3", operator="M100")
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-5")
    ui.runtime.acceptor.insert(500)
    ui.settle()
    assert ui.find("result-headline").text == "Sorry, the machine gave 2 of 5 tickets."
    assert ui.find("result-detail").text == "Take your $3.00 voucher. Staff have been called."
    ui.shot("kiosk-dispenser-credit", both=False)
    ui.tap("result-done")
    ui.close()
    with Station(demo_hall / "kiosk-1") as st:
        settings.set_house_rule(st, "kiosk-pull-tab-sales", "off", operator="M100")
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    assert "Pull-tabs are sold at the booth (house rules)" in ui.text()
    assert "buy-A100003-1" not in ui.idents()
    assert "buy-S300001-1" in ui.idents()  # seal cards still sell here


def test_a_manager_badge_closes_the_kiosk(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    assert "kiosk-close" not in ui.idents()  # only a manager's badge leads there
    ui.scan("M100")
    assert ui.screen == "kiosk-manager"
    assert ui.find("kiosk-manager-who").text == "Staff: Alex Manager"
    assert ui.find("kiosk-manager-session").text.startswith("Session 2026-11-28")
    ui.shot("kiosk-manager")
    ui.tap("kiosk-close")
    assert ui.find("kiosk-close-headline").text == "KIOSK CLOSED"
    assert "Close marker for session" in ui.find("kiosk-close-detail").text
    ui.shot("kiosk-closed", both=False)
    marker = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT station FROM p_close_markers WHERE station = 'kiosk-1'"
        ).fetchall()
    )
    assert marker == [("kiosk-1",)]
    ui.tap("kiosk-manager-done")
    assert ui.screen == "idle"
    assert ui.front.screens.get_screen("kiosk-manager").badge == ""


def _voucher(hall: Path, amount: str) -> str:
    """A voucher issued at the booth, synced to the kiosk: its QR text."""
    with Station(hall / "booth-1", clock=FixedClock(NOW)) as booth:
        issued = vouchers.issue_voucher(booth, amount, reason="cash", operator="S200")
        qr = receipts.receipt(booth, booth.id, issued.voucher).qr
        with Station(hall / "kiosk-1", clock=FixedClock(NOW)) as kiosk:
            pull(booth.ledger, kiosk.ledger)
    assert qr is not None
    return qr


def test_pay_with_a_voucher(demo_hall: Path, open_front: Any) -> None:
    qr = _voucher(demo_hall, "5.00")
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("go-kiosk-voucher")
    assert ui.screen == "kiosk-voucher"
    assert ui.find("voucher-prompt").text.startswith("Scan your voucher's QR code")
    assert "Kiosk Classic · $1.00 a ticket" in ui.text()
    ui.shot("kiosk-voucher")
    ui.tap("voucher-buy-A100003-1")  # no voucher yet: asked for one
    assert ui.find("result-headline").text == "Scan your voucher first"
    ui.tap("more")
    ui.tap("go-kiosk-voucher")
    ui.scan(qr)
    assert ui.find("voucher-prompt").text == "Voucher read: now choose your tickets"
    ui.shot("kiosk-voucher-read", both=False)
    before = len(ui.fake_printer.names)
    ui.tap("voucher-buy-A100003-2")
    assert ui.screen == "result"
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    detail = ui.find("result-detail").text
    assert "Your voucher for $5.00 paid $2.00" in detail
    assert "Your change: voucher #" in detail and "for $3.00 prints with it." in detail
    assert len(ui.fake_printer.names) > before
    ui.shot("kiosk-voucher-paid")
    # the same voucher again, typed this time: refused, with its rule
    ui.tap("more")
    ui.tap("go-kiosk-voucher")
    ui.type("voucher-code", qr)
    ui.tap("voucher-buy-A100003-1")
    assert ui.find("result-headline").text == "Sorry, that voucher did not pay"
    detail = ui.find("result-detail").text
    assert detail == "That voucher was already used. Please ask at the booth."
    assert "result-rule" not in ui.idents()  # the rule is on the staff screens, not here
    ui.shot("kiosk-voucher-refused")
    ui.tap("result-done")
    assert ui.screen == "idle" and ui.front.player is None
