"""The hall's staff (ROLE): the first person added to a hall with no manager is its manager."""

from __future__ import annotations

from collections.abc import Collection

from pos.domain.checks import Refusal


def first_is_manager(roles: Collection[str]) -> Refusal | None:
    """ROLE (NotPermitted): with no manager yet, the person added must have the manager role."""
    if "manager" not in roles:
        return Refusal.not_permitted(
            "this hall has no manager yet: the first person added must have the manager role"
        )
    return None


def sets_pin(by: str, by_name: str, by_roles: Collection[str], badge: str) -> Refusal | None:
    """ROLE (NotPermitted): a person sets their own PIN; a manager sets anyone's."""
    if by != badge and "manager" not in by_roles:
        return Refusal.not_permitted(
            f"badge {by} ({by_name}) may set only their own PIN; a manager sets {badge}'s"
        )
    return None


def approves_void(badge: str, *, signed_on: bool) -> Refusal | None:
    """ROLE (NotPermitted): a void asked for at the booth is approved by a badge that signs on
    as a manager there."""
    if not signed_on:
        return Refusal.not_permitted(f"badge {badge!r} cannot approve")
    return None
