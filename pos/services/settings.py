"""House rules and the rulebook's settings: hall-wide values kept as events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pos.domain.rulebook import Settings
from pos.errors import BadInput
from pos.ledger.projections import deals as deals_read
from pos.services.inputs import checked_input
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
    stored = deals_read.settings(st.ledger.conn, "house")
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
    st.append("HouseRuleSet", {"key": key, "value": state, "by": by.badge})
    return {"key": key, "value": state}


def rulebook_settings(st: Station) -> Settings:
    stored = deals_read.settings(st.ledger.conn, "rulebook")
    with checked_input("setting"):
        return Settings.from_mapping(stored) if stored else Settings()


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
        st.append("RulebookSettingSet", {"key": key, "value": value, "by": by.badge})
    return {"key": key, "value": value}
