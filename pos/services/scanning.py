"""What a scan means at this station: a winner to pay (booth) or a ticket to check (kiosk).
At the booth, the second scan of a winner paid here and not yet confirmed punched confirms the
punch (C2); a scan after that is a second payment, flagged.

The scanner delivers whole strings from its own thread; the caller queues them and hands each
to `handle_scan` on the thread that owns the station. A garbled or refused scan is reported and
changes nothing.
"""

from __future__ import annotations

from typing import Any

from pos.domain import aamva, ticket_code
from pos.domain.money import format_money, json_form
from pos.errors import BoothError, RuleRefused
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import hall as hall_read
from pos.ledger.projections import players as players_read
from pos.services import winners
from pos.services.station import Station

SCAN_KINDS = ("badge", "player-card", "id", "ticket", "unreadable")


def what_is(st: Station, text: str) -> str:
    """What a scan (or typed code) is, so a screen routes it where it belongs: a staff
    `badge`, a `player-card`, an `id` (a licence's barcode), a `ticket` (a code with a ticket
    number, or the serial of a deal known here), or `unreadable` (garbled, or nothing known)."""
    code = text.strip()
    if not code:
        return "unreadable"
    conn = st.ledger.conn
    if hall_read.staff_member(conn, code) is not None:
        return "badge"
    if players_read.player_card(conn, code) is not None:
        return "player-card"
    if aamva.looks_like_licence(code):
        return "id"
    try:
        decoded = ticket_code.decode(code)
    except ticket_code.InvalidTicketCode:
        return "unreadable"
    if decoded.ticket is not None or deals_read.deal_figures(conn, decoded.serial) is not None:
        return "ticket"
    return "unreadable"


def handle_scan(st: Station, text: str, *, operator: str | None) -> dict[str, Any]:
    """Always returns a result, never raises for a bad scan: {"ok": ..., "message": ...}."""
    try:
        if st.config.role == "kiosk":
            result = winners.check_ticket(st, text)
            return {"ok": True, "action": "check", "message": result["say"], **result}
        if winners.second_scan_confirms_punch(st, text, operator=operator):
            # C2: the payer's second scan, moments after paying, confirms the punch
            punched = winners.confirm_punch(st, text, operator=operator, how="scan")
            return {
                "ok": True,
                "action": "punched",
                "message": f"PUNCHED {punched['punched']}: confirmed, pays nothing",
                **punched,
            }
        paid = winners.redeem(st, text, operator=operator)
        return {
            "ok": True,
            "action": "redeem",
            "message": f"PAY {format_money(paid.pay)}  --  PUNCH NOW",
            **json_form(paid),
        }
    except RuleRefused as refusal:
        return {
            "ok": False,
            "action": "refused",
            "rule": refusal.rule,
            "message": refusal.message,
            "exit": refusal.exit_code,
        }
    except BoothError as error:
        return {
            "ok": False,
            "action": "bad-scan",
            "message": error.message,
            "exit": error.exit_code,
        }
