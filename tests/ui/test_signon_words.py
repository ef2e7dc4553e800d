"""Sign-on refusals in plain words (why, and what to do; no rule code), and "Not you? Start
over" after a badge scan, by touches and scans."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pos.services import signon
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _no_codes(text: str) -> None:
    assert "Rule " not in text and "ROLE" not in text and "Errno" not in text, text
    assert "Booth: operators" not in text, text


def test_refused_at_the_managers_station_says_why_and_what_to_do(
    demo_hall: Path, open_front: Any
) -> None:
    ui: Driver = open_front(demo_hall / "manager")
    ui.scan("S200")  # a seller's badge at the manager's station
    assert ui.screen == "login"
    assert ui.find("login-outcome-headline").text == "Managers only"
    detail = ui.find("login-outcome-detail").text
    assert "Sam Seller (S200) is not a manager" in detail
    assert "Sign on at a booth, or ask a manager to sign on here." in detail
    _no_codes(ui.text())
    ui.shot("manager-login-refused")
    ui.scan("Z999")  # a badge nobody has
    assert ui.find("login-outcome-headline").text == "Badge not known"
    assert "not on this hall's staff list" in ui.find("login-outcome-detail").text
    _no_codes(ui.text())


def _badge_and_pin(hall: Path) -> None:
    with Station(hall / "manager") as st:
        signon.set_pin(st, "S200", "4826", operator="M100")
        signon.set_house_setting(st, "sign-on", "badge-and-pin", operator="M100")
    with Station(hall / "manager") as source, Station(hall / "booth-1") as target:
        pull(source.ledger, target.ledger)


def test_not_you_start_over_forgets_the_badge(demo_hall: Path, open_front: Any) -> None:
    _badge_and_pin(demo_hall)
    ui: Driver = open_front(demo_hall / "booth-1")
    assert "start-over" not in ui.idents()  # nothing scanned yet
    ui.scan("S200")
    assert "Sam Seller (S200): enter your PIN" in ui.find("login-hint").text
    for key in "12":
        ui.tap(f"key-{key}")
    ui.shot("booth-login-start-over")
    ui.tap("start-over")  # not Sam: back to the badge prompt, Sam's badge forgotten
    assert ui.find("login-hint").text.startswith("Scan your badge")
    assert "Sam Seller" not in ui.text() and ui.find("login-entry").text == ""
    assert "start-over" not in ui.idents()
    for key in "4826":  # Sam's PIN alone does not sign anyone on now
        ui.tap(f"key-{key}")
    ui.tap("login")
    assert ui.screen == "login"
    ui.scan("M100")  # the manager, who has no PIN: told in plain words
    assert ui.find("login-outcome-headline").text == "No PIN yet"
    assert "Set PIN" in ui.find("login-outcome-detail").text
    _no_codes(ui.text())
    ui.scan("S200")
    for key in "1111":
        ui.tap(f"key-{key}")
    ui.tap("login")
    assert ui.find("login-outcome-headline").text == "Wrong PIN"
    assert "start-over" in ui.idents()
    for key in "4826":
        ui.tap(f"key-{key}")
    ui.tap("login")
    assert ui.screen == "sell"
