"""Ed25519 keys and certificates (PyNaCl).

A station signs every event it originates; the hall signs each station's certificate, so anyone
holding the hall's public key can check every event of every station.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from nacl.exceptions import BadSignatureError, CryptoError
from nacl.public import SealedBox
from nacl.signing import SigningKey, VerifyKey

from pos.domain.canonical import canonical_json
from pos.errors import BadInput, IntegrityFailure

CERTIFICATE_VERSION = 1


class StationKey:
    """A private signing key (a station's or the hall's)."""

    def __init__(self, signing_key: SigningKey) -> None:
        self._key = signing_key

    @classmethod
    def generate(cls) -> StationKey:
        return cls(SigningKey.generate())

    @classmethod
    def from_hex(cls, text: str) -> StationKey:
        try:
            return cls(SigningKey(bytes.fromhex(text.strip())))
        except (ValueError, TypeError) as exc:
            raise BadInput("key", f"not an Ed25519 private key: {exc}") from None

    def to_hex(self) -> str:
        return bytes(self._key).hex()

    @property
    def public_hex(self) -> str:
        return bytes(self._key.verify_key).hex()

    def sign(self, message: bytes) -> bytes:
        return bytes(self._key.sign(message).signature)

    def unseal(self, sealed_hex: str) -> bytes:
        """Open what `seal_for(this key's public half)` sealed (only this key's holder can)."""
        box = SealedBox(self._key.to_curve25519_private_key())
        try:
            return bytes(box.decrypt(bytes.fromhex(sealed_hex)))
        except (CryptoError, ValueError) as exc:
            raise IntegrityFailure(f"sealed data does not open with this key: {exc}") from None


class PublicKey:
    def __init__(self, hex_key: str) -> None:
        try:
            self._key = VerifyKey(bytes.fromhex(hex_key))
        except (ValueError, TypeError) as exc:
            raise IntegrityFailure(f"not an Ed25519 public key: {hex_key!r} ({exc})") from None
        self.hex = hex_key

    @property
    def raw(self) -> bytes:
        return bytes(self._key)

    def verifies(self, message: bytes, signature: bytes) -> bool:
        try:
            self._key.verify(message, signature)
        except (BadSignatureError, ValueError, TypeError):
            return False
        return True


def seal_for(public_hex: str, plaintext: bytes) -> str:
    """Encrypt to the holder of an Ed25519 key (its Curve25519 twin): for data such as a W-2G
    winner's tax ID, which every station stores but only the hall's manager may read."""
    box = SealedBox(VerifyKey(bytes.fromhex(public_hex)).to_curve25519_public_key())
    return bytes(box.encrypt(plaintext)).hex()


@dataclass(frozen=True)
class Certificate:
    """The hall's signed statement that a station's public key speaks for that station."""

    hall: str
    station: str
    role: str
    key: str
    issued: str
    signature: str

    def statement(self) -> bytes:
        return canonical_json(
            {
                "v": CERTIFICATE_VERSION,
                "hall": self.hall,
                "station": self.station,
                "role": self.role,
                "key": self.key,
                "issued": self.issued,
            }
        ).encode()

    @classmethod
    def issue(
        cls, hall_key: StationKey, *, hall: str, station: str, role: str, key: str, issued: str
    ) -> Certificate:
        unsigned = cls(hall, station, role, key, issued, "")
        return cls(hall, station, role, key, issued, hall_key.sign(unsigned.statement()).hex())

    def is_signed_by(self, hall_public_key: str) -> bool:
        try:
            signature = bytes.fromhex(self.signature)
        except ValueError:
            return False
        return PublicKey(hall_public_key).verifies(self.statement(), signature)

    def to_dict(self) -> dict[str, str]:
        return {
            "hall": self.hall,
            "station": self.station,
            "role": self.role,
            "key": self.key,
            "issued": self.issued,
            "signature": self.signature,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Certificate:
        fields = ("hall", "station", "role", "key", "issued", "signature")
        if not isinstance(data, dict) or not all(isinstance(data.get(f), str) for f in fields):
            raise IntegrityFailure(f"malformed certificate: {json.dumps(data)[:200]}")
        return cls(*(data[f] for f in fields))
