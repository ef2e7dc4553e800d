"""Plain words at the booth and the manager, by touches and scans (issue 20): the change due
after a cash sale, largest on the screen, never clipped, readable; a typo reads amber and keeps
the code, DO NOT PAY only for a ticket that must not be paid; scans routed by what they are;
the hall link in words on the status bar; "not synced yet" in amber on the dashboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kivy.uix.label import Label

from kiosk.ui.theme import rgba
from kiosk.ui.widgets import readable
from kiosk.viewmodels import common
from pos.ledger import replication
from tests.ui.conftest import NOW
from tests.ui.driver import Driver
from tests.ui.test_booth import log_in

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _fits(label: Label) -> None:
    """The rendered texture fits inside the label's box: nothing clipped."""
    label.texture_update()
    width, height = label.texture_size
    assert width <= label.width and height <= label.height, (
        label.text,
        label.texture_size,
        label.size,
    )


def _largest_text(ui: Driver) -> Label:
    labels = [w for w in ui.visible() if isinstance(w, Label) and w.text and w.opacity]
    return max(labels, key=lambda w: w.font_size)


@pytest.mark.parametrize(
    ("qty", "note", "change"), [("5", "cash-500", "$2.50"), ("1", "cash-5000", "$49.50")]
)
def test_change_due_is_the_biggest_thing_never_clipped(
    demo_hall: Path, open_front: Any, qty: str, note: str, change: str
) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("bin-A100002")
    ui.tap(f"key-{qty}")
    ui.tap(note)
    ui.tap("sell")
    assert "SOLD" in ui.find("sale-headline").text
    due = ui.find("change-due")
    assert due.text == change
    assert ui.find("change-title").text == "CHANGE DUE"
    for size in ("800x480", "1920x1080"):
        ui.shot(f"booth-change-due-{qty}", both=size == "1920x1080")
        due = ui.find("change-due")
        _fits(due)
        assert _largest_text(ui) is due
    # the contrast of the change against its panel, from the theme's colours
    assert common.contrast(common.CHANGE_FG, common.PANEL) >= 4.5
    assert tuple(due.color) == rgba(common.CHANGE_FG)
    ui.tap("next-sale")
    assert "change-due" not in ui.idents() and "sell" in ui.idents()


def test_every_outcome_colour_reads_at_4_5_to_1() -> None:
    for background in (common.OK, common.ERROR, common.INFO, common.PANEL, common.OFF):
        assert common.contrast(common.TEXT, background) >= 4.5, background
    assert common.contrast("#111111", common.WARN) >= 4.5
    for level in (common.OK, common.WARN, common.ERROR, common.OFF, common.INFO):
        assert common.contrast(readable(level), "#000000") >= 4.5, level  # the status bar


def test_a_typo_is_amber_and_kept_a_refusal_is_red(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("tab-winners")
    ui.type("code", "A100001/00x2/500")
    ui.tap("pay")
    assert ui.find("winner-headline").text == "Check the code and try again"
    assert ui.find("code").text == "A100001/00x2/500"  # kept for correction
    assert "DO NOT PAY" not in ui.text()
    ui.shot("booth-winner-check-code")
    ui.type("code", "Z100001/0042/500")  # a serial mistyped: no such deal here
    ui.tap("pay")
    assert ui.find("winner-headline").text == "Check the code and try again"
    assert ui.find("code").text == "Z100001/0042/500"
    ui.type("code", "A100001/9999/500")  # outside the deal: a probable counterfeit
    ui.tap("pay")
    assert ui.find("winner-headline").text == "DO NOT PAY"
    assert "Rule C1" in ui.find("winner-rule").text
    assert ui.find("code").text == ""
    ui.scan("C-1001")  # a player card at Winners
    assert ui.find("winner-headline").text == "That is a player card"
    ui.shot("booth-winner-player-card", both=False)


def test_a_ticket_scanned_at_sell_goes_to_winners_and_asks(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.scan("A100001/0042/500")
    assert ui.screen == "winners"
    assert ui.find("winner-headline").text == "Pay this winner?"
    assert ui.find("code").text == "A100001/0042/500"
    ui.shot("booth-pay-this-winner")
    ui.tap("pay")
    assert ui.find("winner-headline").text == "PAY $5.00"
    ui.tap("tab-sell")
    ui.scan("~~garbled~~")
    assert ui.find("sale-headline").text == "Check the code and try again"
    ui.scan("C-1001")  # a player card at Sell: the buyer
    assert ui.find("buyer").text == "C-1001"


def test_the_hall_link_in_words_on_the_status_bar(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    link = ui.find("status-link")
    assert link.text == "Hall link: not synced yet"
    assert tuple(link.color) == rgba(readable(common.WARN))
    ui.shot("booth-status-not-synced", both=False)

    def heard(minutes_ago: float) -> None:
        def write(st: Any) -> None:
            with st.ledger.transaction():
                replication.record_contact(
                    st.ledger.conn,
                    "https://manager.local:8701",
                    now=(
                        NOW.replace(microsecond=0)
                        - __import__("datetime").timedelta(minutes=minutes_ago)
                    ).isoformat(),
                    station="manager",
                    error=None,
                    pulled=0,
                    source="static",
                )

        ui.runtime.worker_call(write)
        ui.runtime.poll_link().result(5)
        ui.settle()

    heard(0.5)
    assert ui.find("status-link").text == "Hall link: OK"
    assert tuple(ui.find("status-link").color) == rgba(readable(common.OK))
    heard(25)
    assert ui.find("status-link").text == "OFFLINE since 18:40"
    assert tuple(ui.find("status-link").color) == rgba(readable(common.ERROR))
    ui.shot("booth-status-offline")


def test_the_dashboard_says_not_synced_yet_in_amber(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "manager")
    ui.scan("M100")
    assert ui.screen == "dashboard"
    rows = [w for w in ui.visible() if isinstance(w, Label) and "not synced yet" in w.text]
    assert rows, ui.text()
    for row in rows:
        assert tuple(row.color) == rgba(readable(common.WARN))
    ui.shot("manager-dashboard-not-synced")
