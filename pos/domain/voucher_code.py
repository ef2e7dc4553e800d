"""The short code printed under a voucher's QR code, for a player whose QR will not scan.

Thirteen characters: twelve drawn from a secret, then one check character, printed in groups
for reading (`K7QX-4RMP-WTAC9`). Typed, the dashes and spaces are optional and lower case is
read as upper case.

- The alphabet has 23 capitals and digits and none of the look-alikes: no 0/O, 1/I/L, 2/Z, 5/S
  or 8/B (both of each pair go, so neither is ever misread as the other), and no G or V (so 6
  and U, which stay, have no twin). 23 is prime, which the check character needs.
- Twelve characters of 23 are 54 bits: guessing one at a kiosk is hopeless.
- The check character makes the weighted sum `1*v1 + 2*v2 + ... + 13*v13` a multiple of 23:
  every single wrong character and every swap of two neighbours changes that sum (the weights
  are distinct and non-zero modulo the prime 23), so a typo reads "that code has a typo", never
  "not found", let alone another voucher.

Pure: the secret is passed in. Booth derives it from the signature its station put on the
voucher's issue (see pos/ledger/projections/receipts.py): only the station's private key makes
it, and every station that synced the issue holds it.
"""

from __future__ import annotations

import hashlib
import hmac

ALPHABET = "34679ACDEFHJKMNPQRTUWXY"
BASE = len(ALPHABET)  # 23, a prime
DATA_LENGTH = 12
LENGTH = DATA_LENGTH + 1
GROUPS = (4, 4, 5)
LOOK_ALIKES = frozenset("0O1IL2Z5S8BGV")
_VALUE = {char: index for index, char in enumerate(ALPHABET)}
_DOMAIN = b"booth voucher code v1"
_SEPARATORS = str.maketrans("", "", " -\u2010\u2011\u2012\u2013\u2014\u2212\t")


class VoucherCodeTypo(ValueError):
    """A typed code that cannot be a voucher's code: a wrong or missing character, or two
    characters swapped. `reason` says which, in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"that code has a typo ({reason})")
        self.reason = reason


def _check_value(values: list[int]) -> int:
    """The check character's value: the weighted sum of all thirteen becomes 0 modulo 23."""
    total = sum(weight * value for weight, value in enumerate(values, start=1))
    # LENGTH * check = -total (mod BASE); pow(LENGTH, -1, BASE) is LENGTH's inverse.
    return (-total * pow(LENGTH, -1, BASE)) % BASE


def _weighted_sum(values: list[int]) -> int:
    return sum(weight * value for weight, value in enumerate(values, start=1)) % BASE


def from_number(number: int) -> str:
    """The code (canonical: thirteen characters, no dashes) of a number below BASE**12."""
    if not 0 <= number < BASE**DATA_LENGTH:
        raise ValueError(f"{number} does not fit in a voucher code")
    values = []
    for _ in range(DATA_LENGTH):
        number, digit = divmod(number, BASE)
        values.append(digit)
    values.reverse()
    values.append(_check_value(values))
    return "".join(ALPHABET[value] for value in values)


def derive(secret: bytes) -> str:
    """The code for a voucher whose secret is `secret` (at least 16 bytes): canonical form."""
    if len(secret) < 16:
        raise ValueError("a voucher code needs a secret of at least 16 bytes")
    digest = hmac.new(secret, _DOMAIN, hashlib.sha256).digest()
    return from_number(int.from_bytes(digest[:16], "big") % BASE**DATA_LENGTH)


def grouped(code: str) -> str:
    """A canonical code as printed, in groups: `K7QX-4RMP-WTAC9`."""
    parts, at = [], 0
    for size in GROUPS:
        parts.append(code[at : at + size])
        at += size
    return "-".join(parts)


def normalise(text: str) -> str:
    """What was typed without dashes and spaces, in capitals (not checked)."""
    return text.translate(_SEPARATORS).upper()


def looks_like_one(text: str) -> bool:
    """Typed text that is meant as a voucher code (checked or not): thirteen letters and
    digits once the dashes and spaces are gone. A scan or a ticket code is something else."""
    code = normalise(text)
    return len(code) == LENGTH and code.isascii() and code.isalnum()


def parse(text: str) -> str:
    """The canonical code typed as `text`; VoucherCodeTypo when it cannot be one."""
    code = normalise(text)
    if len(code) != LENGTH:
        raise VoucherCodeTypo(
            f"it has {len(code)} letters and digits, a voucher's code has {LENGTH}"
        )
    wrong = sorted({char for char in code if char not in _VALUE})
    if wrong:
        verb = "is" if len(wrong) == 1 else "are"
        raise VoucherCodeTypo(f"{', '.join(wrong)} {verb} never in a voucher's code")
    if _weighted_sum([_VALUE[char] for char in code]) != 0:
        raise VoucherCodeTypo("a character is wrong or two are swapped")
    return code
