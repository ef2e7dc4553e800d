"""What this station holds from a newer Booth (pos.domain.newer_release), and the guard that
refuses a function a newer hall-wide setting governs."""

from __future__ import annotations

from dataclasses import fields

from pos.domain.newer_release import (
    Function,
    Holdings,
    NewerEvents,
    NewerSetting,
    cannot_enforce,
)
from pos.domain.rulebook import Settings
from pos.errors import refuse
from pos.ledger.projections import newer as newer_read
from pos.ledger.projections import settings as settings_read
from pos.ledger.projections import signon as signon_read
from pos.services.settings import HOUSE_RULES
from pos.services.station import Station

_RULEBOOK_KEYS = frozenset(item.name for item in fields(Settings))


def holdings(st: Station) -> Holdings:
    conn = st.ledger.conn
    events = [NewerEvents(*row) for row in newer_read.newer_events(conn)]
    newer: list[NewerSetting] = []
    for row in settings_read.stored_settings(conn):
        known = _RULEBOOK_KEYS if row.scope == "rulebook" else frozenset(HOUSE_RULES)
        if row.key not in known:
            newer.append(
                NewerSetting(
                    row.scope,
                    row.key,
                    row.value,
                    row.by,
                    row.governs,
                    row.origin,
                    row.seq,
                    row.hlc,
                )
            )
    from pos.domain.signon import HOUSE_SETTINGS  # read when a hall-wide setting governs

    for house in signon_read.house_setting_rows(conn):
        if house.key not in HOUSE_SETTINGS or not _readable_sign_on(house.key, house.value):
            newer.append(
                NewerSetting(
                    "sign-on",
                    house.key,
                    house.value,
                    house.by,
                    house.governs,
                    house.origin,
                    house.seq,
                    house.hlc,
                )
            )
    return Holdings(st.id, events, newer)


def _readable_sign_on(key: str, value: str) -> bool:
    from pos.domain.signon import InvalidSignOn, house_setting

    try:
        house_setting(key, value)
    except InvalidSignOn:
        return False
    return True


def guard(st: Station, function: Function) -> None:
    """UPGRADE: refuse `function` when a hall-wide setting this release does not know governs
    it. Two small table reads; nothing when the hall holds no such setting."""
    conn = st.ledger.conn
    if settings_read.any_governing(conn) or signon_read.any_governing(conn):
        refuse(cannot_enforce(holdings(st), function))
