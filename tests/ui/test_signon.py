"""Sign-on at the staff stations by touches and scans (issue 20): a badge tap, or badge and
PIN when the house says so (the PIN set once, replicated, works at every station); the station
locks after the house's idle minutes and the same badge tapped unlocks it where it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pos.services import signon
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen


def _house(hall: Path, **chosen: str) -> None:
    with Station(hall / "manager") as st:
        signon.set_pin(st, "S200", "4826", operator="M100")
        for key, value in chosen.items():
            signon.set_house_setting(st, key.replace("_", "-"), value, operator="M100")
    with Station(hall / "manager") as source, Station(hall / "booth-1") as target:
        pull(source.ledger, target.ledger)  # the PIN was set at the manager: it replicates


def _pad(ui: Driver, digits: str) -> None:
    for key in digits:
        ui.tap(f"key-{key}")


def test_badge_then_pin_set_at_the_manager(demo_hall: Path, open_front: Any) -> None:
    _house(demo_hall, sign_on="badge-and-pin")
    ui = open_front(demo_hall / "booth-1")
    ui.scan("s200")  # the badge, in whatever case the scanner sends it
    assert ui.screen == "login"
    assert "Sam Seller (S200): enter your PIN" in ui.find("login-hint").text
    assert ui.find("login-outcome-headline").text == "Enter your PIN"
    ui.shot("signon-pin-asked")
    _pad(ui, "1234")
    ui.tap("login")
    assert ui.screen == "login" and ui.find("login-outcome-headline").text == "Wrong PIN"
    assert "4826" not in ui.text() and "1234" not in ui.text()  # never shown back
    _pad(ui, "4826")
    ui.tap("login")
    assert ui.screen == "sell"
    assert "Sam Seller" in ui.find("status-station").text


def test_a_badge_without_a_pin_is_told_who_sets_one(demo_hall: Path, open_front: Any) -> None:
    _house(demo_hall, sign_on="badge-and-pin")
    ui = open_front(demo_hall / "booth-1")
    ui.scan("S201")
    assert ui.screen == "login"
    assert "booth staff pin S201" in ui.find("login-outcome-detail").text


def test_idle_lock_and_the_badge_tap_that_unlocks(demo_hall: Path, open_front: Any) -> None:
    _house(demo_hall, sign_on="badge-and-pin", lock_minutes="5")
    ui = open_front(demo_hall / "booth-1")
    ui.scan("S200")
    _pad(ui, "4826")
    ui.tap("login")
    ui.tap("tab-winners")
    watch = ui.front.lock_watch
    assert watch is not None and watch.timer.seconds == 300
    watch.timer.last -= 299  # four minutes 59 seconds without a touch: still open
    ui.frames(2)
    watch._check(1.0)
    assert ui.screen == "winners"
    watch.timer.last -= 2
    watch._check(1.0)
    ui.settle()
    assert ui.screen == "locked"
    assert "Locked · Sam Seller (S200)" in ui.find("login-title").text
    assert "tab-sell" not in ui.idents()  # nothing behind the lock is reachable
    ui.shot("signon-locked")
    ui.scan("S200")  # the same badge: no PIN, back where they were
    assert ui.screen == "winners" and "tab-sell" in ui.idents()
    watch.timer.last -= 400
    watch._check(1.0)
    ui.settle()
    assert ui.screen == "locked"
    ui.scan("M100")  # someone else signs on afresh: their PIN is asked (they have none)
    assert ui.screen == "locked"
    assert "booth staff pin M100" in ui.find("login-outcome-detail").text


def test_badge_only_is_the_default_and_never_locks_at_zero(
    demo_hall: Path, open_front: Any
) -> None:
    _house(demo_hall, lock_minutes="0")
    ui = open_front(demo_hall / "booth-1")
    ui.scan("S200")
    assert ui.screen == "sell"
    watch = ui.front.lock_watch
    assert watch is not None and watch.timer.seconds is None
    watch.timer.last -= 10_000
    watch._check(1.0)
    assert ui.screen == "sell"
