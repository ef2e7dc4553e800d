"""Staff PINs: a slow hash (scrypt), kept in the ledger as `scrypt$N$r$p$SALT$HASH` (hex), and
checked in constant time. A PIN is 4 to 12 digits."""

from __future__ import annotations

import hashlib
import hmac
import secrets

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MIN_DIGITS, MAX_DIGITS = 4, 12


class InvalidPin(ValueError):
    """A PIN that is not 4 to 12 digits."""


def checked_pin(pin: str) -> str:
    if not (pin.isascii() and pin.isdigit() and MIN_DIGITS <= len(pin) <= MAX_DIGITS):
        raise InvalidPin(
            f"a PIN is {MIN_DIGITS} to {MAX_DIGITS} digits (got {len(pin)} characters)"
        )
    return pin


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32)


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """The stored form of a PIN: `scrypt$N$r$p$SALT$HASH`."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = _scrypt(checked_pin(pin), salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_pin(pin: str, stored: str | None) -> bool:
    """Whether `pin` is the PIN behind `stored` (False for no PIN set, or a damaged hash)."""
    if not stored:
        return False
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        return False
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, expected = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
        if not (2 <= n <= 2**20 and 1 <= r <= 32 and 1 <= p <= 16):
            return False
        got = _scrypt(pin, salt, n, r, p)
    except ValueError:
        return False
    return hmac.compare_digest(got, expected)
