"""Setting a PIN by touches: a manager sets or resets a worker's from the Roster tab; a worker
changes their own from the sign-on screen, the current PIN first; digits on the pad, the new
PIN twice."""

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


def _pins_set(ui: Driver) -> list[tuple[str, str]]:
    return list(
        ui.runtime.worker_call(
            lambda st: [
                (e.body["badge"], e.body["by"])
                for e in st.ledger.events()
                if e.kind == "StaffPinSet"
            ]
        )
    )


def test_a_manager_sets_a_workers_pin_from_the_roster(demo_hall: Path, open_front: Any) -> None:
    ui: Driver = open_front(demo_hall / "manager")
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-roster")
    ui.shot("manager-roster-pins")
    ui.tap("pin-S200")
    assert ui.screen == "pin"
    assert ui.find("pin-title").text == "Set a PIN for Sam Seller (S200)"
    assert "new PIN" in ui.find("pin-prompt").text
    ui.shot("manager-pin-new")
    _pad(ui, "48")
    ui.tap("pin-next")  # too short: said, and asked again
    assert "4 to 8 digits" in ui.find("pin-outcome-detail").text
    _pad(ui, "4826")
    ui.tap("pin-next")
    assert ui.find("pin-next").text == "Save"
    _pad(ui, "4862")
    ui.tap("pin-next")  # not the same: the new PIN again, nothing recorded
    assert "not the same" in ui.find("pin-outcome-detail").text
    assert _pins_set(ui) == []
    _pad(ui, "4826")
    ui.tap("pin-next")
    _pad(ui, "4826")
    assert ui.find("pin-entry").password  # shown as dots
    ui.tap("pin-next")
    assert "4826" not in ui.text()
    assert ui.find("pin-outcome-headline").text == "PIN SET"
    assert "Sam Seller (S200)" in ui.find("pin-outcome-detail").text
    ui.shot("manager-pin-set", both=False)
    assert _pins_set(ui) == [("S200", "M100")]
    ui.tap("pin-back")
    assert ui.screen == "roster"
    # the PIN works where the house signs on with badge and PIN, at another station
    ui.close()
    with Station(demo_hall / "manager") as st:
        signon.set_house_setting(st, "sign-on", "badge-and-pin", operator="M100")
    with Station(demo_hall / "manager") as source, Station(demo_hall / "booth-1") as target:
        pull(source.ledger, target.ledger)
    booth: Driver = open_front(demo_hall / "booth-1")
    booth.scan("S200")
    _pad(booth, "4826")
    booth.tap("login")
    assert booth.screen == "sell"


def test_a_worker_changes_their_own_pin_current_one_first(demo_hall: Path, open_front: Any) -> None:
    ui: Driver = open_front(demo_hall / "booth-1")
    ui.tap("change-pin")
    assert ui.screen == "pin" and ui.find("pin-title").text == "Change my PIN"
    ui.shot("booth-pin-badge")
    ui.scan("S200")
    assert "enter your current PIN" in ui.find("pin-prompt").text
    _pad(ui, "1111")  # not the current one: refused at the end, nothing changed
    ui.tap("pin-next")
    _pad(ui, "1357")
    ui.tap("pin-next")
    _pad(ui, "1357")
    ui.tap("pin-next")
    assert ui.find("pin-outcome-headline").text == "PIN not changed"
    assert "not your current PIN" in ui.find("pin-outcome-detail").text
    assert _pins_set(ui) == []
    ui.shot("booth-pin-refused", both=False)
    _pad(ui, SELLER_PIN)  # back at the current PIN
    ui.tap("pin-next")
    _pad(ui, "1357")
    ui.tap("pin-next")
    _pad(ui, "1357")
    ui.tap("pin-next")
    assert ui.find("pin-outcome-headline").text == "PIN CHANGED"
    assert _pins_set(ui) == [("S200", "S200")]
    ui.tap("pin-back")
    assert ui.screen == "login"
    _pad(ui, SELLER_PIN)  # the old PIN no longer signs on at the pad
    ui.tap("login")
    assert ui.screen == "login"
    _pad(ui, "1357")
    ui.tap("login")
    assert ui.screen == "sell"
