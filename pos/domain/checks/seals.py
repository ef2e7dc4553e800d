"""Seal cards (ROLE, OWNER, C5, K4, K5, B, C2, C6): hold tickets sign free lines of the sheet at the
deal's holder; the seal opens once, when every ticket is sold; a winning line's prize is paid
once, within its claim window, unless it moved on to the next progressive game."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from pos.domain.checks import Refusal, handover_hint


def kiosk_signer(player: str | None) -> Refusal | None:
    """ROLE: at a kiosk, with no operator, only an identified player signs for themselves."""
    if not player:
        return Refusal(
            "ROLE", "at a kiosk, scan your player card or ID first to sign a seal card line"
        )
    return None


def has_sheet(serial: str, *, game: str, sealed: bool) -> Refusal | None:
    """K4: an event game decided by a seal card (`sealed`: its flare has seal terms) has no
    sign-up sheet, so no line is signed for it."""
    if game == "event" and sealed:
        return Refusal(
            "K4",
            f"deal {serial} is an event game decided by its seal card: K 4 needs no sign-up "
            "sheet for it, so there is no line to sign",
        )
    return None


def may_sign(
    serial: str, *, holder: str | None, here: str, ticket: str, hold_tickets: Sequence[str]
) -> Refusal | None:
    """The deal's holder (`here`) records the signature (OWNER), of one of its hold tickets
    (C5)."""
    if holder != here:
        return Refusal(
            "OWNER", f"deal {serial} is held by {holder}" + handover_hint(serial, holder)
        )
    if ticket not in hold_tickets:
        return Refusal(
            "C5",
            f"ticket {ticket} is not a hold ticket of deal {serial}"
            f" (hold tickets: {', '.join(hold_tickets)})",
        )
    return None


def line_free(
    serial: str,
    *,
    seal_open: bool,
    ticket: str,
    signed_line: int | None,
    line: int,
    line_ticket: str | None,
) -> Refusal | None:
    """C5: a line is signed before the seal opens, by a hold ticket that signed no other line
    (`signed_line`), on a line no other ticket signed (`line_ticket`)."""
    if seal_open:
        return Refusal("C5", f"the seal of deal {serial} is already open")
    if signed_line is not None:
        return Refusal("C5", f"hold ticket {ticket} already signed line {signed_line}")
    if line_ticket is not None:
        return Refusal("C5", f"line {line} is already signed (hold ticket {line_ticket})")
    return None


def event_decided_in_session(
    serial: str, *, event: bool, ended: bool, session_open: bool
) -> Refusal | None:
    """K5: the winners of an event game are decided in the session its tickets are sold: its
    seal opens while a session is open and before the game ended with a session's close."""
    if not event:
        return None
    if ended:
        return Refusal(
            "K5",
            f"event game {serial} ended with the session that sold it: its winners were to be "
            "decided in that session, and its seal is not opened afterwards",
        )
    if not session_open:
        return Refusal(
            "K5",
            f"event game {serial}: open the session that sells it; its winners are decided "
            "during that session",
        )
    return None


def may_open(serial: str, *, seal_open: bool, tickets_left: int) -> Refusal | None:
    """C5: the seal opens once, when every ticket of the deal is sold."""
    if seal_open:
        return Refusal("C5", f"the seal of deal {serial} is already open")
    if tickets_left > 0:
        return Refusal(
            "C5",
            f"deal {serial} is not sold out ({tickets_left} tickets left): "
            "the seal is opened only when every ticket is sold",
        )
    return None


def claimable(
    serial: str,
    line: int,
    *,
    state: str | None,
    carried_to: str | None,
    claim_until: str | None,
    today: date,
    holder: str | None,
    here: str,
) -> Refusal | None:
    """A seal prize is paid for a winning line (`state`: its prize's state, None when the line
    did not win or the seal is not open) (B), once (C2), unless it moved on (C6), within its
    window (B, `claim_until` inclusive), at the deal's holder (OWNER)."""
    if state is None or claim_until is None:
        return Refusal(
            "B",
            f"line {line} of deal {serial} is not a winning line (or the seal is not open)",
        )
    if state == "paid":
        return Refusal("C2", f"the prize of line {line} of deal {serial} was already paid")
    if state == "carried":
        return Refusal("C6", f"the unclaimed prize of line {line} moved to deal {carried_to}")
    if today > date.fromisoformat(claim_until):
        return Refusal(
            "B", f"seal card prizes are claimed within the window, which ended {claim_until}"
        )
    if holder != here:
        return Refusal(
            "OWNER", f"deal {serial} is held by {holder}" + handover_hint(serial, holder)
        )
    return None
