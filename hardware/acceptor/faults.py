"""What every bill acceptor driver says of its device's troubles, in the same words whatever the
protocol (SSP, ID-003, EBDS): staff read them on the pay screen's log and the status bar, and
the kiosk's tests compare them across drivers. Pure data."""

from __future__ import annotations

from typing import Final

JAMMED: Final = "the bill acceptor is jammed"
CASHBOX_FULL: Final = "the cash box is full"
CASHBOX_REMOVED: Final = "the cash box was removed"
FRAUD: Final = "the acceptor saw a fraud attempt"
FAILED: Final = "the bill acceptor reports a failure"
RESTARTED: Final = "the bill acceptor restarted"
REFUSED: Final = "the acceptor refused the bill"
POWER_LOST: Final = "the bill acceptor restarted (power lost?)"
GAVE_BACK: Final = "the acceptor gave the bill back"
HELD_AT_START: Final = "the acceptor held a bill in escrow when it was opened"


def jammed_at(where: str, protocol: str) -> str:
    """A bill that jammed while being stacked: `where` is "inside" or "at the front"."""
    return f"the bill jammed {where} ({protocol})"
