"""Selling tickets (BIN, OWNER, A, ID, VOUCHER): from a deal in play in this station's bins,
at a kiosk only what the house rules allow and only to an identified buyer."""

from __future__ import annotations

from pos.domain.checks import Refusal, handover_hint
from pos.domain.money import format_amount


def sells_here(
    serial: str, *, state: str, holder: str | None, released_to: str | None, here: str
) -> Refusal | None:
    """The deal is in play (BIN; never a deal marked tampered, C1), held by this station
    (`here`) and not released (OWNER)."""
    if state == "tampered":
        return Refusal("C1", f"deal {serial} is marked as tampered with; it never sells")
    if state != "in-play":
        return Refusal("BIN", f"deal {serial} is {state}, not in play in a bin")
    if holder != here:
        return Refusal(
            "OWNER",
            f"deal {serial} is held by {holder}; only its holder records its sales"
            + handover_hint(serial, holder),
        )
    if released_to is not None:
        return Refusal(
            "OWNER",
            f"deal {serial} was released to {released_to}; it records no more sales here",
        )
    return None


def at_kiosk(*, pull_tabs_allowed: bool, buyer: str | None) -> Refusal | None:
    """A kiosk sells pull-tabs only where the house rules allow it (`pull_tabs_allowed`: the deal
    is not a pull-tab deal, or they do) (A), and only to an identified buyer (ID)."""
    if not pull_tabs_allowed:
        return Refusal(
            "A", "the house rules do not allow pull-tab sales at a kiosk; buy at the booth"
        )
    if not buyer:
        return Refusal("ID", "a kiosk sells only to an identified buyer: scan your card or ID")
    return None


def at_booth(*, buyer: str | None, id_required: bool) -> Refusal | None:
    """ID: the booth asks for a card or ID where the house rules say so (`id_required`)."""
    if not buyer and id_required:
        return Refusal("ID", "the house rules ask every buyer for a player card or ID")
    return None


def voucher_covers(station: str, number: int, *, value: int, qty: int, cost: int) -> Refusal | None:
    """VOUCHER: a voucher paying at a kiosk is worth at least the tickets' cost."""
    if value < cost:
        return Refusal(
            "VOUCHER",
            f"voucher {number} of {station} is for ${format_amount(value)}; "
            f"{qty} tickets cost ${format_amount(cost)}",
        )
    return None
