"""Form W-2G (rule W2G): whether a prize is reportable, decided once for every game.

Bingo's winnings are reportable at the threshold alone. A pull-tab's or a raffle's are
reportable only when also at least `w2g_multiple` times the wager (the ticket's price): the
caller passes that wager, or None where the game has no such test. Pure: the settings are
passed in."""

from __future__ import annotations

from pos.domain.checks import Refusal
from pos.domain.money import format_amount
from pos.domain.rulebook import Settings


def reportable(amount: int, settings: Settings, *, wager: int | None = None) -> bool:
    """Whether a prize (or one winner's share) of `amount` cents is reported on Form W-2G."""
    if amount < settings.w2g_threshold:
        return False
    return wager is None or amount >= settings.w2g_multiple * wager


def identity_recorded(amount: int, *, recorded: bool, what: str = "") -> Refusal | None:
    """A reportable prize is paid only with the winner's data recorded. `what` names the prize
    where its amount alone would not ("the 1st prize (Handmade quilt)")."""
    if recorded:
        return None
    prize = what or f"a ${format_amount(amount)} prize"
    return Refusal(
        "W2G",
        f"{prize} is reportable on Form W-2G: record the winner's name, address, taxpayer ID "
        "and photo ID (--winner-name, --winner-address, --winner-tin, --winner-id)",
    )
