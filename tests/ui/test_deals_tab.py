"""The Deals tab shows the deals first: no Close button on every row. A deal is tapped to choose
it; its one action shows under the list, and Close (a secondary, grey button) asks for a second
tap before it closes the deal for good."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kivy.uix.button import Button

from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _closes(ui: Driver) -> list[str]:
    return [i for i in ui.idents() if i.startswith("close-")]


def _closed(ui: Driver, serial: str) -> bool:
    row = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT count(*) FROM events WHERE type = 'DealClosed' AND body LIKE ?",
            (f'%"{serial}"%',),
        ).fetchone()
    )
    return bool(row[0])


def test_the_deals_tab_shows_the_deals_and_closes_one_chosen_on_a_second_tap(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "manager")
    ui.scan("M100")
    ui.tap("tab-deals")
    deals = [i for i in ui.idents() if i.startswith("deal-") and i[5:6].isalnum()]
    assert {"deal-A100001", "deal-A100002", "deal-S200001"} <= set(deals), deals
    assert _closes(ui) == []  # no Close button until a deal is chosen
    buttons = [w for w in ui.visible() if isinstance(w, Button) and "Close" in w.text]
    assert buttons == []
    assert "Tap a deal to put it in a bin or close it" in ui.text()
    ui.shot("manager-deals-list")
    # a deal in play chosen: one Close, grey, for that deal only
    ui.tap("deal-A100002")
    assert _closes(ui) == ["close-A100002"]
    close = ui.find("close-A100002")
    assert close.text.startswith("Close A100002 (")
    ui.tap("close-A100002")
    assert ui.find("close-A100002").text == "Tap again to close A100002"
    assert "Closing is for good" in ui.find("deal-headline").text
    ui.shot("manager-deals-close-asked", both=False)
    ui.tap("deal-A100001")  # another deal: the first tap is taken back
    assert _closes(ui) == ["close-A100001"]
    assert ui.find("close-A100001").text.startswith("Close A100001 (")
    ui.tap("deal-A100002")
    ui.tap("close-A100002")
    ui.tap("deal-headline")  # a touch elsewhere takes it back too
    assert ui.find("close-A100002").text.startswith("Close A100002 (")
    assert not _closed(ui, "A100002")
    assert ui.find("deal-headline").text == "Not closed"
    # closed on the second tap, with the note of the efforts made to sell what is left
    ui.type("note-A100002", "offered all evening; a new deal replaces it")
    ui.tap("close-A100002")
    ui.tap("close-A100002")
    assert ui.find("deal-headline").text == "CLOSED A100002"
    assert _closed(ui, "A100002")
    assert _closes(ui) == []
    assert "receive" in ui.idents()  # closed for good: Receive is back under the list
    ui.shot("manager-deals-closed")
    # Done lets a chosen deal go
    ui.tap("deal-A100001")
    ui.tap("deal-done")
    assert "receive" in ui.idents() and "close-A100001" not in ui.idents()
