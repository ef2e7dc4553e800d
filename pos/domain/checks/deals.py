"""A deal's life at the stations (C4, OWNER): put in play in a bin, closed with its unsold count,
released by its holder and acquired by another station."""

from __future__ import annotations

from collections.abc import Sequence

from pos.domain.checks import Refusal


def openable(
    serial: str, *, state: str, bin_name: str | None, holder: str | None
) -> Refusal | None:
    """A deal goes in play only when received or carried over: never marked tampered (C1), not
    closed (C4), not in play already (OWNER)."""
    tampered = tampered_deal(serial, state=state)
    if tampered is not None:
        return tampered
    if state == "closed":
        return Refusal("C4", f"deal {serial} is closed and cannot be put in play")
    if state == "in-play":
        return Refusal("OWNER", f"deal {serial} is already in play in bin {bin_name} at {holder}")
    return None


def closable(serial: str, *, state: str, tickets: int, sold: int, unsold: int) -> Refusal | None:
    """C4: a deal closes once, with the unsold count the ledger expects (tickets - sold)."""
    if state == "closed":
        return Refusal("C4", f"deal {serial} is already closed")
    remaining = tickets - sold
    if unsold != remaining:
        return Refusal(
            "C4",
            f"deal {serial}: {unsold} unsold counted but the ledger says {remaining} "
            f"({tickets} tickets, {sold} sold); recount before closing",
        )
    return None


def no_later_session(
    serial: str, *, game: str, unsold: int, later: Sequence[str], overridden: bool
) -> Refusal | None:
    """C4: a deal with unsold tickets is sold at the next session that sells its type of ticket;
    it closes unfinished only when no such session is scheduled (`later`: the scheduled game
    dates after today that sell `game` tickets), or by a manager's recorded decision. Event
    games end with their session (K5, K7), so a schedule never holds them open."""
    if unsold == 0 or not later or overridden or game == "event":
        return None
    return Refusal(
        "C4",
        f"deal {serial} has {unsold:,} unsold tickets and a later session that sells {game} "
        f"tickets is scheduled ({', '.join(later)}): sell them there, or a manager closes it "
        "with --override --reason TEXT",
    )


def releasable(serial: str, *, holder: str | None, here: str) -> Refusal | None:
    """OWNER: only the station holding a deal (`here`) releases it."""
    if holder != here:
        return Refusal("OWNER", f"deal {serial} is not held by {here} (holder: {holder or 'none'})")
    return None


def acquirable(
    serial: str, *, holder: str | None, released_to: str | None, here: str, forced: bool
) -> Refusal | None:
    """OWNER: a station takes a deal it does not hold once its holder released it there, or by
    a manager's recorded decision (`forced`)."""
    if holder == here:
        return Refusal("OWNER", f"deal {serial} is already held here")
    if not forced and released_to != here:
        return Refusal(
            "OWNER",
            f"deal {serial} is held by {holder}, which has not released it to this station",
        )
    return None


def tampered_deal(serial: str, *, state: str) -> Refusal | None:
    """C1: a deal received marked, defaced or tampered never goes into play, sells or pays."""
    if state == "tampered":
        return Refusal(
            "C1", f"deal {serial} is marked as tampered with; it can never be put into play"
        )
    return None
