"""Buyers: staff badges and player cards, and the checks a sale makes of them.

Only a keyed hash of an ID number, an 18+ flag and initials are stored, never the number itself.
The staff purchase block (rule D) plugs in here (`BUYER_CHECKS`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from pos.domain import identity, rulebook
from pos.domain.rulebook import Decision
from pos.errors import BadInput
from pos.services.inputs import checked_input
from pos.services.settings import rulebook_settings
from pos.services.station import Station


@dataclass(frozen=True)
class Buyer:
    code: str
    kind: str  # "staff" or "player"
    initials: str
    adult: bool
    date_of_birth: str | None = None


BuyerCheck = Callable[[Station, Buyer, str], Decision]
BUYER_CHECKS: list[BuyerCheck] = []  # rule D and friends register here


def id_hash(st: Station, id_number: str) -> str:
    normalised = "".join(ch for ch in id_number.upper() if ch.isalnum())
    return hmac.new(st.player_secret(), normalised.encode(), hashlib.sha256).hexdigest()


def _initials(name: str) -> str:
    return "".join(part[0].upper() for part in name.split() if part)[:3]


def register_player(
    st: Station,
    *,
    card: str,
    date_of_birth: str,
    initials: str,
    id_number: str | None,
    operator: str | None,
) -> dict[str, Any]:
    by = st.operator(operator, "seller", "manager")
    today = st.clock.now().date()
    with checked_input():
        card = identity.badge(card)
        dob = date.fromisoformat(identity.date_of_birth(date_of_birth, today))
    clean_initials = "".join(ch for ch in initials.upper() if ch.isalpha())[:3]
    if not clean_initials:
        raise BadInput("initials", f"{initials!r} holds no letters")
    adult = rulebook.check_age(dob, today, rulebook_settings(st)).allowed
    with st.ledger.transaction():
        if resolve_buyer(st, card, missing_ok=True) is not None:
            raise BadInput("card", f"{card} is already registered")
        body: dict[str, Any] = {
            "card": card,
            "initials": clean_initials,
            "adult": adult,
            "by": by.badge,
            "checked_on": today.isoformat(),
        }
        if id_number:
            body["id_sha256"] = id_hash(st, id_number)
        st.append("PlayerRegistered", body)
    return {"card": card, "initials": clean_initials, "adult": adult}


def resolve_buyer(st: Station, code: str, *, missing_ok: bool = False) -> Buyer | None:
    code = code.strip()
    row = st.ledger.conn.execute(
        "SELECT badge, name, date_of_birth FROM p_staff WHERE badge = ?", (code,)
    ).fetchone()
    if row is not None:
        adult = True
        if row[2]:
            adult = rulebook.check_age(
                date.fromisoformat(row[2]), st.clock.now().date(), rulebook_settings(st)
            ).allowed
        return Buyer(row[0], "staff", _initials(row[1]), adult, row[2])
    row = st.ledger.conn.execute(
        "SELECT card, initials, adult FROM p_players WHERE card = ?", (code,)
    ).fetchone()
    if row is not None:
        return Buyer(row[0], "player", row[1], bool(row[2]))
    if missing_ok:
        return None
    raise BadInput("buyer", f"{code!r} is neither a staff badge nor a registered player card")


def check_buyer(st: Station, buyer: Buyer, serial: str) -> Decision:
    if not buyer.adult:
        settings = rulebook_settings(st)
        return Decision.refuse(
            "AGE",
            f"buyer {buyer.initials} is under {settings.minimum_age}: no sale, play or redemption",
        )
    for check in BUYER_CHECKS:
        decision = check(st, buyer, serial)
        if not decision.allowed:
            return decision
    return Decision.allow()
