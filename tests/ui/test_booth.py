"""The booth (seller) driven by touches and scans against a real demo hall."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pos.domain.receipt import Receipt
from pos.services import settings
from pos.services.ports import PrinterFault
from pos.services.station import Station
from tests.ui.conftest import SELLER_PIN
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen


def log_in(ui: Driver, pin: str = SELLER_PIN) -> None:
    for key in pin:
        ui.tap(f"key-{key}")
    ui.tap("login")


def test_login_refusals_then_pin(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    assert ui.screen == "login"
    assert "booth-1 · Riverside Volunteer Fire Company" in ui.text()
    ui.shot("booth-login")
    log_in(ui, "9999")  # a PIN nobody has: it is tried as a badge
    assert ui.screen == "login"
    assert "No badge or PIN here matches that" in ui.text() and "Rule ROLE" not in ui.text()
    ui.type("login-entry", "I300", enter=True)  # the inspector may not sell
    assert "is an inspector: a booth opens for a seller, a redeemer or a manager" in ui.text()
    ui.shot("booth-login-refused", both=False)
    log_in(ui)
    assert ui.screen == "sell"
    assert "Sam Seller" in ui.find("status-station").text


def test_sell_with_pad_cash_and_receipt(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    shown = ui.text()
    assert "drawer-2 · Cherry Bells · $0.50" in shown
    assert "1,135 of 1,200 left" in shown
    assert "Winners left: $100 ×2 · $2 ×150" in shown
    ui.shot("booth-sell")
    ui.tap("bin-A100002")
    ui.tap("key-5")
    assert ui.find("qty").text == "Qty 5"
    assert ui.find("total").text == "$2.50"
    ui.tap("cash-500")
    assert "Change $2.50" in ui.find("sell-info").text
    assert ui.find("sell").text == "SELL 5 · $2.50"
    ui.tap("sell")
    assert "SOLD 5 × Cherry Bells" in ui.find("sale-headline").text
    assert "change $2.50" in ui.find("sale-detail").text
    assert "1,130 of 1,200 left" in ui.text()
    receipt = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT max(number) FROM p_receipts WHERE station = 'booth-1'"
        ).fetchone()[0]
    )
    assert ui.fake_printer.names[-1:] == [f"booth-1-{receipt:06d}"], ui.find("status-printer").text
    assert f"printed #{receipt}" in ui.find("status-printer").text
    ui.shot("booth-sold", both=False)


def test_winner_punch_now_punched_then_refused_twice(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("tab-winners")
    ui.shot("booth-winners")
    ui.scan("A100001/0042/500")
    assert ui.find("winner-headline").text == "PAY $5.00"
    assert ui.find("winner-shout").text == "PUNCH NOW"
    ui.shot("booth-winner-pay")
    ui.tap("punched")  # C2: the redeemer confirms the punch; who and when are recorded
    assert ui.find("winner-headline").text == "PUNCHED"
    assert "punched by" in ui.find("winner-detail").text
    punch = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT punched_by, punched_hlc IS NOT NULL FROM p_redemptions WHERE ticket = '0042'"
        ).fetchone()
    )
    assert punch[1] == 1 and punch[0]
    ui.type("code", "A100001/0042/500")
    ui.tap("pay")
    assert ui.find("winner-headline").text == "DO NOT PAY"
    assert "already paid" in ui.find("winner-detail").text
    assert ui.find("winner-rule").text.startswith("Rule C2: 11VAC15-40-60 C 2")
    ui.shot("booth-winner-refused", both=False)


def test_buyer_code_when_the_house_asks(demo_hall: Path, open_front: Any) -> None:
    with Station(demo_hall / "booth-1") as st:
        settings.set_house_rule(st, "buyer-id-required", "on", operator="M100")
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    assert ui.find("sell").disabled
    assert "(rule ID)" in ui.find("sell-info").text
    assert ui.find("buyer").hint_text == "Buyer card or ID (required)"
    ui.scan("C-1003")  # at the sale screen a scan is the buyer: an under-18 card
    ui.tap("sell")
    assert ui.find("sale-headline").text == "Sale refused"
    assert "under 18" in ui.find("sale-detail").text
    assert "Rule AGE" in ui.find("sale-detail").text
    ui.shot("booth-buyer-refused", both=False)
    ui.scan("C-1001")
    assert not ui.find("sell").disabled
    ui.tap("sell")
    assert "SOLD 1 × Lucky 7s" in ui.find("sale-headline").text


class GatedPrinter:
    """A printer that holds each job until the test lets it go (a printer timing out)."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.busy = threading.Event()
        self.printed: list[str] = []
        self.fail = False

    def print_receipt(self, receipt: Receipt, *, name: str, kick_drawer: bool = False) -> None:
        self.busy.set()
        self.gate.wait(10)
        if self.fail:
            raise PrinterFault("printer dummy: out of paper (simulated): load a new roll")
        self.printed.append(name)

    def kick_drawer(self) -> None:
        pass

    def status(self) -> dict[str, object]:
        return {"online": True}


def test_printer_fault_keeps_selling_and_the_screen_responsive(
    demo_hall: Path, open_front: Any
) -> None:
    printer = GatedPrinter()
    printer.gate.set()
    ui = open_front(demo_hall / "booth-1", printer=printer)
    log_in(ui)
    printer.gate.clear()
    printer.fail = True
    ui.tap("key-3")
    ui.tap_now("sell")
    assert printer.busy.wait(5), "the print job started"
    # The printer thread is stuck in the printer; the UI takes touches and draws, and the
    # station takes the next sale: the seller never waits for paper.
    ui.frames(3)
    ui.tap_now("key-C")
    ui.tap_now("key-2")
    assert ui.find("qty").text == "Qty 2"
    ui.tap_now("sell")
    settle_station(ui)
    assert "SOLD 2 × Lucky 7s" in ui.find("sale-headline").text
    assert not printer.gate.is_set() and ui.runtime.busy, "the first receipt is still printing"
    printer.gate.set()
    ui.settle()
    status = ui.find("status-printer").text
    assert "out of paper: load a roll" in status and "2 waiting" in status, status
    ui.shot("booth-printer-fault", both=False)
    printer.fail = False
    ui.tap("sell")  # the next sale prints all three receipts, in order
    assert len(printer.printed) == 3, printer.printed
    assert printer.printed == sorted(printer.printed)
    assert "printed" in ui.find("status-printer").text


def settle_station(ui: Any, timeout: float = 10.0) -> None:
    """Until the station's worker is idle and its results are drawn (not the printer's)."""
    deadline = time.monotonic() + timeout
    while ui.runtime.worker.pending or ui.front.poster.pending:
        assert time.monotonic() < deadline, "the station did not settle"
        ui.runtime.worker.wait_idle(0.1)
        ui.frames(2)
    ui.frames(2)


def test_void_devices_seal_and_drawer(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("drawer")
    assert "Drawer open." in ui.find("sale-detail").text
    assert ui.fake_printer.names[-1] == "drawer-kick"
    # void
    ui.tap("tab-void")
    ui.scan("A100001/0100/500")
    ui.tap("void-tampered")
    assert ui.find("void-headline").text == "VOID"
    ui.shot("booth-void")
    ui.type("void-receipt", "1")
    ui.tap("void-why-rung-in-error")  # a choice, not typing
    ui.tap("void-sale")
    assert "is not a manager" in ui.find("void-detail").text
    assert ui.find("void-rule").text.startswith("Rule ROLE")
    # devices
    ui.tap("tab-devices")
    assert "3 devices free of 3" in ui.text()
    ui.type("rent-buyer", "C-1001")
    ui.tap("rent-Starter")
    assert ui.find("device-outcome-headline").text == "DEVICE D-01"
    assert "2 devices free of 3" in ui.text()
    ui.type("device", "D-01")
    ui.type("witness", "C-1001")  # the renter
    ui.tap("no-numbers-keyed")
    ui.tap("exchange")
    assert ui.find("device-outcome-rule").text.startswith("Rule E2")
    ui.tap("no-numbers-keyed")
    ui.tap("exchange")
    assert ui.find("device-outcome-rule").text.startswith("Rule E2")
    ui.type("witness", "C-1002")
    ui.tap("no-numbers-keyed")
    ui.tap("exchange")
    assert ui.find("device-outcome-headline").text == "GIVE D-02"
    ui.shot("booth-devices")
    ui.type("device", "D-02")
    ui.tap("return")
    assert ui.find("device-outcome-headline").text == "D-02 RETURNED"
    # seal cards
    ui.tap("tab-seal")
    assert "Seal the Deal (S200001)" in ui.text()
    ui.scan("S200001/113")  # the hold ticket scanned, then its line tapped twice
    ui.tap("line-7")
    ui.tap("line-7")
    assert ui.find("seal-headline").text == "LINE 7 SIGNED"
    assert ui.find("line-7").text == "7: 113" and ui.find("line-7").disabled
    ui.type("seal-line", "7")
    ui.tap("seal-open")
    assert "not sold out" in ui.find("seal-detail").text
    assert "seal-rule" not in ui.idents() and "C5" not in ui.text()  # plain words
    ui.shot("booth-seal")
    # the end of the session at this booth
    ui.tap("tab-close")
    assert ui.find("close-state").text == "Session 2026-11-28 #1"
    # a seller counts blind: what the drawer should hold shows only once the count is recorded
    blind = ui.find("close-drawer").text
    assert blind.startswith("Drawer: not counted yet") and "$" not in blind, blind
    ui.shot("booth-close-blind")
    ui.type("count-amount", "1.00")
    ui.tap("count")
    ui.until(lambda: "counted $1.00" in ui.find("close-drawer").text)
    assert "expected $" in ui.find("close-drawer").text
    ui.tap("close-station")
    assert ui.find("close-headline").text == "BOOTH CLOSED"
    ui.shot("booth-close")


def _sales(ui: Driver) -> int:
    return int(
        ui.runtime.worker_call(
            lambda st: st.ledger.conn.execute(
                "SELECT count(*) FROM events WHERE type = 'TicketsSold'"
            ).fetchone()[0]
        )
    )


def test_sell_tapped_twice_sells_once(demo_hall: Path, open_front: Any) -> None:
    """Two presses before the first answer (a double tap the button's disabling did not catch,
    or a press again after a lost answer) carry the same attempt: one sale."""
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("bin-A100002")
    before = _sales(ui)
    button = ui.find("sell")
    button.dispatch("on_release")  # both presses land before the worker answers the first
    button.dispatch("on_release")
    ui.settle()
    assert _sales(ui) == before + 1
    assert "SOLD 1 × Cherry Bells" in ui.text() or "Already recorded" in ui.text()
    ui.tap("sell")  # the next sale is a new attempt
    assert _sales(ui) == before + 2
    assert "SOLD 1 × Cherry Bells" in ui.find("sale-headline").text
