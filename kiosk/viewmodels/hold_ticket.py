"""A seal card's hold ticket, scanned to sign a line of the sheet: the scan is checked against
the seal's hold tickets before anything is signed (a wrong ticket changes nothing). Pure: no
Kivy, no station."""

from __future__ import annotations

from dataclasses import dataclass

from kiosk.i18n import _
from pos.domain import ticket_code

SCAN_IT = "Scan the winning hold ticket"


@dataclass(frozen=True)
class HoldScan:
    """What a scan on the seal screen is: `ticket` (a hold ticket of this seal, free to sign),
    `refused` (a ticket, but not one that may sign here: `why` says so), or `other` (no ticket
    number in it: a player card or an ID)."""

    kind: str
    ticket: str = ""
    why: str = ""


def _same_number(a: str, b: str) -> bool:
    """Ticket numbers as printed: "007" and "0007" are the same ticket."""
    return a == b or (a.isdigit() and b.isdigit() and int(a) == int(b))


def _listed(tickets: tuple[str, ...]) -> str:
    if len(tickets) <= 1:
        return "".join(tickets)
    return _("{first} and {last}").format(first=", ".join(tickets[:-1]), last=tickets[-1])


def read_hold_ticket(
    text: str, *, serial: str, hold_tickets: tuple[str, ...], free_tickets: tuple[str, ...]
) -> HoldScan:
    """The scanned `text` checked against the seal card `serial`'s hold tickets (those still
    free to sign are `free_tickets`)."""
    try:
        code = ticket_code.decode(text)
    except ticket_code.InvalidTicketCode:
        return HoldScan("other")
    if code.ticket is None:
        return HoldScan("other")
    if code.serial != serial.upper():
        return HoldScan(
            "refused",
            why=_(
                "That ticket is from deal {deal}, not this seal card ({serial}). "
                "Scan the winning hold ticket of {serial}."
            ).format(deal=code.serial, serial=serial),
        )
    held = next((t for t in hold_tickets if _same_number(t, code.ticket)), None)
    if held is None and not hold_tickets:
        return HoldScan("refused", why=_("This seal card has no hold tickets to sign with."))
    if held is None:
        return HoldScan(
            "refused",
            why=_(
                "Ticket {ticket} is not a hold ticket of this seal card: its hold tickets are "
                "{tickets}."
            ).format(ticket=code.ticket, tickets=_listed(hold_tickets)),
        )
    if held not in free_tickets:
        return HoldScan(
            "refused", why=_("Hold ticket {ticket} has already signed a line.").format(ticket=held)
        )
    return HoldScan("ticket", ticket=held)
