"""A rented bingo device: the renter is told which device and where to collect it (the hall's
"device-pickup" place, the booth unless it posted another); and a worker refused pull-tabs at
the kiosk, who may still rent a device, is offered it: Rent a device now, or Not now."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pos.services import settings
from tests.ui.driver import Driver
from tests.ui.test_bingo_screens import _log_in

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _rentals(ui: Driver) -> int:
    return int(
        ui.runtime.worker_call(
            lambda st: st.ledger.conn.execute(
                "SELECT count(*) FROM events WHERE type = 'DeviceRented'"
            ).fetchone()[0]
        )
    )


def test_the_booth_says_which_device_and_where_to_collect_it(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-devices")
    assert ui.find("collect-at").text == "Rented devices are collected at the booth"
    ui.tap("rent-Starter")
    assert ui.find("device-outcome-headline").text == "DEVICE D-01"
    assert ui.find("device-outcome-shout").text == "Collect D-01 at the booth"
    ui.shot("booth-devices-rented")
    # the hall posts where devices are handed out: the next renter is told that place
    ui.runtime.worker_call(
        lambda st: settings.post_house_rule(
            st, "device-pickup", text="at the device table by the stage", operator="M100"
        )
    )
    ui.tap("tab-bingo")
    ui.tap("tab-devices")
    assert "collected at the device table by the stage" in ui.find("collect-at").text
    ui.tap("rent-Starter")
    assert ui.find("device-outcome-shout").text == "Collect D-02 at the device table by the stage"
    ui.shot("booth-devices-rented-table", both=False)


def test_the_kiosk_says_which_device_and_where_to_collect_it(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    assert ui.screen == "games"
    ui.tap("go-rent")
    assert ui.find("kiosk-collect-at").text == "Pay here, then collect your device at the booth"
    ui.shot("kiosk-rent-collect")
    ui.tap("kiosk-rent-Starter")
    ui.runtime.acceptor.insert(500)
    ui.settle()
    assert ui.find("result-headline").text == "DEVICE D-01"
    assert ui.find("result-shout").text == "Collect D-01 at the booth"
    ui.shot("kiosk-rented-collect")


def test_a_worker_refused_pull_tabs_is_offered_a_device(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    # "Not now": back to the start, nothing rented
    ui.scan("S200")
    assert ui.find("refusal-headline").text == "You are working today"
    assert "You may still rent a bingo device." in ui.find("refusal-message").text
    assert "refusal-ok" not in ui.idents()
    assert ui.find("refusal-rent").text == "Rent a device now"
    ui.shot("kiosk-refused-worker-rent")
    ui.tap("refusal-not-now")
    assert ui.screen == "idle"
    assert _rentals(ui) == 0
    # "Rent a device now": the rental screen for this person, paid, the device told
    ui.scan("S200")
    ui.tap("refusal-rent")
    assert ui.screen == "rent"
    ui.tap("kiosk-rent-Starter")
    assert ui.screen == "pay"
    ui.runtime.acceptor.insert(500)
    ui.settle()
    assert ui.find("result-headline").text == "DEVICE D-01"
    assert ui.find("result-shout").text == "Collect D-01 at the booth"
    assert _rentals(ui) == 1
    # a refusal with nothing left to do keeps its one OK
    ui.tap("result-done")
    ui.scan("C-1003")  # under 18
    assert ui.find("refusal-headline").text == "Sorry, you need to be 18 or older"
    assert "refusal-ok" in ui.idents() and "refusal-rent" not in ui.idents()
