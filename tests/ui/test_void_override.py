"""A seller asks a manager to approve a sale's void at the booth, by touches and scans: the
seller alone is refused; the manager's badge (and PIN, when the house asks) approves, and the
void is recorded with both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pos.services import signon
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.conftest import SELLER_PIN
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _pad(ui: Driver, digits: str) -> None:
    for key in digits:
        ui.tap(f"key-{key}")


def _voids(ui: Driver) -> list[tuple[int, str, str | None]]:
    return list(
        ui.runtime.worker_call(
            lambda st: [
                (e.body["sale_receipt"], e.body["by"], e.body.get("asked_by"))
                for e in st.ledger.events()
                if e.kind == "SaleVoided"
            ]
        )
    )


def _choose_sale(ui: Driver) -> None:
    ui.tap("tab-void")
    ui.type("void-receipt", "1")
    ui.tap("void-why-rung-in-error")


def test_a_seller_asks_a_manager_who_scans_their_badge(demo_hall: Path, open_front: Any) -> None:
    ui: Driver = open_front(demo_hall / "booth-1")
    _pad(ui, SELLER_PIN)
    ui.tap("login")
    _choose_sale(ui)
    ui.tap("void-sale")  # the seller alone: still refused
    assert "is not a manager" in ui.find("void-detail").text
    ui.tap("void-ask")
    assert ui.find("void-headline").text == "Ask a manager"
    assert "void-manager-pin" not in ui.idents()  # the house signs on by badge: no PIN
    ui.shot("booth-void-ask")
    ui.scan("S200")  # the seller's own badge does not approve
    assert ui.find("void-manager").text == "S200"
    assert ui.find("void-code").text == ""  # the scan went to the manager's badge
    ui.tap("void-approve")
    assert ui.find("void-headline").text == "Void not approved"
    assert "is not a manager" in ui.find("void-detail").text
    assert _voids(ui) == []
    ui.scan("M100")
    ui.tap("void-approve")
    assert ui.find("void-headline").text == "SALE VOIDED"
    detail = ui.find("void-detail").text
    assert "Approved by Alex Manager (M100), asked by Sam Seller (S200)" in detail
    assert _voids(ui) == [(1, "M100", "S200")]
    assert "void-ask" in ui.idents() and "void-manager" not in ui.idents()
    ui.shot("booth-void-approved", both=False)


def test_where_the_house_asks_a_pin_the_manager_enters_theirs(
    demo_hall: Path, open_front: Any
) -> None:
    with Station(demo_hall / "manager") as st:
        signon.set_pin(st, "S200", "4826", operator="M100")
        signon.set_pin(st, "M100", "9135", operator="M100")
        signon.set_house_setting(st, "sign-on", "badge-and-pin", operator="M100")
    with Station(demo_hall / "manager") as source, Station(demo_hall / "booth-1") as target:
        pull(source.ledger, target.ledger)
    ui: Driver = open_front(demo_hall / "booth-1")
    ui.scan("S200")
    _pad(ui, "4826")
    ui.tap("login")
    _choose_sale(ui)
    ui.tap("void-ask")
    assert "enters their PIN" in ui.find("void-detail").text
    ui.shot("booth-void-ask-pin")
    ui.scan("M100")
    ui.tap("void-approve")  # no PIN: refused, nothing recorded
    assert "PIN" in ui.find("void-detail").text
    ui.type("void-manager-pin", "1111")
    ui.tap("void-approve")
    assert ui.find("void-detail").text == "That PIN is not right."
    assert _voids(ui) == []
    ui.type("void-manager-pin", "9135")
    ui.tap("void-approve")
    assert ui.find("void-headline").text == "SALE VOIDED"
    assert _voids(ui) == [(1, "M100", "S200")]
