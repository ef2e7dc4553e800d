"""Staff PINs: 4 to 8 digits, kept only as a slow salted hash (scrypt), so a copy of the ledger
(replicated to every station, exported to an inspector) never tells anyone a PIN.

The stored form is self-describing: `scrypt$N$r$p$SALT$HASH` (hex), so the cost can be raised
later without breaking the PINs already set. Pure: hashlib, hmac and secrets only.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

PIN_DIGITS = (4, 8)
# scrypt's cost: 2**14 x 8 x 128 bytes = 16 MiB and ~30-60 ms a check on the target machine
N, R, P = 2**14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
_STORED = re.compile(r"scrypt\$([0-9]+)\$([0-9]+)\$([0-9]+)\$([0-9a-f]{32,128})\$([0-9a-f]{64})")


class InvalidPin(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(f"pin: {message}")
        self.field = "pin"


def check_pin(pin: str) -> str:
    """4 to 8 digits, blanks around it ignored; a PIN of one repeated digit (1111) is refused."""
    value = (pin or "").strip()
    low, high = PIN_DIGITS
    if not value.isascii() or not value.isdigit() or not low <= len(value) <= high:
        raise InvalidPin(f"a PIN is {low} to {high} digits, like 4826")
    if len(set(value)) == 1:
        raise InvalidPin(f"{value[0] * 4}... is guessed first: choose another, like 4826")
    return value


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """The stored form of `pin` (checked first)."""
    value = check_pin(pin)
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(value.encode(), salt=salt, n=N, r=R, p=P, dklen=HASH_BYTES)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def is_stored_form(text: object) -> bool:
    return isinstance(text, str) and _STORED.fullmatch(text) is not None


def verify_pin(pin: str, stored: str) -> bool:
    """True when `pin` is the PIN `stored` was made from (compared in constant time)."""
    matched = _STORED.fullmatch(stored or "")
    if matched is None:
        return False
    n, r, p = (int(matched.group(i)) for i in (1, 2, 3))
    if n > 2**20 or r > 32 or p > 16:  # a body from elsewhere does not get to burn our CPU
        return False
    salt, expected = bytes.fromhex(matched.group(4)), bytes.fromhex(matched.group(5))
    value = (pin or "").strip()
    if not value.isascii() or not value.isdigit():
        return False
    digest = hashlib.scrypt(value.encode(), salt=salt, n=n, r=r, p=p, dklen=len(expected))
    return hmac.compare_digest(digest, expected)
