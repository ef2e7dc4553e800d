"""The manager driven by touches against a real demo hall."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kiosk.ui.widgets import BarChart

pytestmark = pytest.mark.slow  # Kivy renders every screen


def test_manager_day(demo_hall: Path, open_front: Any, tmp_path: Path) -> None:
    ui = open_front(demo_hall / "manager")
    assert ui.screen == "login"
    ui.type("login-entry", "S200", enter=True)
    assert "is not a manager" in ui.text()
    ui.type("login-entry", "M100", enter=True)
    assert ui.screen == "dashboard"
    shown = ui.text()
    for station in ("booth-1 (booth)", "kiosk-1 (kiosk)", "manager (manager)"):
        assert station in shown
    assert "this station" in shown and "events" in shown
    assert "A100001 Lucky 7s: 61 sold" in shown
    assert "gross $61.00 · prizes $5.00 · net $56.00" in shown
    assert ui.find("gross").text.startswith("Gross $")
    chart = ui.find("chart")
    assert isinstance(chart, BarChart) and chart.vm is not None
    assert [bar.label for bar in chart.vm.bars] == ["18h", "19h"]
    assert max(bar.fraction for bar in chart.vm.bars) == 1.0
    ui.shot("manager-dashboard")
    # exceptions to decide
    ui.tap("tab-exceptions")
    shown = ui.text()
    assert "Second try refused: ticket already paid · A100001/0007" in shown
    assert "2 exceptions to decide" in shown
    assert "Kiosk dispenser jam: staff called" in shown  # the demo kiosk's jam called staff
    ui.shot("manager-exceptions")
    accept = next(i for i in ui.idents() if i.startswith("accept-booth-1-"))
    ui.tap(accept)  # the first tap asks: it decides for every station
    ui.tap(accept)  # no note: refused, still open
    assert ui.find("exception-headline").text == "Cannot decide"
    assert "2 exceptions to decide" in ui.text()
    ui.type(accept.replace("accept-", "note-"), "same player scanned twice; paid once")
    ui.tap(accept)
    ui.tap(accept)
    assert ui.find("exception-headline").text == "ACCEPTED"
    assert "same player scanned twice; paid once" in ui.find("exception-detail").text
    shown = ui.text()
    assert "1 exception to decide" in shown and "Kiosk dispenser jam" in shown
    assert not any(i.startswith("note-booth-1-") for i in ui.idents())
    assert not any(i.startswith("accept-booth-1-") for i in ui.idents())
    ui.shot("manager-exception-decided", both=False)
    decided = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT decision, note, resolved_by FROM p_flags WHERE kind = 'double-payment'"
        ).fetchall()
    )
    assert decided == [("accepted", "same player scanned twice; paid once", "M100")]
    # deals: receive one from its flare, put it in a bin, close it
    flare = tmp_path / "flare.json"
    flare.write_text(
        json.dumps(
            {
                "serial": "A100009",
                "game": "pull-tab",
                "name": "Lucky Stars",
                "form": "LS-1",
                "manufacturer": "Arrow",
                "tickets": 500,
                "price": "0.25",
                "prizes": [{"amount": "20.00", "count": 2}],
                "supplier": {"name": "Bingo Supply Co", "address": "1 Main St"},
                "invoice": "INV-9",
            }
        )
    )
    ui.tap("tab-deals")
    ui.type("flare-path", str(flare))
    ui.tap("receive")
    assert ui.find("deal-headline").text == "RECEIVED A100009"
    assert "A100009 Lucky Stars · received · not in a bin" in ui.text()
    ui.tap("deal-A100009")  # the deal chosen: its action shows under the list
    ui.type("bin-A100009", "drawer-9")
    ui.tap("open-A100009")
    assert ui.find("deal-headline").text == "IN PLAY A100009"
    ui.shot("manager-deals")
    ui.tap("close-A100009")
    assert ui.find("close-A100009").text == "Tap again to close A100009"
    ui.tap("close-A100009")  # unfinished, with no note of the efforts made: refused (C4)
    assert ui.find("deal-headline").text == "Cannot close the deal"
    assert "note" in ui.find("deal-detail").text
    ui.type("note-A100009", "offered at tonight's session; a new deal replaces it")
    ui.tap("close-A100009")
    ui.tap("close-A100009")
    assert ui.find("deal-headline").text == "CLOSED A100009"
    assert "keep until" in ui.find("deal-detail").text
    # roster
    ui.tap("tab-roster")
    assert "Roster for 2026-11-28" in ui.text()
    assert "17:30-22:00  Sam Seller (S200)" in ui.text()
    ui.shot("manager-roster")
    # session
    ui.tap("tab-session")
    assert ui.find("session-state").text == "Session 2026-11-28 #1"
    assert ui.find("session-open").disabled
    assert ui.find("session-close").disabled  # booth-1 and kiosk-1 have not closed
    assert "Waiting for the close of booth-1, kiosk-1" in ui.find("session-hint").text
    ui.shot("manager-session")
    ui.tap("session-without")
    assert "say why" in ui.find("session-detail").text
    ui.type("session-reason", "training day ends early")
    ui.tap("session-without")
    assert ui.find("session-headline").text == "SESSION 2026-11-28/1 CLOSED"
    assert "Without booth-1, kiosk-1" in ui.find("session-detail").text
    assert ui.find("session-state").text.startswith("No session open")
    ui.tap("session-open")
    assert ui.find("session-headline").text == "SESSION 2026-11-28/2 OPEN"
    ui.tap("logout")
    assert ui.screen == "login"


def test_the_stations_tab_shows_a_station_on_a_release_before_0_2_0(
    demo_hall: Path, open_front: Any
) -> None:
    """booth-1 answered a sync and said no release (0.1.0 never does); kiosk-1 was never
    synced with: each reads as what it is (issue #27)."""
    from pos.clock import FixedClock
    from pos.services.station import Station
    from sync.replicator import record_contact
    from tests.ui.conftest import NOW

    with Station(demo_hall / "manager", clock=FixedClock(NOW)) as st, st.ledger.transaction():
        record_contact(
            st.ledger, "https://10.0.0.1:8701", station="booth-1", error=None, pulled=0,
            source="static", clock=st.clock, release=None,
        )  # fmt: skip
    ui = open_front(demo_hall / "manager")
    ui.type("login-entry", "M100", enter=True)
    assert ui.screen == "dashboard"
    shown = ui.text()
    assert (
        "booth-1 (booth) · Booth 0.1.0 or older (it does not say its version): upgrade it"
    ) in shown, shown
    assert "kiosk-1 (kiosk) · Booth ? (not synced with it yet)" in shown
    assert "Booth ?\n" not in shown
    ui.shot("manager-stations-older-release")
