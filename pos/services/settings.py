"""House rules and the rulebook's settings: hall-wide values kept as events."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from pos.domain.rulebook import Settings
from pos.errors import BadInput
from pos.ledger.projections import settings as settings_read
from pos.services.current_session import hall_date
from pos.services.inputs import KB, checked_input, read_input_text
from pos.services.station import Station


@dataclass(frozen=True)
class HouseRule:
    key: str
    default: bool
    meaning: str


HOUSE_RULES = {
    rule.key: rule
    for rule in (
        HouseRule(
            "commingling",
            False,
            "the posted house rules disclose that unsold pull-tabs of one deal may be mixed with "
            "one additional deal (rule C3)",
        ),
        HouseRule("kiosk-pull-tab-sales", False, "kiosks may sell pull-tabs from their dispenser"),
        HouseRule("buyer-id-required", False, "the booth asks every buyer for a player card or ID"),
    )
}

_TRUE = {"on", "yes", "true", "1"}
_FALSE = {"off", "no", "false", "0"}


def _switch(key: str, value: str) -> bool:
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise BadInput(key, f"{value!r} is not on or off")


def house_rules(st: Station) -> dict[str, bool]:
    stored = settings_read.settings(st.ledger.conn, "house")
    return {
        key: (stored[key] == "on") if key in stored else rule.default
        for key, rule in HOUSE_RULES.items()
    }


def house_rule(st: Station, key: str) -> bool:
    return house_rules(st)[key]


def set_house_rule(st: Station, key: str, value: str, *, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    if key not in HOUSE_RULES:
        raise BadInput("key", f"{key!r} is not a house rule; known: {', '.join(HOUSE_RULES)}")
    state = "on" if _switch(key, value) else "off"
    st.append("HouseRuleSet", {"key": key, "value": state, "by": by.badge, "governs": ["money"]})
    return {"key": key, "value": state}


HOUSE_TEXT_MAX = 4000  # characters of one posted rule
_HOUSE_KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def post_house_rule(
    st: Station,
    key: str,
    *,
    text: str | None = None,
    file: Path | None = None,
    operator: str | None,
) -> dict[str, Any]:
    """Post a house rule (rule A): text the hall writes, under a key (e.g. `conduct`,
    `commingling`); each posting is a new version, dated the hall's day it was posted
    (HouseRulePosted). Every version stays on the record."""
    by = st.operator(operator, "manager")
    name = key.strip().lower()
    if not _HOUSE_KEY.fullmatch(name):
        raise BadInput("key", f"{key!r} is not a house rule key (a-z, 0-9 and -, at most 64)")
    if (text is None) == (file is None):
        raise BadInput("text", "give the rule's text with --text TEXT or --file FILE")
    if file is not None:
        text = read_input_text(file, "file", limit=16 * KB)
    body = (text or "").replace("\r\n", "\n").strip()
    if not body:
        raise BadInput("text", "the house rule's text is empty")
    if len(body) > HOUSE_TEXT_MAX:
        raise BadInput("text", f"is {len(body):,} characters (at most {HOUSE_TEXT_MAX:,})")
    with st.ledger.transaction():
        posted_on = hall_date(st, st.clock.now()).isoformat()
        st.append(
            "HouseRulePosted", {"key": name, "text": body, "posted_on": posted_on, "by": by.badge}
        )
        versions = [r for r in posted_house_rules(st, every_version=True) if r["key"] == name]
    return versions[-1]


def posted_house_rules(st: Station, *, every_version: bool = False) -> list[dict[str, Any]]:
    """The posted house rules: the current version of each (by key), or every version."""
    rows = settings_read.posted_house_rules(st.ledger.conn)
    if every_version:
        return rows
    current = {row["key"]: row for row in rows}
    return [current[key] for key in sorted(current)]


def house_sheet(st: Station) -> dict[str, Any]:
    """What the printable house-rules sheet shows: the hall, the posted rules (current
    versions) and the switches with what each means."""
    switches = house_rules(st)
    return {
        "organisation": st.hall.organisation,
        "location": st.hall.location,
        "training": st.hall.training,
        "printed_on": hall_date(st, st.clock.now()).isoformat(),
        "rules": posted_house_rules(st),
        "switches": [
            {"key": key, "on": value, "meaning": HOUSE_RULES[key].meaning}
            for key, value in switches.items()
        ],
    }


_RULEBOOK_KEYS = frozenset(item.name for item in fields(Settings))


def rulebook_settings(st: Station) -> Settings:
    """The rulebook as the log sets it. A setting only a newer release knows is left out here
    (pos.services.newer_release shows it and guards what it governs)."""
    stored = settings_read.settings(st.ledger.conn, "rulebook")
    known = {key: value for key, value in stored.items() if key in _RULEBOOK_KEYS}
    with checked_input("setting"):
        return Settings.from_mapping(known) if known else Settings()


def set_rulebook_setting(
    st: Station, key: str, value: str, *, operator: str | None
) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with st.ledger.transaction():
        current = rulebook_settings(st).to_mapping()
        if key not in current:
            raise BadInput("key", f"{key!r} is not a rulebook setting; known: {', '.join(current)}")
        with checked_input("setting"):
            Settings.from_mapping({**current, key: value})
        st.append(
            "RulebookSettingSet",
            {"key": key, "value": value, "by": by.badge, "governs": ["money"]},
        )
    return {"key": key, "value": value}
