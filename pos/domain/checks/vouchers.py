"""Vouchers (VOUCHER): paid once, for the amount they were issued for, only where their issue
is on file (elsewhere it cannot be checked, so it is not paid)."""

from __future__ import annotations

from pos.domain.checks import Refusal
from pos.domain.hlc import local_minute
from pos.domain.money import format_amount


def payable(
    station: str,
    number: int,
    *,
    printed: str,
    amount: int | None,
    redeemed_by: str | None,
    redeemed_hlc: str | None,
    time_zone: str,
) -> Refusal | None:
    """Voucher `number` of `station`, showing `printed` (a decimal string): on file here
    (`amount` issued, None: not on file), not paid (`redeemed_by`, at `redeemed_hlc`), and
    issued for what it shows."""
    if amount is None:
        return Refusal(
            "VOUCHER",
            f"voucher {number} of {station} is not on file at this "
            "station yet (sync, or redeem it at a station that holds it): "
            "not paid",
        )
    if redeemed_by:
        return Refusal(
            "VOUCHER",
            f"voucher {number} of {station} was already paid, by {redeemed_by} at "
            f"{local_minute(redeemed_hlc or '', time_zone)}",
        )
    if format_amount(amount) != printed:
        return Refusal(
            "VOUCHER",
            f"voucher {number} of {station} was issued for "
            f"${format_amount(amount)}, not ${printed}",
        )
    return None


def typed_code_on_file(code: str, found: int) -> Refusal | None:
    """A voucher's short code typed (well formed, `code` as printed), of which `found` vouchers
    on file here have it: exactly one pays. None on file: it is no voucher of this hall, or
    one not synced here yet; it is not paid."""
    if found == 0:
        return Refusal(
            "VOUCHER",
            f"no voucher of this hall on file here has the code {code}: not paid (a voucher "
            "issued elsewhere pays once the stations have synced)",
        )
    if found > 1:
        return Refusal(
            "VOUCHER",
            f"{found} vouchers on file have the code {code}: scan its QR code instead",
        )
    return None
