"""PINs kept only as a slow salted hash, the sign-on house settings and the idle lock, pure
(issue 20)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as s

from pos.domain import pins
from pos.domain.event_schemas import body_problem
from pos.domain.signon import InvalidSignOn, LockTimer, SignOnSettings, house_setting, unlocks

PINS = s.text(alphabet="0123456789", min_size=4, max_size=8).filter(lambda p: len(set(p)) > 1)


@settings(max_examples=8, deadline=None)  # scrypt is slow on purpose
@given(PINS, PINS)
def test_a_pin_verifies_and_another_does_not(pin: str, other: str) -> None:
    stored = pins.hash_pin(pin)
    assert pin not in stored.split("$")[4:]  # the salt and the hash, never the PIN
    assert pins.is_stored_form(stored) and pins.verify_pin(pin, stored)
    assert pins.verify_pin(other, stored) == (other == pin)


def test_the_same_pin_hashes_differently_each_time() -> None:
    assert pins.hash_pin("4826") != pins.hash_pin("4826")


@pytest.mark.parametrize("pin", ["", "123", "123456789", "12a4", "１２３４", "0000"])
def test_what_is_not_a_pin(pin: str) -> None:
    with pytest.raises(pins.InvalidPin, match="like 4826"):
        pins.hash_pin(pin)


def test_a_stored_form_from_elsewhere_cannot_burn_the_cpu() -> None:
    stored = pins.hash_pin("4826").replace("scrypt$16384$", "scrypt$1073741824$", 1)
    assert not pins.verify_pin("4826", stored)
    assert not pins.verify_pin("4826", "4826")


def test_only_a_hash_fits_a_pin_event() -> None:
    good = {"badge": "S1", "hash": pins.hash_pin("4826"), "by": "M1"}
    assert body_problem("StaffPinSet", good) is None
    assert "not a PIN hash" in str(body_problem("StaffPinSet", {**good, "hash": "4826"}))
    assert body_problem("HouseSettingSet", {"key": "lock-minutes", "value": "5"}) is None
    assert "lock-minutes" in str(
        body_problem("HouseSettingSet", {"key": "lock-minutes", "value": "-1"})
    )


def test_house_settings_and_the_lock() -> None:
    assert house_setting("Sign-On", "PIN") == "badge-and-pin"
    assert house_setting("lock-minutes", " 05 ") == "5"
    with pytest.raises(InvalidSignOn, match="badge or badge-and-pin"):
        house_setting("sign-on", "face")
    with pytest.raises(InvalidSignOn, match="not a house setting"):
        house_setting("colour", "red")
    chosen = SignOnSettings.from_mapping({"lock-minutes": "5"})
    assert (chosen.mode, chosen.needs_pin, chosen.lock_seconds) == ("badge", False, 300.0)
    assert SignOnSettings.from_mapping({"lock-minutes": "0"}).lock_seconds is None
    timer = LockTimer(300.0, now=1000.0)
    assert not timer.due(1299.0) and timer.due(1300.0)
    timer.touch(1290.0)
    assert not timer.due(1300.0)
    assert not LockTimer(None, 0.0).due(10**9)
    assert unlocks(" s200 ", "S200") and not unlocks("S201", "S200") and not unlocks("S1", "")
