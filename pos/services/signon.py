"""Signing on at a staff station: PINs (set as StaffPinSet events, only their slow hash kept,
so a badge and its PIN work at every station) and the house's sign-on settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pos.domain import pins
from pos.domain.checks import staff as staff_checks
from pos.domain.signon import HOUSE_SETTINGS, SignOnSettings, house_setting
from pos.errors import BadInput, BoothError, refuse
from pos.ledger.projections import signon as signon_read
from pos.services import newer_release
from pos.services.inputs import checked_input
from pos.services.station import Operator, Station


def settings(st: Station) -> SignOnSettings:
    return SignOnSettings.from_mapping(signon_read.house_settings(st.ledger.conn))


def set_house_setting(st: Station, key: str, value: str, *, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with checked_input("key"):
        stored = house_setting(key, value)
    key = key.strip().lower()
    st.append(
        "HouseSettingSet",
        {"key": key, "value": stored, "by": by.badge, "governs": ["sign-on"]},
    )
    return {"key": key, "value": stored}


def house_settings(st: Station) -> dict[str, str]:
    current = settings(st)
    return {"sign-on": current.mode, "lock-minutes": str(current.lock_minutes)}


def set_pin(st: Station, badge: str, pin: str, *, operator: str | None) -> dict[str, Any]:
    """A manager sets anyone's PIN; a person may set their own."""
    with checked_input("pin"):
        stored = pins.hash_pin(pin)
    return set_pin_hash(st, badge, stored, operator=operator)


def set_pin_hash(st: Station, badge: str, stored: str, *, operator: str | None) -> dict[str, Any]:
    """Record a PIN hashed by the caller (`booth staff pin` hashes it in its own process)."""
    if not pins.is_stored_form(stored):
        raise BadInput("pin", "not a PIN hash (scrypt$N$r$p$SALT$HASH)")
    by = st.operator(operator)
    person = st.staff(badge)
    if person is None:
        raise BadInput("badge", f"{badge!r} is not on this hall's staff")
    refuse(staff_checks.sets_pin(by.badge, by.name, by.roles, person.badge))
    event = st.append("StaffPinSet", {"badge": person.badge, "hash": stored, "by": by.badge})
    return {"badge": person.badge, "name": person.name, "event": f"{event.origin}:{event.seq}"}


def has_pin(st: Station, badge: str) -> bool:
    return signon_read.pin_hash(st.ledger.conn, badge) is not None


@dataclass(frozen=True)
class SignOn:
    """The answer to a badge (and PIN): signed on, or the PIN is asked for, or refused."""

    person: Operator | None = None
    needs_pin: bool = False
    error: BoothError | None = None


def sign_on(st: Station, badge: str, pin: str | None, *roles: str) -> SignOn:
    """A badge tapped (and the PIN, when the house asks for one)."""
    try:
        newer_release.guard(st, "sign-on")
        person = st.operator(badge.strip(), *roles)
    except BoothError as error:
        return SignOn(error=error)
    if not settings(st).needs_pin:
        return SignOn(person)
    stored = signon_read.pin_hash(st.ledger.conn, person.badge)
    if stored is None:
        return SignOn(
            error=BadInput(
                "pin",
                f"the house signs on with badge and PIN and {person.badge} has none yet: "
                f"a manager runs booth staff pin {person.badge}",
            )
        )
    if pin is None:
        return SignOn(person, needs_pin=True)
    if not pins.verify_pin(pin, stored):
        return SignOn(person, needs_pin=True, error=BadInput("pin", "that PIN is not right"))
    return SignOn(person)


__all__ = ["HOUSE_SETTINGS", "SignOn", "has_pin", "set_pin", "settings", "sign_on"]
