"""Issue #26's four faults, by touches on the booth's screens: a bingo prize paid twice, a late
rescan of a paid winner, selling after the booth closed, and a double tap on the Bingo tab.
Each failed on the code before the one money path (pos/services/money_path.py)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.ui.driver import Driver
from tests.ui.test_bingo_screens import _log_in, bingo_night
from tests.ui.test_kiosk_cash import feed

pytestmark = pytest.mark.slow


def _count(ui: Driver, kind: str) -> int:
    return int(
        ui.runtime.worker_call(
            lambda st: st.ledger.conn.execute(
                "SELECT count(*) FROM events WHERE type = ?", (kind,)
            ).fetchone()[0]
        )
    )


def test_a_bingo_prize_is_paid_once_on_the_bingo_tab(demo_hall: Path, open_front: Any) -> None:
    bingo_night(demo_hall)
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-bingo")
    ui.tap("game-1")
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "PAY $100.00"
    ui.tap("game-1")
    ui.tap("pay-prize")
    assert ui.find("bingo-headline").text == "DO NOT PAY"
    detail = ui.find("bingo-detail").text
    assert "already paid, $100.00 at" in detail and "pay nothing" in detail, detail
    assert "Rule PAID" not in ui.text()  # the plain reason on the banner, not the rule cited
    assert _count(ui, "BingoPrizePaid") == 1
    ui.shot("booth-bingo-paid-twice", both=False)


def test_a_double_tap_on_the_bingo_tab_sells_and_pays_once(
    demo_hall: Path, open_front: Any
) -> None:
    bingo_night(demo_hall)
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-bingo")
    card = ui.find("sell-pack-Door")
    card.dispatch("on_release")  # both taps land before the worker answers the first
    card.dispatch("on_release")
    ui.settle()
    assert _count(ui, "PaperSold") == 1
    ui.tap("sell-pack-Door")  # the next tap, after the answer, is a new sale
    assert _count(ui, "PaperSold") == 2
    ui.tap("game-1")
    pay = ui.find("pay-prize")
    pay.dispatch("on_release")
    pay.dispatch("on_release")
    ui.settle()
    assert _count(ui, "BingoPrizePaid") == 1
    assert ui.find("bingo-headline").text in ("PAY $100.00", "Already recorded")


def test_a_late_rescan_reads_already_paid_and_offers_the_punch(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-winners")
    ui.scan("A100001/0042/500")
    assert ui.find("winner-headline").text == "PAY $5.00"
    ui.runtime._clock.at += timedelta(hours=2)  # hours later
    ui.scan("A100001/0042/500")
    assert ui.find("winner-headline").text == "DO NOT PAY"
    detail = ui.find("winner-detail").text
    assert "already paid at 2026-11-28" in detail and "pay nothing" in detail, detail
    assert "tap Punched" in detail
    assert _count(ui, "TicketPunched") == 0  # the rescan recorded no punch in anyone's name
    ui.tap("punched")  # the redeemer punches it now and says so
    assert ui.find("winner-headline").text == "PUNCHED"
    assert _count(ui, "TicketPunched") == 1
    ui.shot("booth-winner-late-rescan", both=False)


def test_a_closed_booth_sells_nothing(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    _log_in(ui)
    ui.tap("tab-close")
    ui.tap("close-station")
    assert ui.find("close-headline").text == "BOOTH CLOSED"
    sold = _count(ui, "TicketsSold")
    ui.tap("tab-sell")
    ui.tap("bin-A100002")
    ui.tap("sell")
    assert ui.find("sale-headline").text == "Sale refused"
    assert "closed for session" in ui.find("sale-detail").text.lower()
    assert _count(ui, "TicketsSold") == sold
    ui.shot("booth-sell-after-close", both=False)
    # a manager reopens it on the record: the badge scanned, a reason typed
    ui.tap("tab-close")
    ui.scan("M100")
    assert ui.find("reopen-manager").text == "M100"
    ui.tap("reopen-station")
    assert ui.find("close-headline").text == "Cannot reopen"  # no reason given
    ui.type("reopen-reason", "a late pack to ring up")
    ui.shot("booth-close-reopen")
    ui.tap("reopen-station")
    assert ui.find("close-headline").text == "BOOTH REOPENED"
    assert "a late pack to ring up" in ui.find("close-detail").text
    ui.tap("tab-sell")
    ui.tap("bin-A100002")
    ui.tap("sell")
    assert ui.find("sale-headline").text.startswith("SOLD")
    assert _count(ui, "TicketsSold") == sold + 1


def test_a_double_tap_on_the_kiosks_pay_buys_once(demo_hall: Path, open_front: Any) -> None:
    """$5.00 of credit and tickets at $2.00: a second tap on Pay before the first answer (the
    credit still covers the price again) buys nothing more."""
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    ui.runtime.acceptor.fail_next("power-cashbox")  # the bill ends up as credit, no sale yet
    feed(ui, 500)
    assert ui.find("pay-credit").text == "Your credit: $5.00"
    sold = _count(ui, "TicketsSold")
    pay = ui.find("pay-go")
    pay.dispatch("on_release")  # both taps land before the worker answers the first
    pay.dispatch("on_release")
    ui.settle()
    assert _count(ui, "TicketsSold") == sold + 1
    credit = ui.runtime.worker_call(
        lambda st: st.ledger.conn.execute(
            "SELECT cents FROM p_kiosk_credit WHERE station = 'kiosk-1'"
        ).fetchall()
    )
    assert credit == [(300,)]
