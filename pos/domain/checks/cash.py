"""Cash with two people, deposits and disbursements (COUNT2, DEPOSIT, DISBURSE)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from pos.domain.books import CATEGORIES
from pos.domain.checks import Refusal
from pos.domain.money import format_money


def verifiable(
    *, counted_by: str, verifier: str, counted: int, recounted: int, already: str | None
) -> Refusal | None:
    """COUNT2: a second person, with another badge, verifies a count by counting the same cash
    to the same figure; a count is verified once."""
    if already is not None:
        return Refusal("COUNT2", f"this count was already verified by {already}")
    if verifier == counted_by:
        return Refusal(
            "COUNT2",
            f"badge {verifier} recorded this count; a second person with another badge verifies it",
        )
    if recounted != counted:
        return Refusal(
            "COUNT2",
            f"the second count {format_money(recounted)} differs from the recorded "
            f"{format_money(counted)}: count the cash again together, and record the new count",
        )
    return None


def depositable(*, sessions: list[str], unknown: list[str], taken: list[str]) -> Refusal | None:
    """DEPOSIT: a deposit names sessions held here, each deposited once."""
    if not sessions:
        return Refusal("DEPOSIT", "a deposit names the session(s) whose receipts it holds")
    if unknown:
        return Refusal("DEPOSIT", f"no session {', '.join(unknown)} is on file")
    if taken:
        return Refusal(
            "DEPOSIT", f"the receipts of {', '.join(taken)} were already recorded as deposited"
        )
    return None


def deposited_after(*, on: date, game_dates: Mapping[str, date]) -> Refusal | None:
    """DEPOSIT: a deposit holds receipts its sessions took in, so it is dated on or after the
    game date of each (`game_dates`: session -> its game date); one dated before would count
    as on time while holding money not yet taken in."""
    later = sorted(session for session, held in game_dates.items() if held > on)
    if later:
        return Refusal(
            "DEPOSIT",
            f"a deposit dated {on.isoformat()} cannot hold the receipts of "
            + ", ".join(f"{s} (game date {game_dates[s].isoformat()})" for s in later)
            + ": a deposit is made on or after its session's game date",
        )
    return None


def disbursable(*, category: str, check_number: str, invoice: str) -> Refusal | None:
    """DISBURSE: an expense is paid by check from the gaming account, with the invoice's
    reference and a category the state's forms know."""
    known = [key for key, _ in CATEGORIES]
    if category not in known:
        return Refusal("DISBURSE", f"{category!r} is not a category ({', '.join(known)})")
    if not check_number.strip():
        return Refusal(
            "DISBURSE",
            "expenses are paid by check from the charitable gaming account: give the check "
            "number (prizes and meals paid in cash are not disbursements)",
        )
    if not invoice.strip() and category != "use-of-proceeds":
        return Refusal("DISBURSE", "give the invoice's reference (number or description)")
    return None
