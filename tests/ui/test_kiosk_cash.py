"""Issue #20, the kiosk takes money: price first, then cash, then the sale; bills jammed in
escrow, power lost with a bill in escrow, a dispenser jam after payment, a player walking away
with credit; plain words; Spanish; large text. Driven by touches, scans and bills fed into the
simulated acceptor, against a real demo hall."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from kiosk.ui.theme import theme
from pos.clock import FixedClock
from pos.services import devices, kiosk_cash, receipts, vouchers
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.conftest import NOW
from tests.ui.driver import Driver
from tests.ui.test_kiosk import Seconds, wait

pytestmark = pytest.mark.slow  # Kivy renders every screen


def feed(ui: Driver, cents: int) -> None:
    """A player feeds a bill into the (simulated) acceptor; the kiosk deals with it."""
    ui.runtime.acceptor.insert(cents)
    ui.settle()


def ledger(ui: Driver, sql: str) -> list[Any]:
    return list(ui.runtime.worker_call(lambda st: st.ledger.conn.execute(sql).fetchall()))


def printed_text(ui: Driver, since: int) -> bytes:
    return b"".join(job.data for job in ui.fake_printer.jobs[since:])


def manager_sees(hall: Path, open_front: Any, label: str) -> str:
    """The kiosk's events reach the manager (sync); its Exceptions tab lists the call."""
    with (
        Station(hall / "kiosk-1", clock=FixedClock(NOW)) as kiosk,
        Station(hall / "manager", clock=FixedClock(NOW)) as manager,
    ):
        pull(kiosk.ledger, manager.ledger)
    ui = open_front(hall / "manager")
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-exceptions")
    shown = ui.text()
    assert label in shown, shown
    return shown


def test_price_first_then_cash_then_the_sale(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    assert ui.find("buy-A100003-5").text == "Buy 5 · $5.00"
    ui.tap("buy-A100003-5")
    assert ui.screen == "pay"
    assert ui.find("pay-title").text == "Buy 5 · $5.00"
    assert ui.find("pay-what").text == "Kiosk Classic: 5 tickets at $1.00"
    assert ui.find("pay-prompt").text == "Put in $5.00 in bills, or scan a voucher."
    sold_before = ledger(ui, "SELECT count(*) FROM p_sales")
    ui.shot("kiosk-pay")
    feed(ui, 200)
    assert ui.screen == "pay"
    assert ui.find("pay-credit").text == "Your credit: $2.00"
    assert ui.find("pay-prompt").text == "Put in $3.00 in bills, or scan a voucher."
    assert ledger(ui, "SELECT count(*) FROM p_sales") == sold_before  # nothing sold yet
    ui.shot("kiosk-pay-credit", both=False)
    feed(ui, 500)  # the bill that completes: escrow, the sale recorded, stacked, dispensed
    assert ui.screen == "result"
    assert ui.find("result-headline").text == "Take your 5 tickets from the tray"
    kinds = [
        k
        for (k,) in ledger(
            ui,
            "SELECT type FROM events WHERE origin = 'kiosk-1' AND type IN ('BillEscrowed', "
            "'BillStacked', 'DispenseRequested', 'TicketsSold') ORDER BY seq DESC LIMIT 4",
        )
    ][::-1]
    assert kinds == ["DispenseRequested", "BillEscrowed", "BillStacked", "TicketsSold"]
    assert ui.runtime.acceptor.cash_box == [200, 500]
    # $2 credit left: shown on the games, then paid from it
    ui.tap("more")
    assert ui.find("games-credit").text == "Your credit: $2.00"
    ui.tap("buy-A100003-2")
    assert ui.find("pay-prompt").text == "Your credit pays for it: touch Pay."
    assert ui.find("pay-go").text == "Pay $2.00"
    ui.shot("kiosk-pay-from-credit", both=False)
    ui.tap("pay-go")
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    assert ledger(ui, "SELECT cents FROM p_kiosk_credit WHERE station = 'kiosk-1'") == [(0,)]


def test_a_bill_jammed_in_escrow(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    ui.runtime.acceptor.fail_next("jam")
    before = len(ui.fake_printer.jobs)
    feed(ui, 500)
    assert ui.screen == "result"
    assert ui.find("result-headline").text == "Sorry, your $5.00 bill is stuck in the machine."
    assert ui.find("result-detail").text == "Take your $5.00 voucher. Staff have been called."
    ui.shot("kiosk-bill-jam")
    assert ui.runtime.acceptor.jammed == [500]
    assert ledger(ui, "SELECT state FROM p_bills") == [("jammed",)]
    assert ledger(ui, "SELECT state FROM p_paid_requests") == [("cancelled",)]  # nothing sold
    voucher = printed_text(ui, before)
    assert b"VOUCHER" in voucher.upper() and b"5.00" in voucher
    ui.close()
    shown = manager_sees(demo_hall, open_front, "Kiosk bill jam: staff called")
    assert "$5.00 bill is stuck in the bill acceptor" in shown


def test_power_lost_while_a_bill_is_in_escrow(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    # the acceptor restarts and pushes the bill back out of the front
    ui.runtime.acceptor.fail_next("power-front")
    feed(ui, 500)
    assert ui.screen == "pay"
    assert ui.find("pay-headline").text == "Please take your $5.00 bill back"
    assert ui.find("pay-detail").text == "The machine restarted and gave your bill back."
    assert ui.find("pay-credit").text == ""
    ui.shot("kiosk-power-returned")
    assert ledger(ui, "SELECT state FROM p_bills") == [("returned",)]
    # again, and this time the acceptor says the bill went into the cash box: credited
    ui.runtime.acceptor.fail_next("power-cashbox")
    feed(ui, 500)
    assert ui.find("pay-headline").text == "The machine restarted"
    assert ui.find("pay-detail").text == "Your $5.00 bill is in the machine: it is your credit now."
    assert ui.find("pay-credit").text == "Your credit: $5.00"
    assert ui.find("pay-go").text == "Pay $2.00"
    ui.shot("kiosk-power-credited", both=False)
    ui.tap("pay-go")
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    assert sorted(ledger(ui, "SELECT state FROM p_paid_requests")) == [
        ("cancelled",),
        ("cancelled",),
        ("sold",),
    ]


def test_a_dispenser_jam_after_payment(demo_hall: Path, open_front: Any) -> None:
    with Station(demo_hall / "kiosk-1") as st:
        devices.set_device(st, "dispenser", "sim:jam-every=3", operator="M100")
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-5")
    before = len(ui.fake_printer.jobs)
    feed(ui, 500)
    assert ui.find("result-headline").text == "Sorry, the machine gave 2 of 5 tickets."
    assert ui.find("result-detail").text == "Take your $3.00 voucher. Staff have been called."
    assert "0 of" not in ui.text()
    ui.shot("kiosk-dispenser-jam")
    assert b"3.00" in printed_text(ui, before)
    ui.close()
    manager_sees(demo_hall, open_front, "Kiosk dispenser jam: staff called")


def test_a_player_walks_away_with_credit(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1", idle_timeout=60)
    clock = Seconds()
    ui.front.idle_watch.clock = clock
    ui.front.idle_watch.timer.touch(clock())
    ui.scan("C-1002")
    ui.tap("buy-A100003-2")
    feed(ui, 500)
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    ui.tap("more")
    assert ui.find("games-credit").text == "Your credit: $3.00"
    before = len(ui.fake_printer.jobs)
    clock.now += 61  # the player walked away: nothing prints to an empty kiosk
    wait(ui, clock, 0.5)
    ui.settle()
    assert ui.screen == "idle" and ui.front.player is None
    assert ui.find("idle-note").text == ""
    ui.shot("kiosk-idle-credit-kept")
    assert b"VOUCHER" not in printed_text(ui, before).upper()
    assert ledger(ui, "SELECT cents FROM p_kiosk_credit") == [(0,)]
    (left,) = ui.runtime.worker_call(kiosk_cash.credit_left_open)
    assert left.amount == 300
    # staff pay it out when the player asks: a voucher
    paid = ui.runtime.worker_call(
        lambda st: kiosk_cash.pay_out_credit_left(st, left.kept, operator="M100")
    )
    number = paid.voucher
    ui.runtime.print_queue()
    ui.settle()
    paper = printed_text(ui, before)
    assert b"3.00" in paper and b"VOUCHER" in paper.upper()
    held = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT amount, reason FROM p_vouchers WHERE station = 'kiosk-1' AND number = ?",
            (number,),
        ).fetchone()
    )
    assert held == (300, "kiosk credit a player left: the player walked away")
    # the voucher is good at the booth
    qr = ui.runtime.worker_call(lambda st: receipts.receipt(st, st.id, number).qr)
    ui.close()
    with (
        Station(demo_hall / "kiosk-1", clock=FixedClock(NOW)) as kiosk,
        Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as booth,
    ):
        pull(kiosk.ledger, booth.ledger)
        paid = vouchers.redeem_voucher(booth, qr, operator="S200")
    assert paid.paid == 300


def _until(ui: Driver, ident: str, text: str, timeout: float = 10.0) -> None:
    """Frames until widget `ident` reads `text` (the cash thread polls on its own time)."""
    deadline = time.monotonic() + timeout
    while ui.find(ident).text != text:
        assert time.monotonic() < deadline, f"{ident}: {ui.find(ident).text!r}, not {text!r}"
        ui.frames(1)
        time.sleep(0.05)


def test_the_status_bar_says_what_the_bill_acceptor_is_doing(
    demo_hall: Path, open_front: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Staff see an acceptor out of service from across the hall, not only a player at the pay
    screen; the word goes back to ready when it answers again."""
    from pos.services.ports import AcceptorFault

    ui = open_front(demo_hall / "kiosk-1")
    _until(ui, "status-bills", "Bills: ready")
    acceptor = ui.runtime.acceptor

    def unplugged() -> list[Any]:
        raise AcceptorFault("no answer on /dev/ttyUSB0")

    monkeypatch.setattr(acceptor, "poll", unplugged)
    _until(ui, "status-bills", "Bills: out of service")
    assert ui.find("status-bills").color[0] > 0.9  # red, lightened on black
    assert ui.find("status-scanner").text.startswith("Scanner: ready"), "nothing cut short"
    ui.shot("kiosk-acceptor-out-of-service", both=False)
    monkeypatch.undo()
    _until(ui, "status-bills", "Bills: ready")


def test_no_acceptor_takes_vouchers_only(demo_hall: Path, open_front: Any) -> None:
    from tests.ui.test_kiosk import _voucher

    qr = _voucher(demo_hall, "5.00")
    with Station(demo_hall / "kiosk-1") as st:
        devices.set_device(st, "acceptor", "none", operator="M100")
    ui = open_front(demo_hall / "kiosk-1")
    assert ui.runtime.cash is None
    _until(ui, "status-bills", "Bills: none (vouchers only)")
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    assert ui.find("pay-prompt").text == (
        "This kiosk takes no cash: scan a voucher, or pay at the booth."
    )
    ui.shot("kiosk-pay-no-cash")
    ui.scan(qr)  # the voucher pays for what is shown
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    assert "Your voucher for $5.00 paid $2.00" in ui.find("result-detail").text


def test_scans_on_the_kiosk_read_plainly(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    # a ticket scanned at idle opens its check result (no card needed)
    ui.scan("A100003/0005/1000")
    assert ui.screen == "check"
    assert ui.find("check-headline").text == "WINNER $10.00"
    # a typo: amber, the typed code kept for correcting
    ui.tap("back-done")
    ui.tap("idle-check")
    ui.type("check-code", "A10003/0005", enter=True)
    assert ui.find("check-headline").text == "Check the code and try again"
    assert ui.find("check-code").text == "A10003/0005"
    assert "DO NOT PAY" not in ui.text()
    ui.shot("kiosk-check-typo")
    # a ticket paid already must not be paid: red DO NOT PAY, no rule code
    ui.type("check-code", "A100001/0007/500", enter=True)
    assert ui.find("check-headline").text == "DO NOT PAY"
    assert ui.find("check-detail").text == "This ticket was already paid."
    assert "Rule" not in ui.text() and "deal checks" not in ui.text()
    ui.shot("kiosk-check-do-not-pay", both=False)


def test_spanish_screens(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    assert ui.find("idle-language").text == "Español"
    ui.tap("idle-language")
    assert ui.find("idle-headline").text == "Escanee su tarjeta o identificación para empezar"
    assert ui.find("idle-language").text == "English"
    assert ui.find("idle-check").text == "Revisar un boleto"
    ui.shot("kiosk-idle-es")
    ui.scan("C-1001")
    assert ui.find("greeting").text == "Hola, JD"
    assert ui.find("buy-A100003-2").text == "Comprar 2 · $2.00"
    assert ui.find("done").text == "Terminar"
    ui.shot("kiosk-games-es")
    ui.tap("go-rent")
    assert ui.find("kiosk-free-devices").text == "Equipos de bingo: 3 libres de 3"
    ui.shot("kiosk-rent-es", both=False)
    ui.tap("back")
    ui.tap("buy-A100003-2")
    assert ui.find("pay-prompt").text == "Inserte $2.00 en billetes, o escanee un vale."
    ui.shot("kiosk-pay-es")
    feed(ui, 200)
    assert ui.find("result-headline").text == "Retire sus 2 boletos de la bandeja"
    ui.shot("kiosk-bought-es", both=False)
    ui.tap("result-done")  # the next player starts in English
    assert ui.find("idle-headline").text == "Scan your player card or ID to start"
    # a refusal, in Spanish, without its rule code
    ui.tap("idle-language")
    ui.scan("C-1003")
    assert ui.find("refusal-headline").text == "Lo sentimos, debe tener 18 años o más"
    ui.shot("kiosk-refused-es", both=False)


def test_large_text_high_contrast(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    normal = ui.find("idle-headline").font_size
    ui.tap("idle-large")
    assert ui.find("idle-large").text == "Normal text"
    assert ui.find("idle-headline").font_size == pytest.approx(normal * 1.3)
    ui.shot("kiosk-idle-large")
    ui.scan("C-1001")
    ui.shot("kiosk-games-large")
    ui.tap("buy-A100003-2")
    ui.shot("kiosk-pay-large")
    feed(ui, 200)
    ui.shot("kiosk-bought-large")
    ui.tap("result-done")
    assert float(theme.text_scale) == 1.0  # the next player starts with normal text
    time.sleep(0)
