"""Buyers: who is at the counter, from a staff badge, a player card or an ID's barcode.

Only a keyed hash of an ID number, a keyed hash of the person (name and date of birth, for
matching staff), an 18+ flag and initials are stored, never the number or the barcode.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import date
from typing import Any

from pos.domain import identity, names, rulebook
from pos.errors import BadInput
from pos.ledger.projections import hall as hall_read
from pos.ledger.projections import players as players_read
from pos.services import nicknames
from pos.services.inputs import checked_input
from pos.services.settings import rulebook_settings
from pos.services.station import Station


@dataclass(frozen=True)
class Buyer:
    code: str  # what the ledger records: a badge, a card, or "ID:" and a keyed hash
    kind: str  # "staff", "player" or "licence"
    initials: str
    adult: bool
    expired_on: str | None = None
    staff_badge: str | None = None  # the staff member this buyer is, exactly
    near_staff: tuple[str, ...] = ()  # staff who may be this buyer: a manager decides
    near_why: tuple[str, ...] = ()  # why each of near_staff may be this buyer


def _keyed(st: Station, purpose: str, text: str) -> str:
    return hmac.new(st.player_secret(), f"{purpose}|{text}".encode(), hashlib.sha256).hexdigest()


def id_hash(st: Station, id_number: str) -> str:
    return _keyed(st, "id", "".join(ch for ch in id_number.upper() if ch.isalnum()))


# pos.domain.aamva (an ID's barcode) is imported where a buyer or a player is named: a sale with
# no buyer, the most frequent, does not import it.


def _split(full_name: str) -> tuple[str, str]:
    from pos.domain import aamva

    words = aamva.normalise_name(full_name).split()
    if not words:
        return "", ""
    return words[-1], words[0]


def _person_hash(st: Station, key: names.NameKey, date_of_birth: str) -> str:
    return _keyed(st, "person", f"{key[0]}|{key[1]}|{date_of_birth}")


def person_key(st: Station, family: str, given: str, date_of_birth: str) -> str:
    """The keyed hash a player card keeps of its holder: name (as names.canonical_of_parts
    folds it) and date of birth."""
    return _person_hash(st, names.canonical_of_parts(family, given), date_of_birth)


def _staff_person_keys(st: Station, full: str, dob: str) -> set[str]:
    """Every keyed hash a card of this staff member could hold: each way the free-text name
    splits into given and family names, and the key of earlier releases (aamva.name_key)."""
    from pos.domain import aamva

    keys = {_person_hash(st, key, dob) for key in names.card_keys_of_full(full)}
    keys.add(_person_hash(st, aamva.name_key(*_split(full)), dob))
    return keys


def _staff_people(st: Station) -> list[tuple[str, str, str]]:
    """(badge, full name, date of birth) of every staff record with a date of birth."""
    return hall_read.staff_people(st.ledger.conn)


def _initials(name: str) -> str:
    return "".join(part[0].upper() for part in name.split() if part)[:3]


def register_player(
    st: Station,
    *,
    card: str,
    operator: str | None,
    date_of_birth: str | None = None,
    initials: str | None = None,
    name: str | None = None,
    id_number: str | None = None,
    licence: str | None = None,
) -> dict[str, Any]:
    """A player card, registered once at the booth after an ID check (or the ID's barcode)."""
    from pos.domain import aamva

    by = st.operator(operator, "seller", "manager")
    today = st.clock.now().date()
    with checked_input():
        card = identity.badge(card)
    if licence:
        with checked_input("id"):
            parsed = aamva.parse_licence(licence)
        if aamva.is_expired(parsed, today):
            raise BadInput("id", f"the ID expired on {parsed.expiry.isoformat()}")
        dob = parsed.date_of_birth
        family, given = parsed.family_name, parsed.given_names
        with checked_input("id"):
            initials = identity.initials(given[:1] + family[:1])
        id_number = parsed.id_number
    else:
        if not date_of_birth or not initials:
            raise BadInput("dob", "give --dob and --initials, or scan the ID (--licence)")
        with checked_input():
            dob = date.fromisoformat(identity.date_of_birth(date_of_birth, today))
            name = identity.person_name(name) if name else None
            initials = identity.initials(initials)
        family, given = names.canonical_of_full(name) if name and names.words(name) else ("", "")
    adult = rulebook.check_age(dob, today, rulebook_settings(st)).allowed
    with st.ledger.transaction():
        if resolve_buyer(st, card, missing_ok=True) is not None:
            raise BadInput("card", f"{card} is already registered")
        body: dict[str, Any] = {
            "card": card,
            "initials": initials,
            "adult": adult,
            "by": by.badge,
            "checked_on": today.isoformat(),
        }
        if id_number:
            body["id_sha256"] = id_hash(st, id_number)
        if family:
            body["person"] = person_key(st, family, given, dob.isoformat())
            whole = _person_hash(st, names.whole_of_parts(family, given), dob.isoformat())
            if whole != body["person"]:
                body["person_whole"] = whole
        st.append("PlayerRegistered", body)
    return {"card": card, "initials": initials, "adult": adult}


def resolve_buyer(st: Station, code: str, *, missing_ok: bool = False) -> Buyer | None:
    """The buyer a scanned or typed code names: a staff badge, a player card or an ID."""
    code = code.strip()
    row = hall_read.staff_member(st.ledger.conn, code)
    today = st.clock.now().date()
    if row is not None:
        adult = True
        if row[2]:
            adult = rulebook.check_age(
                date.fromisoformat(row[2]), today, rulebook_settings(st)
            ).allowed
        return Buyer(row[0], "staff", _initials(row[1]), adult, staff_badge=row[0])
    card = players_read.player_card(st.ledger.conn, code)
    if card is not None:
        staff = None
        if card.persons:
            staff = next(
                (
                    badge
                    for badge, full, dob in _staff_people(st)
                    if not card.persons.isdisjoint(_staff_person_keys(st, full, dob))
                ),
                None,
            )
        return Buyer(card.card, "player", card.initials, card.adult, staff_badge=staff)
    from pos.domain import aamva

    if aamva.looks_like_licence(code):
        return _licence_buyer(st, code, today)
    if missing_ok:
        return None
    raise BadInput("buyer", f"{code[:40]!r} is neither a staff badge, a player card nor an ID")


def _licence_buyer(st: Station, code: str, today: date) -> Buyer:
    from pos.domain import aamva

    with checked_input("id"):
        licence = aamva.parse_licence(code)
    adult = rulebook.check_age(licence.date_of_birth, today, rulebook_settings(st)).allowed
    exact, near, why = staff_match(
        st, names.keys_of_parts(licence.family_name, licence.given_names), licence.date_of_birth
    )
    return Buyer(
        code="ID:" + id_hash(st, licence.id_number)[:16],
        kind="licence",
        initials="".join(
            ch for ch in licence.given_names[:1] + licence.family_name[:1] if ch.isalpha()
        ).upper(),
        adult=adult,
        expired_on=licence.expiry.isoformat() if aamva.is_expired(licence, today) else None,
        staff_badge=exact,
        near_staff=near,
        near_why=why,
    )


def staff_match(
    st: Station, scanned: set[names.NameKey], born: date
) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """Which staff member a person named `scanned`, born on `born`, is: (the one they are
    exactly, the ones they may be, why each may be). Exact: the same name as people write it
    (names.same_name) and the same date of birth. Near, for a manager: the same date of birth
    and a similar name or a nickname, or the same name and a date of birth one keystroke off."""
    exact, near, why = None, [], []
    for badge, full, dob in _staff_people(st):
        staff_keys = names.keys_of_full(full)
        try:
            staff_born = date.fromisoformat(dob)
        except ValueError:
            continue
        same = names.same_name(staff_keys, scanned)
        if staff_born == born:
            if same:
                exact = badge
            elif names.similar_names(staff_keys, scanned, nicknames.related):
                near.append(badge)
                why.append("same date of birth, similar name or a nickname")
        elif same and names.dob_one_keystroke(staff_born, born):
            near.append(badge)
            why.append("same name, date of birth one keystroke off")
    return exact, tuple(near), tuple(why)
