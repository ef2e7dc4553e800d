"""The front end's own settings, local to this station (not hall-wide, so not in the ledger):
`ui.json` in the station directory.

- `pins`: a PIN that stands for a staff badge at this station's login pad. Kept simple on
  purpose: each PIN is stored as a salted PBKDF2 hash next to its badge, never in clear; the
  badge itself is still what every service checks (roles, rule D). No lockout yet.
- `idle_timeout`: seconds of no touch after which a kiosk forgets its player (default 60).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pos.errors import BadInput
from pos.services.station import write_private

UI_FILE = "ui.json"
DEFAULT_IDLE_TIMEOUT = 60.0
_ROUNDS = 20_000


def _hash(pin: str, salt: str) -> str:
    return hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(salt), _ROUNDS).hex()


@dataclass
class LocalSettings:
    pins: list[dict[str, str]] = field(default_factory=list)
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT

    @classmethod
    def load(cls, directory: Path) -> LocalSettings:
        path = directory / UI_FILE
        if not path.exists():
            return cls()
        try:
            data: dict[str, Any] = json.loads(path.read_text())
            return cls(
                pins=[dict(p) for p in data.get("pins", [])],
                idle_timeout=float(data.get("idle_timeout", DEFAULT_IDLE_TIMEOUT)),
            )
        except (ValueError, TypeError) as exc:
            raise BadInput(str(path), f"the front end's settings are damaged: {exc}") from None

    def save(self, directory: Path) -> None:
        text = json.dumps({"pins": self.pins, "idle_timeout": self.idle_timeout}, indent=2)
        write_private(directory / UI_FILE, text + "\n")

    def set_pin(self, badge: str, pin: str) -> None:
        if not pin.isdigit() or not 4 <= len(pin) <= 8:
            raise BadInput("pin", "a PIN is 4 to 8 digits")
        if self.badge_for_pin(pin) not in (None, badge):
            raise BadInput("pin", "that PIN is already someone else's")
        salt = secrets.token_hex(16)
        self.pins = [p for p in self.pins if p.get("badge") != badge]
        self.pins.append({"badge": badge, "salt": salt, "hash": _hash(pin, salt)})

    def has_pin(self, badge: str) -> bool:
        return any(entry.get("badge") == badge for entry in self.pins)

    def pin_matches(self, badge: str, pin: str) -> bool:
        """Whether `pin` is `badge`'s PIN at this station's pad."""
        return any(
            entry.get("badge") == badge
            and hmac.compare_digest(_hash(pin, entry["salt"]), entry["hash"])
            for entry in self.pins
        )

    def badge_for_pin(self, pin: str) -> str | None:
        for entry in self.pins:
            if hmac.compare_digest(_hash(pin, entry["salt"]), entry["hash"]):
                return entry["badge"]
        return None
