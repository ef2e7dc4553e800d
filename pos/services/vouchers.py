"""Vouchers: a receipt with a value, issued for cash (booth) or a credit (kiosk), paid once."""

from __future__ import annotations

from typing import Any

from pos.domain.money import format_amount, parse_amount
from pos.errors import BadInput, RuleRefused
from pos.services.inputs import checked_input
from pos.services.numbering import next_receipt_number
from pos.services.receipts import verify_payload
from pos.services.station import Station


def issue_voucher(st: Station, amount: str, *, reason: str, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator, "seller")
    with checked_input("amount"):
        cents = parse_amount(amount, "amount")
    with st.ledger.transaction():
        number = next_receipt_number(st)
        st.append(
            "VoucherIssued", {"amount": cents, "reason": reason, "by": by.badge, "receipt": number}
        )
    return {"voucher": number, "station": st.id, "amount": format_amount(cents)}


def issue_credit_voucher(st: Station, cents: int, *, reason: str) -> int:
    """Inside a kiosk's command: a voucher for the player's credit (a dispenser shortfall)."""
    number = next_receipt_number(st)
    st.append("VoucherIssued", {"amount": cents, "reason": reason, "by": None, "receipt": number})
    return number


def redeem_voucher(st: Station, code: str, *, operator: str | None) -> dict[str, Any]:
    """Pay a voucher from its QR code, once. Refused when it is already paid, not on file here
    (it cannot be checked, so it is not paid), or of another amount than was issued."""
    by = st.operator(operator, "seller", "redeemer")
    checked = verify_payload(st, code)
    if checked["kind"] != "voucher":
        raise BadInput("voucher", f"the code is a {checked['kind']} receipt, not a voucher")
    station, number = checked["station"], checked["number"]
    with st.ledger.transaction():
        row = st.ledger.conn.execute(
            "SELECT amount, redeemed_by_origin, redeemed_hlc FROM p_vouchers WHERE station = ? "
            "AND number = ?",
            (station, number),
        ).fetchone()
        if row is None:
            raise RuleRefused(
                "VOUCHER",
                f"voucher {number} of {station} is not on file at this "
                "station yet (sync, or redeem it at a station that holds it): "
                "not paid",
            )
        amount, redeemed_by, redeemed_at = row
        if redeemed_by:
            raise RuleRefused(
                "VOUCHER",
                f"voucher {number} of {station} was already paid, at "
                f"{redeemed_by} ({redeemed_at[:13]})",
            )
        if format_amount(int(amount)) != checked["amount"]:
            raise RuleRefused(
                "VOUCHER",
                f"voucher {number} of {station} was issued for "
                f"${format_amount(int(amount))}, not ${checked['amount']}",
            )
        receipt = next_receipt_number(st)
        st.append(
            "VoucherRedeemed",
            {
                "voucher_station": station,
                "voucher_number": number,
                "amount": int(amount),
                "by": by.badge,
                "receipt": receipt,
            },
        )
    return {
        "paid": format_amount(int(amount)),
        "voucher": number,
        "station": station,
        "receipt": receipt,
    }
