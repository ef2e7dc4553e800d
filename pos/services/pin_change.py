"""Setting a PIN from a staff station's screen: a manager sets or resets anyone's; a person
changes their own, their current PIN first. The PIN is recorded hall-wide (StaffPinSet, only
its slow hash: pos.services.signon.set_pin), so the badge and PIN work at every station."""

from __future__ import annotations

from dataclasses import dataclass

from pos.domain import pins
from pos.errors import BadInput
from pos.ledger.projections import signon as signon_read
from pos.services import signon
from pos.services.inputs import checked_input
from pos.services.station import Station


@dataclass(frozen=True)
class PinSet:
    badge: str
    name: str
    by: str  # the badge that set it: the person themselves, or a manager


def whose(st: Station, badge: str) -> tuple[str, str]:
    """(badge, name) of the staff member `badge` names, or BadInput in plain words."""
    person = st.staff(badge.strip())
    if person is None:
        raise BadInput("badge", f"{badge.strip()!r} is not a badge of this hall's staff")
    return person.badge, person.name


def check_new(pin: str) -> str:
    """The new PIN as it will be stored, or BadInput saying what a PIN is."""
    with checked_input("pin"):
        return pins.check_pin(pin)


def current_pin_matches(st: Station, badge: str, pin: str) -> bool | None:
    """Whether `pin` is `badge`'s PIN on the hall's record (None: they have none there)."""
    stored = signon_read.pin_hash(st.ledger.conn, badge)
    if stored is None:
        return None
    return pins.verify_pin(pin, stored)


def set_pin(st: Station, badge: str, pin: str, *, operator: str) -> PinSet:
    """Record `badge`'s new PIN: `operator` is the person themselves or a manager (rule ROLE
    refuses anyone else)."""
    done = signon.set_pin(st, badge, pin, operator=operator)
    return PinSet(done["badge"], done["name"], operator)
