"""What a scan means at this station: a winner to pay (booth) or a ticket to check (kiosk).
At the booth, the second scan of a winner paid here and not yet confirmed punched confirms the
punch (C2); a scan after that is a second payment, flagged.

The scanner delivers whole strings from its own thread; the caller queues them and hands each
to `handle_scan` on the thread that owns the station. A garbled or refused scan is reported and
changes nothing.
"""

from __future__ import annotations

from typing import Any

from pos.errors import BoothError, RuleRefused
from pos.services import winners
from pos.services.station import Station


def handle_scan(st: Station, text: str, *, operator: str | None) -> dict[str, Any]:
    """Always returns a result, never raises for a bad scan: {"ok": ..., "message": ...}."""
    try:
        if st.config.role == "kiosk":
            result = winners.check_ticket(st, text)
            return {"ok": True, "action": "check", "message": result["say"], **result}
        if winners.awaiting_punch(st, text):
            # C2: the second scan of a ticket paid here confirms its punch and pays nothing
            punched = winners.confirm_punch(st, text, operator=operator, how="scan")
            return {
                "ok": True,
                "action": "punched",
                "message": f"PUNCHED {punched['punched']}: confirmed, pays nothing",
                **punched,
            }
        result = winners.redeem(st, text, operator=operator)
        return {
            "ok": True,
            "action": "redeem",
            "message": f"PAY ${result['pay']}  --  PUNCH NOW",
            **result,
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
