"""Receipts of every kind, as the services build them, with QR codes really signed."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from nacl.signing import SigningKey, VerifyKey

from pos.domain import qr_payload
from pos.domain.qr_payload import Payload
from pos.domain.receipt import Line, Receipt

KEY = SigningKey(b"\x07" * 32)  # Ed25519 signatures are deterministic: golden bytes hold
HALL = "h7k2m9q4"
STATION = "booth-1"
ISSUED = datetime(2026, 11, 28, 18, 30, 5, tzinfo=timezone(timedelta(hours=-5)))
ORGANISATION = "Springfield Volunteer Fire Co."
LOCATION = "12 Evergreen Terrace, Springfield"


def sign(message: bytes) -> bytes:
    return bytes(KEY.sign(message).signature)


def qr_for(kind: str, number: int, amount: int) -> str:
    payload = Payload(HALL, STATION, number, kind, abs(amount), int(ISSUED.timestamp()))
    return qr_payload.encode(payload, sign)


def genuine(text: str) -> Payload:
    """The payload of a receipt code, after checking its signature (raises if forged)."""
    payload, message, signature = qr_payload.decode(text)
    VerifyKey(bytes(KEY.verify_key)).verify(message, signature)
    return payload


def _receipt(kind: str, number: int, amount: int | None, **content: object) -> Receipt:
    return Receipt(
        kind=kind,
        organisation=ORGANISATION,
        location=LOCATION,
        station=STATION,
        number=number,
        issued_at=ISSUED,
        operator="S1",
        total=amount,
        qr=qr_for(kind, number, amount or 0),
        **content,  # type: ignore[arg-type]
    )


def sale() -> Receipt:
    return _receipt(
        "sale",
        41,
        2500,
        lines=(
            Line("Lucky 7s (A123456) @ $1.00", qty=5, amount=500),
            Line("Cherry Seal (B777001) @ $2.00", qty=10, amount=2000),
        ),
        fields=(("Buyer", "J.D."),),
    )


def redemption() -> Receipt:
    return _receipt(
        "redemption",
        42,
        10000,
        lines=(Line("Ticket A123456/0815", amount=10000),),
        total_label="PAID",
        headline="PUNCH NOW",
    )


def void() -> Receipt:
    return _receipt(
        "void",
        43,
        -500,
        lines=(Line("Sale #41: 5 x Lucky 7s (A123456)", amount=-500),),
        headline="VOID",
        notes=("Reason: rang up the wrong deal",),
    )


def rental() -> Receipt:
    return _receipt(
        "rental",
        44,
        3000,
        lines=(Line("Device T-07", amount=3000),),
        fields=(
            ("Cards loaded", "12"),
            ("Games", "18"),
            ("Cost", "$30.00"),
            ("Transaction", "2026-11-28 18:30:05"),
        ),
    )


def voucher() -> Receipt:
    return _receipt(
        "voucher",
        45,
        2000,
        lines=(Line("Voucher (kiosk credit)", amount=2000),),
        total_label="VALUE",
        notes=("Redeem once, at any station of this hall.",),
    )


def training_reprint() -> Receipt:
    return _receipt(
        "sale",
        46,
        100,
        lines=(Line("Lucky 7s (A123456) @ $1.00", qty=1, amount=100),),
        training=True,
        reprint=True,
    )


KINDS = {
    "sale": sale,
    "redemption": redemption,
    "void": void,
    "rental": rental,
    "voucher": voucher,
    "training-reprint": training_reprint,
}
