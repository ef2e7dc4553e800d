"""The QR code on every receipt: a compact, versioned statement signed by its station.

Text form: `B1.<hall>.<station>.<number>.<kind>.<amount>.<time>.<signature>`, fields in
base-36 where they are numbers, the signature (Ed25519, 64 bytes) in base64url. About 140
characters: a version 7 code at level M, legible on a 58 mm printer.

Pure: the signing and checking functions are passed in (the keys live in the ledger layer).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

VERSION = "B1"
KIND_CODES = {
    "sale": "s",
    "redemption": "r",
    "void": "v",
    "rental": "e",
    "voucher": "c",
    "voucher-redeemed": "d",
    "seal-sheet": "h",
    "device-faces": "f",
    "raffle-ticket": "a",
    "test": "t",
}
KINDS_BY_CODE = {code: kind for kind, code in KIND_CODES.items()}
_FIELD = re.compile(r"[a-z0-9-]{1,32}")
_B36 = re.compile(r"[0-9a-z]{1,13}")
MAX_TEXT = 400


class InvalidPayload(ValueError):
    """Not a Booth receipt code at all (garbled, truncated, another format)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"payload: {message}")
        self.field = "payload"


@dataclass(frozen=True)
class Payload:
    hall: str
    station: str
    number: int
    kind: str
    amount: int  # cents
    time: int  # unix seconds

    def signed_text(self) -> str:
        """What the station signs: everything but the signature."""
        return ".".join(
            (
                VERSION,
                self.hall,
                self.station,
                _b36(self.number),
                KIND_CODES[self.kind],
                _b36(self.amount),
                _b36(self.time),
            )
        )


def _b36(value: int) -> str:
    if value < 0:
        raise ValueError(f"{value} cannot go in a receipt code")
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        value, rest = divmod(value, 36)
        text = digits[rest] + text
        if value == 0:
            return text


def encode(payload: Payload, sign: Callable[[bytes], bytes]) -> str:
    message = payload.signed_text()
    signature = base64.urlsafe_b64encode(sign(message.encode())).decode().rstrip("=")
    return f"{message}.{signature}"


def decode(text: str | bytes) -> tuple[Payload, bytes, bytes]:
    """(payload, signed bytes, signature) of a receipt code; checks the shape only."""
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError:
            raise InvalidPayload("not ASCII: not a Booth receipt code") from None
    text = text.strip()
    if not text or len(text) > MAX_TEXT:
        raise InvalidPayload("empty or far too long for a receipt code")
    parts = text.split(".")
    if parts[0] != VERSION:
        raise InvalidPayload(f"{text[:12]!r} is not a Booth receipt code (expected {VERSION}.)")
    if len(parts) != 8:
        raise InvalidPayload("the code is truncated or has extra parts")
    _, hall, station, number, kind, amount, time, signature = parts
    if not (_FIELD.fullmatch(hall) and _FIELD.fullmatch(station)):
        raise InvalidPayload("hall or station is malformed")
    if not all(_B36.fullmatch(value) for value in (number, amount, time)):
        raise InvalidPayload("a number field is malformed")
    if kind not in KINDS_BY_CODE:
        raise InvalidPayload(f"unknown kind code {kind!r}")
    try:
        raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    except (binascii.Error, ValueError):
        raise InvalidPayload("the signature is not base64url") from None
    if len(raw) != 64 or len(signature) != 86:
        raise InvalidPayload("the signature is truncated")
    payload = Payload(
        hall, station, int(number, 36), KINDS_BY_CODE[kind], int(amount, 36), int(time, 36)
    )
    if payload.signed_text() != ".".join(parts[:7]):
        raise InvalidPayload("the code is not in canonical form")
    return payload, ".".join(parts[:7]).encode(), raw
