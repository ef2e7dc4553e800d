"""Vouchers: a receipt with a value, issued for cash (booth) or a credit (kiosk), paid once."""

from __future__ import annotations

from dataclasses import dataclass, field

from pos.domain import qr_payload, voucher_code
from pos.domain.checks import vouchers as voucher_checks
from pos.domain.money import CENTS, OPTIONAL_CENTS, format_amount
from pos.domain.typed import parse_typed_amount
from pos.errors import BadInput, IntegrityFailure, RuleRefused, refuse
from pos.ledger.projections import receipts as receipts_read
from pos.ledger.projections.prizes import voucher_prize
from pos.services.inputs import checked_input
from pos.services.money_path import prize_unpaid, session_if_any
from pos.services.numbering import next_receipt_number
from pos.services.station import Station


@dataclass(frozen=True)
class VoucherIssued:
    """A voucher issued: its number (its receipt's), the station, its value in cents, and the
    short code printed under its QR (grouped, as printed) for typing where the QR will not
    scan."""

    voucher: int
    station: str
    amount: int = field(metadata=CENTS)
    code: str = ""


@dataclass(frozen=True)
class VoucherPaid:
    """A voucher paid out, once: its value in cents, which voucher, and the payout's receipt."""

    paid: int = field(metadata=CENTS)
    voucher: int = 0
    station: str = ""
    receipt: int = 0


def issue_voucher(st: Station, amount: str, *, reason: str, operator: str | None) -> VoucherIssued:
    by = st.operator(operator, "seller")
    with checked_input("amount"):
        cents = parse_typed_amount(amount, "amount")
    with st.ledger.transaction():
        session_if_any(st)
        number = next_receipt_number(st)
        st.append(
            "VoucherIssued", {"amount": cents, "reason": reason, "by": by.badge, "receipt": number}
        )
    return VoucherIssued(number, st.id, cents, printed_code(st, st.id, number))


def printed_code(st: Station, station: str, number: int) -> str:
    """The short code printed under voucher `number` of `station`'s QR, grouped as printed;
    "" when that voucher is not on file here."""
    code = receipts_read.voucher_code_of(st.ledger.conn, station, number)
    return voucher_code.grouped(code) if code else ""


def issue_credit_voucher(st: Station, cents: int, *, reason: str) -> int:
    """Inside a kiosk's command: a voucher for the player's credit (a dispenser shortfall)."""
    number = next_receipt_number(st)
    st.append("VoucherIssued", {"amount": cents, "reason": reason, "by": None, "receipt": number})
    return number


def checked_voucher(st: Station, code: str) -> tuple[str, int, str]:
    """A voucher's QR code, verified (genuine, of this hall), or the short code printed under
    it, typed: (station, number, amount it shows). Outside any transaction: verifying reads
    keys only, a typed code the vouchers on file."""
    if not _is_qr(code):
        return typed_voucher(st, code)
    from pos.services.receipts import verify_payload  # how receipts are made: for a QR only

    checked = verify_payload(st, code)
    if checked["kind"] != "voucher":
        raise BadInput("voucher", f"the code is a {checked['kind']} receipt, not a voucher")
    return str(checked["station"]), int(checked["number"]), str(checked["amount"])


def _is_qr(code: str) -> bool:
    """A receipt's QR text (scanned) rather than a short code typed."""
    return code.strip().startswith(qr_payload.VERSION + ".")


def is_scanned(code: str) -> bool:
    """`code` is a receipt's QR text, scanned (not a short code typed)."""
    return _is_qr(code)


def looks_like_voucher(code: str) -> bool:
    """A voucher's QR text or its short code typed, by shape alone (nothing checked yet): for
    a screen that takes tickets and vouchers both."""
    if not _is_qr(code):
        return voucher_code.looks_like_one(code)
    try:
        payload, _, _ = qr_payload.decode(code)
    except qr_payload.InvalidPayload:
        return False
    return payload.kind == "voucher"


def typed_voucher(st: Station, typed: str) -> tuple[str, int, str]:
    """The voucher whose short code (printed under its QR) was typed: (station, number, the
    amount on file). BadInput when the code has a typo (its check character says so); refused
    (VOUCHER) when no voucher on file here has it: another hall's, made up, or not synced yet."""
    try:
        code = voucher_code.parse(typed)
    except voucher_code.VoucherCodeTypo as exc:
        raise BadInput("voucher", f"{exc}: check it and try again") from None
    found = receipts_read.vouchers_with_code(st.ledger.conn, code)
    refuse(voucher_checks.typed_code_on_file(voucher_code.grouped(code), len(found)))
    station, number = found[0]
    held = receipts_read.voucher(st.ledger.conn, station, number)
    assert held is not None
    return station, number, format_amount(held.amount)


#: What a voucher shown at a screen is, before anything is paid (VoucherStatus.state).
STATES = (
    "payable",
    "typo",
    "unreadable",
    "not-a-voucher",
    "other-hall",
    "not-here",
    "used",
    "refused",
)


@dataclass(frozen=True)
class VoucherStatus:
    """A voucher's QR or typed short code, read before anything is paid, so a screen can say
    in plain words what is wrong and where to go: `state` one of STATES (`typo`: a short code
    mistyped; `unreadable`: a QR code garbled; `not-a-voucher`: another receipt's QR;
    `other-hall`: signed elsewhere, or forged; `not-here`: no voucher on file here has it, made
    up or not synced yet; `used`: paid already; `refused`: another refusal, `reason` says
    which), its value when on file. The payment checks everything again, in its own
    transaction."""

    state: str
    amount: int | None = field(default=None, metadata=OPTIONAL_CENTS)
    reason: str = ""


def voucher_status(st: Station, code: str) -> VoucherStatus:
    """What `code` (a voucher's QR text, or its short code typed) is here, reading only."""
    try:
        station, number, printed = checked_voucher(st, code)
    except BadInput as error:
        if not _is_qr(code):
            return VoucherStatus("typo", reason=error.message)
        state = "not-a-voucher" if error.field == "voucher" else "unreadable"
        return VoucherStatus(state, reason=error.message)
    except IntegrityFailure as error:
        return VoucherStatus("other-hall", reason=error.message)
    except RuleRefused as error:
        return VoucherStatus("not-here", reason=error.message)
    held = receipts_read.voucher(st.ledger.conn, station, number)
    if held is None:
        return VoucherStatus(
            "not-here", reason=f"voucher {number} of {station} is not on file here"
        )
    if held.redeemed_by:
        return VoucherStatus(
            "used", int(held.amount), f"voucher {number} of {station} was already paid"
        )
    refusal = voucher_checks.payable(
        station,
        number,
        printed=printed,
        amount=int(held.amount),
        redeemed_by=None,
        redeemed_hlc=None,
        time_zone=st.hall.time_zone,
    )
    if refusal is not None:
        return VoucherStatus("refused", int(held.amount), refusal.message)
    return VoucherStatus("payable", int(held.amount))


def voucher_amount_on_file(st: Station, station: str, number: int, printed: str) -> int:
    """Inside the command's transaction: the amount of a voucher on file here and not yet paid,
    issued for the amount it shows. Refused (VOUCHER) otherwise."""
    prize_unpaid(st, voucher_prize(station, number), f"voucher {number} of {station}")
    held = receipts_read.voucher(st.ledger.conn, station, number)
    refuse(
        voucher_checks.payable(
            station,
            number,
            printed=printed,
            amount=int(held.amount) if held else None,
            redeemed_by=held.redeemed_by if held else None,
            redeemed_hlc=held.redeemed_hlc if held else None,
            time_zone=st.hall.time_zone,
        )
    )
    assert held is not None
    return int(held.amount)


def redeem_voucher(st: Station, code: str, *, operator: str | None) -> VoucherPaid:
    """Pay a voucher from its QR code or its typed short code, once. Refused when it is already
    paid, not on file here (it cannot be checked, so it is not paid), or of another amount than
    was issued; a typed code with a typo is BadInput."""
    by = st.operator(operator, "seller", "redeemer")
    station, number, printed = checked_voucher(st, code)
    with st.ledger.transaction():
        session_if_any(st)
        amount = voucher_amount_on_file(st, station, number, printed)
        receipt = next_receipt_number(st)
        st.append(
            "VoucherRedeemed",
            {
                "voucher_station": station,
                "voucher_number": number,
                "amount": amount,
                "by": by.badge,
                "receipt": receipt,
            },
        )
    return VoucherPaid(amount, number, station, receipt)
