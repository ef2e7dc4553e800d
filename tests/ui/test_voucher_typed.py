"""A voucher whose QR will not scan: its short code, printed under the QR, typed by touches on
the on-screen keyboard. At the kiosk a player pays with it (read here from the printed bytes,
as the player reads the paper); a second try says it was used, a typo says typo and keeps the
player on the screen to correct it. The booth takes a typed code at Winners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import zxingcpp

from hardware.printer.adapter import EscPosReceiptPrinter
from hardware.printer.escpos_image import interpret
from hardware.printer.fake import FakePrinter
from hardware.printer.profiles import get_profile
from pos.clock import FixedClock
from pos.domain import qr_payload
from pos.services import receipts, vouchers
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.conftest import NOW
from tests.ui.driver import Driver
from tests.ui.test_booth import log_in

pytestmark = pytest.mark.slow  # Kivy renders every screen

LABEL = "Will not scan? Type this code:"


def read_vouchers(jobs: list[bytes]) -> list[tuple[str, str]]:
    """(short code, QR text) of each voucher among printed jobs, read back from the ESC/POS
    bytes: the code is the line under the label, which comes after the QR code."""
    found = []
    profile = get_profile(None)
    for data in jobs:
        printout = interpret(data, profile)
        lines = [line.strip() for line in printout.lines]
        if LABEL not in lines:
            continue
        assert lines[-2] == LABEL  # the last two lines, under the QR code
        qrs = [hit.text for hit in zxingcpp.read_barcodes(printout.image.convert("L"))]
        assert len(qrs) == 1
        found.append((lines[-1], qrs[0]))
    return found


def jobs_since(ui: Driver, before: int) -> list[bytes]:
    return [job.data for job in ui.fake_printer.jobs[before:]]


def booth_voucher(hall: Path, amount: str) -> tuple[str, str]:
    """A voucher issued at the booth and printed there, synced to the kiosk: (code, QR) as
    read from the paper."""
    paper = FakePrinter("booth-1")
    with Station(hall / "booth-1", clock=FixedClock(NOW)) as booth:
        vouchers.issue_voucher(booth, amount, reason="cash", operator="S200")
        receipts.print_pending(booth, EscPosReceiptPrinter(paper))
        with Station(hall / "kiosk-1", clock=FixedClock(NOW)) as kiosk:
            pull(booth.ledger, kiosk.ledger)
    [printed] = read_vouchers([job.data for job in paper.jobs])
    return printed


def type_on_keyboard(ui: Driver, field: str, text: str) -> None:
    """Touch the field (the on-screen keyboard comes up), then touch each key; `abc` for lower
    case, as a player who leaves it on lower case would."""
    ui.tap(field)
    assert "osk" in ui.idents(), "the on-screen keyboard did not come up"
    lower = False
    for char in text:
        if char.isalpha() and char.islower() != lower:
            ui.tap("osk-case")
            lower = not lower
        ui.tap(f"osk-{char.upper()}")


def test_a_player_pays_with_a_typed_code(demo_hall: Path, open_front: Any) -> None:
    code, qr = booth_voucher(demo_hall, "5.00")
    # the code under the QR is the same voucher's: the QR says voucher, the code pays it
    payload, _, _ = qr_payload.decode(qr)
    assert payload.kind == "voucher" and payload.amount == 500
    assert len(code) == 15 and code.count("-") == 2

    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("go-kiosk-voucher")
    assert ui.find("voucher-prompt").text == (
        "Scan your voucher's QR code, or type the code printed under it"
    )
    typed = code.replace("-", "")
    type_on_keyboard(ui, "voucher-code", typed[:5].lower() + typed[5:])  # no dashes, some lower
    assert ui.find("voucher-prompt").text == "Voucher read: now choose your tickets"
    ui.shot("kiosk-voucher-typed")
    ui.tap("osk-done")  # looked up at once: what it is worth
    assert "osk" not in ui.idents()
    assert ui.find("voucher-prompt").text == "Voucher for $5.00 read: now choose your tickets"
    before = len(ui.fake_printer.jobs)
    ui.tap("voucher-buy-A100003-2")
    assert ui.screen == "result"
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    detail = ui.find("result-detail").text
    assert "Your voucher for $5.00 paid $2.00" in detail
    assert "Your change: voucher #" in detail and "for $3.00 prints with it." in detail
    # the change prints as a new voucher, its own code under its own QR
    [(change_code, change_qr)] = read_vouchers(jobs_since(ui, before))
    change, _, _ = qr_payload.decode(change_qr)
    assert change.kind == "voucher" and change.amount == 300 and change_code != code
    ui.shot("kiosk-voucher-typed-paid", both=False)

    # the same code again, with its dashes this time: used
    ui.tap("more")
    ui.tap("go-kiosk-voucher")
    type_on_keyboard(ui, "voucher-code", code)
    ui.tap("osk-done")  # said before any ticket is chosen
    assert ui.find("voucher-prompt").text == (
        "That voucher was already used. Please ask at the booth."
    )
    ui.shot("kiosk-voucher-typed-used-at-once", both=False)
    ui.tap("voucher-buy-A100003-1")
    assert ui.screen == "result"
    assert ui.find("result-headline").text == "Sorry, that voucher did not pay"
    assert ui.find("result-detail").text == (
        "That voucher was already used. Please ask at the booth."
    )
    assert "result-rule" not in ui.idents()
    said = ui.find("result-headline").text + " " + ui.find("result-detail").text
    assert "kiosk-1" not in said and "booth-1" not in said and "rule" not in said.lower()
    ui.shot("kiosk-voucher-typed-used")
    ui.tap("result-done")

    # the change voucher's code with two neighbours swapped: a typo, said at once, and the
    # player stays to correct it; nothing is sold
    ui.scan("C-1001")
    ui.tap("go-kiosk-voucher")
    plain = change_code.replace("-", "")
    at = next(i for i in range(len(plain) - 1) if plain[i] != plain[i + 1])
    swapped = plain[:at] + plain[at + 1] + plain[at] + plain[at + 2 :]
    type_on_keyboard(ui, "voucher-code", swapped)
    assert ui.find("voucher-prompt").text == "That code has a typo: check it and try again"
    ui.tap("osk-done")
    before = len(ui.fake_printer.jobs)
    ui.tap("voucher-buy-A100003-1")
    assert ui.screen == "kiosk-voucher"
    assert ui.find("voucher-prompt").text == "That code has a typo: check it and try again"
    assert ui.find("voucher-code").text == swapped  # kept, to correct
    assert len(ui.fake_printer.jobs) == before
    ui.shot("kiosk-voucher-typo")
    # corrected with DEL and the right keys, it pays
    ui.tap("voucher-code")
    for _ in range(len(plain) - at):
        ui.tap("osk-del")
    for char in plain[at:]:
        ui.tap(f"osk-{char}")
    assert ui.find("voucher-prompt").text == "Voucher read: now choose your tickets"
    ui.tap("osk-done")
    ui.tap("voucher-buy-A100003-1")
    assert ui.find("result-headline").text == "Take your 1 ticket from the tray"
    assert "Your voucher for $3.00 paid $1.00" in ui.find("result-detail").text


def test_a_player_is_told_in_spanish(demo_hall: Path, open_front: Any) -> None:
    code, _ = booth_voucher(demo_hall, "5.00")
    ui = open_front(demo_hall / "kiosk-1")
    ui.tap("idle-language")
    ui.scan("C-1001")
    ui.tap("go-kiosk-voucher")
    plain = code.replace("-", "")
    type_on_keyboard(ui, "voucher-code", plain[:-1])
    assert ui.find("voucher-prompt").text == "Código: 12 de 13 letras y números escritos"
    ui.tap(f"osk-{next(c for c in 'AC' if c != plain[-1])}")
    assert ui.find("voucher-prompt").text == (
        "Ese código tiene un error: revíselo e inténtelo de nuevo"
    )
    ui.shot("kiosk-voucher-typo-es")


def test_the_booth_pays_a_typed_code(demo_hall: Path, open_front: Any) -> None:
    code, _ = booth_voucher(demo_hall, "4.00")
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("tab-winners")
    assert "Scan a winning ticket or a voucher" in ui.text()
    plain = code.replace("-", "")
    typo = plain[:-1] + next(c for c in "AC" if c != plain[-1])
    type_on_keyboard(ui, "code", typo)
    ui.tap("osk-done")
    assert ui.find("code").text == typo  # amber, kept to correct
    assert "that code has a typo" in ui.text().lower()
    ui.shot("booth-voucher-typo", both=False)
    ui.find("code").text = ""
    type_on_keyboard(ui, "code", code)
    ui.tap("osk-done")
    assert "PAY $4.00" in ui.text()
    ui.shot("booth-voucher-paid")
    type_on_keyboard(ui, "code", code)
    ui.tap("osk-done")
    assert "DO NOT PAY" in ui.text() and "already paid" in ui.text()
