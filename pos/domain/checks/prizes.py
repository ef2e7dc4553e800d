"""PAID: every prize is paid once, whatever the game; a second payment names the first."""

from __future__ import annotations

from dataclasses import dataclass

from pos.domain.checks import Refusal
from pos.domain.money import format_money


@dataclass(frozen=True)
class FirstPayment:
    """The payment on file, as a person is told it: the hall's local time, who, where."""

    at: str  # "2026-11-28 19:05"
    by: str | None  # "Sam Seller (S1)"; None for a kiosk's own payment (no one signed on)
    station: str
    amount: int
    receipt: int | None


def unpaid(what: str, first: FirstPayment | None) -> Refusal | None:
    """PAID: `what` ("game 1 (Early Bird) of session 2026-11-28/1") has no payment on file."""
    if first is None:
        return None
    receipt = f", receipt #{first.receipt}" if first.receipt is not None else ""
    by = f" by {first.by}" if first.by else ""
    return Refusal(
        "PAID",
        f"{what} was already paid, {format_money(first.amount)} at {first.at}{by} at "
        f"{first.station}{receipt}: pay nothing",
    )
