"""The Sync button of the session screens, by touches: the booth's Close tab and the manager's
Session tab pull from the hall's other stations now (on the worker) and say the outcome in
plain words; alone, "No other station found"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pos.ledger import replication
from pos.services import signon
from pos.services.station import Station
from tests.sync.test_twin_station import serving
from tests.ui.conftest import SELLER_PIN
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _booth_at_close(ui: Driver) -> None:
    for key in SELLER_PIN:
        ui.tap(f"key-{key}")
    ui.tap("login")
    ui.tap("tab-close")


def test_alone_the_booth_says_no_other_station_found(demo_hall: Path, open_front: Any) -> None:
    ui: Driver = open_front(demo_hall / "booth-1")
    _booth_at_close(ui)
    ui.tap("sync-now")
    assert ui.find("close-headline").text == "No other station found"
    assert "works alone" in ui.find("close-detail").text
    ui.shot("booth-close-sync-alone")


def test_the_booth_syncs_with_the_manager_and_says_what_came(
    demo_hall: Path, open_front: Any
) -> None:
    with Station(demo_hall / "manager") as st:  # two events booth-1 does not hold yet
        signon.set_pin(st, "S200", "4826", operator="M100")
        signon.set_pin(st, "M100", "9135", operator="M100")
    with serving(demo_hall / "manager") as url:
        with Station(demo_hall / "booth-1") as st, st.ledger.transaction():
            replication.list_peer(st.ledger.conn, url)
            replication.list_peer(st.ledger.conn, "https://127.0.0.1:9")  # nobody there
        ui: Driver = open_front(demo_hall / "booth-1")
        _booth_at_close(ui)
        ui.tap("sync-now")
        assert ui.find("close-headline").text == "SYNCED IN PART"
        detail = ui.find("close-detail").text
        assert "Reached 1 of 2 stations (manager): 2 events brought in." in detail
        assert "Not reached: 127.0.0.1:9. Is it switched on?" in detail
        assert "Errno" not in detail
        ui.shot("booth-close-synced")
        pins = ui.runtime.worker_call(
            lambda st: sorted(
                e.body["badge"] for e in st.ledger.events() if e.kind == "StaffPinSet"
            )
        )
        assert pins == ["M100", "S200"]
        ui.tap("sync-now")  # again: nothing new
        assert "nothing new to bring in" in ui.find("close-detail").text


def test_the_managers_session_tab_syncs(demo_hall: Path, open_front: Any) -> None:
    with Station(demo_hall / "booth-1") as st:
        signon.set_pin(st, "S200", "4826", operator="S200")
    with serving(demo_hall / "booth-1") as url:
        with Station(demo_hall / "manager") as st, st.ledger.transaction():
            replication.list_peer(st.ledger.conn, url)
        ui: Driver = open_front(demo_hall / "manager")
        ui.type("login-entry", "M100", enter=True)
        ui.tap("tab-session")
        ui.tap("sync-now")
        assert ui.find("session-headline").text == "SYNCED"
        detail = ui.find("session-detail").text
        said = r"Reached 1 of 1 station \(booth-1\): (\d+) events brought in\."
        assert re.fullmatch(said, detail) is not None, detail
        pins = ui.runtime.worker_call(
            lambda st: [e.body["badge"] for e in st.ledger.events() if e.kind == "StaffPinSet"]
        )
        assert pins == ["S200"]  # the PIN set at the booth is here now
        ui.shot("manager-session-synced")
