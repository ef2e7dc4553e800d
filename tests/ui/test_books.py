"""Blind counting on the booth's close and the manager's Books tab, driven by touches: the
expected figure is not on the screen before the count is recorded; a count by one person is
"not verified" (and the day report says so) until a second badge counts it again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pos.services import books_cash, exceptions, reports, sessions
from tests.ui.test_booth import log_in

pytestmark = [pytest.mark.slow, pytest.mark.rule("COUNT2")]  # Kivy renders every screen


def _expected(ui: Any, station: str) -> str:
    cents = ui.runtime.worker_call(
        lambda st: books_cash.expected(st, books_cash.session_now(st) or "", station)
    )
    return f"{cents / 100:.2f}"


def _statuses(ui: Any) -> list[tuple[str, str]]:
    return [
        (c["station"], c["status"])
        for c in ui.runtime.worker_call(lambda st: reports.day_report(st)["counts"])
    ]


def test_booth_counts_blind_then_a_second_person_verifies(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "booth-1")
    log_in(ui)
    ui.tap("tab-close")
    expected = _expected(ui, "booth-1")
    assert float(expected) != 0
    before = ui.text()
    assert f"${expected}" not in before and expected not in before  # blind
    ui.shot("booth-count-blind")
    counted = f"{float(expected) - 2:.2f}"
    ui.type("count-amount", counted)
    ui.tap("count")
    assert ui.find("close-headline").text == f"COUNTED ${counted} · NOT VERIFIED"
    detail = ui.find("close-detail").text
    assert f"expected ${expected}, short $2.00" in detail and "a second badge" in detail
    ui.shot("booth-count-recorded")
    assert _statuses(ui) == [("booth-1", "not verified")]
    # the same badge cannot verify its own count
    ui.type("verify-badge", "S200")
    ui.type("verify-amount", counted)
    ui.tap("verify")
    assert ui.find("close-headline").text == "Not verified"
    assert ui.find("close-rule").text.startswith("Rule COUNT2")
    assert _statuses(ui) == [("booth-1", "not verified")]
    # a second person, another badge (scanned), counts the same figure
    ui.scan("M100")
    assert ui.find("verify-badge").text == "M100"
    ui.type("verify-amount", counted)
    ui.tap("verify")
    assert ui.find("close-headline").text == f"RECOUNTED ${counted} · VERIFIED"
    assert "verified by M100" in ui.find("close-detail").text
    assert _statuses(ui) == [("booth-1", "verified")]
    ui.shot("booth-count-verified", both=False)


def test_manager_books_tab(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "manager")
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-books")
    assert ui.screen == "books"
    expected = _expected(ui, books_cash.SESSION_CASH)
    shown = ui.text()
    assert "No count recorded yet." in shown and f"${expected}" not in shown
    assert "Form 102 (2026 Q3) due 2026-12-01" in shown  # what the state wants next
    assert ui.find("due-next").text == "Due next: Form 102 (2026 Q3) due 2026-12-01"
    ui.shot("manager-books")
    # the whole session's cash (no station named), counted blind
    ui.type("count-amount", expected)
    ui.tap("count")
    assert ui.find("books-headline").text == f"COUNTED ${expected} · NOT VERIFIED"
    assert f"expected ${expected}, exact" in ui.find("books-detail").text
    shown = ui.text()
    # the list shows who counted, never the figure, until a second person verifies
    assert "The session's cash: NOT VERIFIED" in shown and "counted by M100" in shown
    assert _statuses(ui) == [("*", "not verified")]
    ui.shot("manager-books-counted")
    ui.scan("S200")  # the second person's badge, scanned
    assert ui.find("verify-badge").text == "S200"
    ui.type("verify-amount", expected)
    ui.tap("verify")
    assert ui.find("books-headline").text == f"RECOUNTED ${expected} · VERIFIED"
    shown = ui.text()
    assert "The session's cash: verified" in shown and "verified by S200" in shown
    assert _statuses(ui) == [("*", "verified")]
    ui.shot("manager-books-verified")
    # the session closes; its receipts are due at the bank by the second business day after
    # Saturday 28 November: Monday 30 November, then Tuesday 1 December
    ui.runtime.worker_call(
        lambda st: sessions.close_session(
            st, operator="M100", without={"booth-1": "training", "kiosk-1": "training"}
        )
    )
    ui.tap("tab-dashboard")
    ui.tap("tab-books")
    assert ui.find("due-next").text == "Deposit due by 2026-12-01: session 2026-11-28/1"
    ui.type("deposit-bag", "B-7")
    ui.type("deposit-by", "S200")
    ui.type("deposit-cash", f"{float(expected) - 5:.2f}")
    ui.tap("deposit")
    assert ui.find("books-headline").text == "BAG B-7 DEPOSITED"
    assert "SHORT by $5.00" in ui.find("books-detail").text
    ui.shot("manager-books-deposit-short")
    kinds = ui.runtime.worker_call(lambda st: [e["kind"] for e in exceptions.review_list(st)])
    assert "deposit-short" in kinds
    assert ui.find("due-next").text == "Due next: Form 102 (2026 Q3) due 2026-12-01"
