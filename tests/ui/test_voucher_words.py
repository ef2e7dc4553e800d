"""The kiosk's words for a voucher that will not pay, and the booth paying a typed code issued
at the kiosk, through the view-models (no Kivy): what happened and where to go, in English and
Spanish, never a station name or a rule; a code to correct keeps the player on the screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hardware.dispenser import SimulatedDispenser
from hardware.printer.adapter import EscPosReceiptPrinter
from hardware.printer.fake import FakePrinter
from kiosk import i18n
from kiosk.viewmodels import booth
from kiosk.viewmodels import kiosk as vm_kiosk
from kiosk.viewmodels.common import Outcome
from pos.clock import FixedClock
from pos.domain import voucher_code
from pos.services import receipts, vouchers
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import TRAINING_NOW, make_training_hall
from tests.ui.conftest import NOW
from tests.ui.test_voucher_typed import read_vouchers

PLAYER = vm_kiosk.Player("C-1001", "JD")
STATIONS = ("kiosk-1", "booth-1", "manager")


@pytest.fixture
def spanish() -> Iterator[None]:
    i18n.set_language("es")
    yield
    i18n.set_language(i18n.DEFAULT)


def _buy(hall: Path, code: str) -> Outcome:
    with Station(hall / "kiosk-1", clock=FixedClock(NOW)) as st:
        dispenser = SimulatedDispenser("", hall / "kiosk-1")
        return vm_kiosk.buy_with_voucher(st, PLAYER, "A100003", 1, code, dispenser)


def _plain(outcome: Outcome) -> None:
    said = f"{outcome.headline} {outcome.detail}"
    assert not any(name in said for name in STATIONS), said
    assert "rule" not in said.lower() and "Errno" not in said


def test_a_code_no_voucher_here_has(demo_hall: Path) -> None:
    made_up = voucher_code.grouped(voucher_code.from_number(12345))
    said = _buy(demo_hall, made_up)
    assert not said.ok and said.get("keep") is None  # to the result screen
    assert said.headline == "Sorry, that voucher did not pay"
    assert said.detail == "This kiosk does not know that voucher. Please ask at the booth."
    _plain(said)


def test_a_voucher_of_another_hall(demo_hall: Path, tmp_path: Path) -> None:
    elsewhere = make_training_hall(tmp_path / "elsewhere")
    with Station(elsewhere, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        issued = vouchers.issue_voucher(st, "5.00", reason="cash", operator="S1")
        qr = receipts.receipt(st, st.id, issued.voucher).qr
    assert qr is not None
    said = _buy(demo_hall, qr)
    assert said.detail == "That is not a voucher from this hall. Please ask at the booth."
    _plain(said)
    typed = _buy(demo_hall, issued.code)  # its code typed: no voucher here has it
    assert typed.detail == "This kiosk does not know that voucher. Please ask at the booth."


def test_codes_to_correct_keep_the_player_on_the_screen(demo_hall: Path, spanish: None) -> None:
    with Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as st:
        sale_qr = receipts.receipt(st, st.id, 1).qr
    assert sale_qr is not None
    code = voucher_code.from_number(999)
    typo = code[:-1] + next(c for c in "AC" if c != code[-1])
    expected = {
        typo: "Ese código tiene un error: revíselo e inténtelo de nuevo",
        "B1.garbled": "No se pudo leer ese vale: escanéelo de nuevo, o escriba su código",
        sale_qr: "Eso es un recibo, no un vale: escanee el vale",
    }
    for text, words in expected.items():
        said = _buy(demo_hall, text)
        assert not said.ok and said.get("keep") is True, (text, said)
        assert said.headline == words
        _plain(said)


def test_a_kiosk_voucher_typed_at_the_booth_after_sync(demo_hall: Path) -> None:
    clock = FixedClock(NOW)
    paper = FakePrinter("kiosk-1")
    with Station(demo_hall / "kiosk-1", clock=clock) as kiosk:
        with kiosk.ledger.transaction():
            vouchers.issue_credit_voucher(kiosk, 300, reason="voucher change")
        receipts.print_pending(kiosk, EscPosReceiptPrinter(paper))
    [(code, _)] = read_vouchers([job.data for job in paper.jobs])
    with Station(demo_hall / "booth-1", clock=clock) as st:
        before = booth.winner_scan(st, code, "S200")  # not synced yet: not paid
        assert not before.ok and before.headline == "DO NOT PAY"
        assert "No voucher of this hall on file here" in before.detail
        with Station(demo_hall / "kiosk-1", clock=clock) as kiosk:
            pull(kiosk.ledger, st.ledger)
        paid = booth.winner_scan(st, code.lower().replace("-", " "), "S200")
        assert paid.ok and paid.headline == "PAY $3.00", paid.detail
        again = booth.winner_scan(st, code, "S200")
        assert not again.ok and again.headline == "DO NOT PAY"
    # and at the kiosk, once synced, it reads as used
    with (
        Station(demo_hall / "booth-1", clock=clock) as st,
        Station(demo_hall / "kiosk-1", clock=clock) as kiosk,
    ):
        pull(st.ledger, kiosk.ledger)
    used = _buy(demo_hall, code)
    assert used.detail == "That voucher was already used. Please ask at the booth."
    assert used.refusal is not None and used.refusal.rule == "PAID"


def test_a_code_entered_is_looked_up_before_tickets_are_chosen(demo_hall: Path) -> None:
    with Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as st:
        issued = vouchers.issue_voucher(st, "7.25", reason="cash", operator="S200")
        with Station(demo_hall / "kiosk-1", clock=FixedClock(NOW)) as kiosk:
            pull(st.ledger, kiosk.ledger)
    assert vm_kiosk.voucher_complete(issued.code) and vm_kiosk.voucher_complete("B1.x")
    assert not vm_kiosk.voucher_complete(issued.code[:-1])
    with Station(demo_hall / "kiosk-1", clock=FixedClock(NOW)) as st:
        read = vm_kiosk.voucher_read(st, issued.code.lower())
        assert read.ok and read.headline == "Voucher for $7.25 read: now choose your tickets"
        unknown = vm_kiosk.voucher_read(st, voucher_code.from_number(5))
        assert not unknown.ok
        assert unknown.headline == "This kiosk does not know that voucher. Please ask at the booth."
