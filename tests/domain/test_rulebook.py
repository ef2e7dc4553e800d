"""The rulebook: rules and citations, settings, and every check."""

from __future__ import annotations

import dataclasses
import json
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos.domain.flare import Flare, GameType, PrizeTier, SealTerms, Supplier
from pos.domain.rulebook import (
    RULES,
    Decision,
    InvalidSetting,
    Settings,
    Verdict,
    age_on,
    check_age,
    check_bin,
    check_intake,
    check_quantity,
    check_sale_price,
    claim_deadline_for_seal,
    keep_until,
    rules_table,
)

VA = Settings()
PULL, SEAL, EVENT = GameType.PULL_TAB, GameType.SEAL_CARD, GameType.EVENT

LUCKY = Flare(
    serial="A123456",
    game=PULL,
    name="Lucky 7s",
    form="LS-4000",
    manufacturer="Arrow",
    tickets=4000,
    price=100,
    prizes=(PrizeTier(50_000, 1), PrizeTier(10_000, 2), PrizeTier(500, 100)),
    supplier=Supplier("Bingo Supply Co", "1 Main St, Richmond VA"),
    invoice="INV-1001",
)
SEAL_TERMS = SealTerms(lines=30, prize=25_000, progressive=False, hold_tickets=("013", "113"))
SEALED = dataclasses.replace(
    LUCKY, serial="S-77", game=SEAL, seal=SEAL_TERMS, sheet_and_seal_present=True
)


# -- the rules table -------------------------------------------------------------------------------

REQUIRED = [
    "C1",
    "C2",
    "C3",
    "C4",
    "C5",
    "C6",
    "B",
    "K2",
    "K3",
    "K5",
    "AGE",
    "D",
    "E1c",
    "E1d",
    "E1g",
    "DEAL",
]
NEVER_OVERRIDABLE = ["K3", "AGE", "C3", "C1", "C5", "K2", "E1c"]


def test_every_rule_the_brief_names_is_there() -> None:
    assert set(REQUIRED) <= set(RULES)
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id
        assert rule.citation and rule.sentence.endswith(".")


@pytest.mark.parametrize("rule_id", NEVER_OVERRIDABLE)
def test_never_overridable(rule_id: str) -> None:
    assert RULES[rule_id].overridable is False


@pytest.mark.parametrize("rule_id", ["C2", "C4", "C6", "B", "K5", "D", "E1d", "E1g"])
def test_overridable_by_a_manager(rule_id: str) -> None:
    assert RULES[rule_id].overridable is True


def test_citations_point_at_the_rules_text() -> None:
    assert RULES["C3"].citation == "11VAC15-40-60 C 3"
    assert "§ 18.2-340.33" in RULES["K3"].citation
    assert "§ 18.2-340.28 C" in RULES["AGE"].citation
    assert RULES["E1c"].citation == "11VAC15-40-60 E 1 c"


def test_rules_table_lists_settings_with_values() -> None:
    hall = Settings(prize_cap=150_000, commingle_additional_deals=0)
    table = {row["id"]: row for row in rules_table(hall)}
    assert list(table) == list(RULES)
    assert table["K3"]["settings"] == {"prize_cap": "1500.00"}
    assert table["C3"]["settings"] == {"commingle_additional_deals": 0}
    assert table["AGE"]["settings"] == {"minimum_age": 18}
    assert table["C1"]["overridable"] is False
    assert set(table["B"]) == {"id", "citation", "sentence", "overridable", "settings"}
    json.dumps(rules_table(VA))  # the `booth rules --json` payload is plain JSON


def test_every_rule_setting_is_a_setting() -> None:
    names = set(Settings().to_mapping())
    for rule in RULES.values():
        assert set(rule.settings) <= names


# -- settings --------------------------------------------------------------------------------------


def test_virginia_defaults() -> None:
    assert VA.to_mapping() == {
        "prize_cap": "2000.00",
        "minimum_age": 18,
        "worker_minimum_age": 14,  # 11VAC20-20-60 E: 14 through 17 with consent
        "operator_minimum_age": 18,  # 11VAC20-20-60 E: management or operation of bingo
        "seal_claim_days": 30,
        "progressive_carry_days": 30,
        "commingle_additional_deals": 1,
        "retention_years": 3,
        "fiscal_year_start_month": 1,
        "fiscal_year_start_day": 1,
        "w2g_threshold": "2000.00",
        "w2g_multiple": 300,
        "max_faces_per_game": 54,
        "regular_prize_limit": "100.00",
        "special_prize_limit": "200.00",
        "special_prize_games": 10,
        "jackpot_prize_limit": "1000.00",
        "jackpot_daily_limit": "1000.00",
        "progressive_prize_limit": "5000.00",
        "progressive_increase_limit": "200.00",
        "progressive_games_per_session": 6,
        "deposit_business_days": 2,
        "electronic_deposit_days": 7,
        "holiday_calendar": "virginia",
        "audit_fee_basis_points": 50,
        "audit_fee_additional_basis_points": 25,
    }


def test_from_mapping_reads_what_people_type() -> None:
    hall = Settings.from_mapping(
        {"prize-cap": "1500", "minimum_age": "21", "fiscal_year_start_month": 7}
    )
    assert hall.prize_cap == 150_000
    assert hall.minimum_age == 21
    assert hall.fiscal_year_start_month == 7
    assert hall.seal_claim_days == 30
    assert Settings.from_mapping({}) == VA


@pytest.mark.parametrize(
    ("mapping", "field", "words"),
    [
        ({"prize_cap": "0"}, "prize_cap", "zero"),
        ({"prize_cap": 2000}, "prize_cap", "decimal string"),
        ({"prize_cap": "2000.005"}, "prize_cap", "fraction of a cent"),
        ({"prize_cap": "1000000.01"}, "prize_cap", "above the largest"),
        ({"minimum_age": "15"}, "minimum_age", "below the smallest allowed, 16"),
        ({"minimum_age": True}, "minimum_age", "not a count"),
        ({"minimum_age": "18.5"}, "minimum_age", "'18.5'"),
        ({"commingle_additional_deals": "-1"}, "commingle_additional_deals", "'-1'"),
        ({"fiscal_year_start_month": 13}, "fiscal_year_start_month", "13"),
        (
            {"fiscal_year_start_month": 2, "fiscal_year_start_day": 29},
            "fiscal_year_start_day",
            "29 is not a day of month 2",
        ),
        (
            {"fiscal_year_start_month": 4, "fiscal_year_start_day": 31},
            "fiscal_year_start_day",
            "31 is not a day of month 4",
        ),
        ({"jackpot": "5"}, "jackpot", "is not a setting"),
    ],
)
def test_from_mapping_refuses(mapping: dict[str, object], field: str, words: str) -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings.from_mapping(mapping)
    assert caught.value.field == field
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_settings_validate_when_built_directly() -> None:
    with pytest.raises(InvalidSetting, match=r"prize_cap: \$0.00 is outside"):
        Settings(prize_cap=0)
    with pytest.raises(InvalidSetting, match="not a whole number"):
        Settings(retention_years=True)


settings_values = st.builds(
    Settings,
    prize_cap=st.integers(1, 100_000_000),
    minimum_age=st.integers(16, 99),
    seal_claim_days=st.integers(1, 3650),
    progressive_carry_days=st.integers(1, 3650),
    commingle_additional_deals=st.integers(0, 9),
    retention_years=st.integers(1, 99),
    fiscal_year_start_month=st.integers(1, 12),
    fiscal_year_start_day=st.integers(1, 28),
    w2g_threshold=st.integers(1, 100_000_000),
    w2g_multiple=st.integers(1, 100_000),
    max_faces_per_game=st.integers(1, 1000),
)


@given(settings_values)
def test_settings_round_trip(hall: Settings) -> None:
    assert Settings.from_mapping(hall.to_mapping()) == hall
    assert Settings.from_mapping(json.loads(json.dumps(hall.to_mapping()))) == hall


# -- decisions -------------------------------------------------------------------------------------


def test_decision_constructors() -> None:
    assert Decision.allow().allowed
    assert Decision.allow().rule is None
    refused = Decision.refuse("K3", "too big")
    assert not refused.allowed and refused.verdict is Verdict.REFUSED
    assert refused.citation == RULES["K3"].citation
    override = Decision.needs_override("D", "worked today")
    assert override.verdict is Verdict.NEEDS_OVERRIDE and not override.allowed
    assert override.to_dict()["verdict"] == "needs-override"


# -- intake ----------------------------------------------------------------------------------------


def _r(flare: Flare, **changes: object) -> Flare:
    return dataclasses.replace(flare, **changes)  # type: ignore[arg-type]


INTAKE = [
    # (flare, known serials, rule, words in the message)
    (LUCKY, {"B1"}, None, ""),
    (SEALED, set(), None, ""),
    (_r(SEALED, game=EVENT, sheet_and_seal_present=False), set(), None, ""),  # K 4
    (_r(LUCKY, game=EVENT), set(), None, ""),
    (_r(LUCKY, prizes=(PrizeTier(200_000, 1),)), set(), None, ""),  # exactly the cap
    (_r(LUCKY, prizes=(PrizeTier(1, 4000),)), set(), None, ""),  # every ticket wins
    (LUCKY, {"A123456"}, "DEAL", "serial number A123456 was already taken in"),
    (LUCKY, {"a123456"}, "DEAL", "already taken in"),
    (_r(LUCKY, tampered=True), set(), None, ""),  # on record, never in play (C1)
    (_r(SEALED, sheet_and_seal_present=False), set(), "C5", "sign-up sheet, seal and cards"),
    (_r(SEALED, seal=None), set(), "C5", "has no seal terms"),
    (_r(LUCKY, price=0), set(), "DEAL", "price of $0.00"),
    (
        _r(LUCKY, prizes=(PrizeTier(100, 1), PrizeTier(250_000, 1))),
        set(),
        "K3",
        "a $2,500.00 prize (tier 2 of the flare) is above the $2,000.00 cap per ticket",
    ),
    (_r(LUCKY, game=EVENT, prizes=(PrizeTier(200_001, 1),)), set(), "K3", "$2,000.01 prize"),
    (
        _r(SEALED, seal=dataclasses.replace(SEAL_TERMS, prize=300_000)),
        set(),
        "K3",
        "a $3,000.00 seal prize is above the $2,000.00 cap per ticket",
    ),
    (
        _r(LUCKY, tickets=100),
        set(),
        "DEAL",
        "the flare lists 103 winners but deal A123456 has only 100 tickets",
    ),
    # the first failing rule wins, in the documented order
    (_r(LUCKY, tampered=True, price=0), {"A123456"}, "DEAL", "already taken in"),
    (_r(SEALED, tampered=True, seal=None), set(), "C5", "seal terms"),
    (_r(SEALED, seal=None, price=0), set(), "C5", "seal terms"),
    (_r(LUCKY, price=0, prizes=(PrizeTier(900_000, 1),)), set(), "DEAL", "price"),
    (_r(LUCKY, tickets=1, prizes=(PrizeTier(900_000, 2),)), set(), "K3", "$9,000.00"),
]


@pytest.mark.parametrize(("flare", "known", "rule", "words"), INTAKE)
def test_check_intake(flare: Flare, known: set[str], rule: str | None, words: str) -> None:
    decision = check_intake(flare, VA, known_serials=frozenset(known))
    assert decision.rule == rule
    if rule is None:
        assert decision == Decision.allow()
    else:
        assert decision.verdict is Verdict.REFUSED
        assert words in decision.message


def test_intake_uses_the_halls_cap() -> None:
    strict = Settings(prize_cap=40_000)
    decision = check_intake(LUCKY, strict, known_serials=frozenset())
    assert decision.rule == "K3"
    assert "a $500.00 prize (tier 1 of the flare) is above the $400.00 cap" in decision.message


# -- bins (C3) -------------------------------------------------------------------------------------

BINS = [
    # (holding, adding, commingling, allowed, words)
    ([], PULL, False, True, ""),
    ([], SEAL, False, True, ""),
    ([], EVENT, True, True, ""),
    ([PULL], PULL, True, True, ""),
    ([PULL], PULL, False, False, "house rules do not disclose commingling"),
    ([PULL, PULL], PULL, True, False, "at most 2 deal(s)"),
    ([PULL], SEAL, True, False, "a seal card deal never shares a bin"),
    ([SEAL], PULL, True, False, "a seal card deal never shares a bin"),
    ([SEAL], SEAL, True, False, "seal card"),
    ([PULL], EVENT, True, False, "an event game deal never shares a bin"),
    ([EVENT], PULL, True, False, "event game"),
    ([EVENT], EVENT, True, False, "event game"),
]


@pytest.mark.parametrize(("holding", "adding", "commingling", "allowed", "words"), BINS)
def test_check_bin(
    holding: list[GameType], adding: GameType, commingling: bool, allowed: bool, words: str
) -> None:
    decision = check_bin(holding, adding, commingling=commingling, settings=VA)
    assert decision.allowed is allowed
    if not allowed:
        assert decision.rule == "C3"
        assert decision.verdict is Verdict.REFUSED
        assert words in decision.message


def test_check_bin_follows_the_commingling_setting() -> None:
    none = Settings(commingle_additional_deals=0)
    decision = check_bin([PULL], PULL, commingling=True, settings=none)
    assert decision.rule == "C3" and "at most 1 deal(s)" in decision.message
    two = Settings(commingle_additional_deals=2)
    assert check_bin([PULL, PULL], PULL, commingling=True, settings=two).allowed
    assert check_bin((PULL,), PULL, commingling=True, settings=VA).allowed  # any Sequence


# -- sale price (K2) and quantity ------------------------------------------------------------------

PRICES = [
    (LUCKY, 100, None, ""),
    (_r(LUCKY, game=EVENT), 100, None, ""),
    (
        _r(LUCKY, game=EVENT),
        200,
        "K2",
        "event game tickets of deal A123456 sell only at the flare's price of $1.00, not $2.00",
    ),
    (_r(LUCKY, game=EVENT), 0, "K2", "not $0.00"),
    (LUCKY, 50, "DEAL", "sell at the flare's price of $1.00, not $0.50"),
    (SEALED, 101, "DEAL", "not $1.01"),
]


@pytest.mark.parametrize(("flare", "price", "rule", "words"), PRICES)
def test_check_sale_price(flare: Flare, price: int, rule: str | None, words: str) -> None:
    decision = check_sale_price(flare, price)
    assert decision.rule == rule
    assert decision.allowed is (rule is None)
    if rule:
        assert decision.verdict is Verdict.REFUSED
        assert words in decision.message


QUANTITIES = [
    (10, 1, True, ""),
    (10, 10, True, ""),
    (10, 11, False, "only 10 tickets remain in this deal; 11 cannot be sold"),
    (1, 2, False, "only 1 ticket remain"),
    (0, 1, False, "no tickets remain in this deal; 1 ticket cannot be sold"),
    (10, 0, False, "a sale is at least 1 ticket, not 0"),
    (10, -4, False, "not -4"),
    (4000, 1_000_000, False, "only 4,000 tickets remain in this deal; 1,000,000 cannot"),
]


@pytest.mark.parametrize(("remaining", "qty", "allowed", "words"), QUANTITIES)
def test_check_quantity(remaining: int, qty: int, allowed: bool, words: str) -> None:
    decision = check_quantity(remaining, qty)
    assert decision.allowed is allowed
    if not allowed:
        assert decision.rule == "DEAL" and decision.verdict is Verdict.REFUSED
        assert words in decision.message


@given(st.integers(-5, 100), st.integers(-5, 100))
def test_check_quantity_allows_exactly_what_remains(remaining: int, qty: int) -> None:
    assert check_quantity(remaining, qty).allowed is (1 <= qty <= remaining)


# -- age -------------------------------------------------------------------------------------------

AGES = [
    # (born, on, allowed, words)
    (date(2008, 11, 28), date(2026, 11, 28), True, ""),  # 18th birthday
    (date(2008, 11, 29), date(2026, 11, 28), False, "the buyer is 17 on 2026-11-28"),
    (date(1950, 1, 1), date(2026, 11, 28), True, ""),
    (date(2008, 2, 29), date(2026, 2, 28), False, "17"),  # no 29 February in 2026
    (date(2008, 2, 29), date(2026, 3, 1), True, ""),
    (date(2012, 2, 29), date(2030, 2, 28), False, "17"),
    (date(2012, 2, 29), date(2030, 3, 1), True, ""),
    (date(2010, 2, 28), date(2028, 2, 28), True, ""),
    (date(2010, 3, 1), date(2028, 2, 29), False, "17"),  # leap day before the birthday
    (date(2026, 11, 28), date(2026, 11, 28), False, "the buyer is 0"),
    (date(2027, 1, 1), date(2026, 11, 28), False, "after 2026-11-28"),
]


@pytest.mark.parametrize(("born", "on", "allowed", "words"), AGES)
def test_check_age(born: date, on: date, allowed: bool, words: str) -> None:
    decision = check_age(born, on, VA)
    assert decision.allowed is allowed
    if not allowed:
        assert decision.rule == "AGE" and decision.verdict is Verdict.REFUSED
        assert words in decision.message
        assert "under 18" in decision.message or "18 or older" in decision.message
        if born != on:
            assert born.isoformat() not in decision.message  # the date of birth is never echoed


def test_check_age_uses_the_halls_minimum() -> None:
    decision = check_age(date(2006, 1, 1), date(2026, 1, 1), Settings(minimum_age=21))
    assert decision.rule == "AGE" and "the buyer is 20" in decision.message
    assert "no one under 21" in decision.message
    assert check_age(date(2006, 1, 1), date(2026, 1, 1), VA).allowed
    assert check_age(date(2005, 1, 1), date(2026, 1, 1), Settings(minimum_age=21)).allowed


@given(st.dates(date(1900, 1, 1), date(2100, 12, 31)), st.integers(0, 120))
def test_age_on_birthdays(born: date, years: int) -> None:
    year = born.year + years
    try:
        birthday = born.replace(year=year)
    except ValueError:  # 29 February in a common year: the birthday is 1 March
        birthday = date(year, 3, 1)
    assert age_on(born, birthday) == years
    if birthday > born:
        assert age_on(born, date.fromordinal(birthday.toordinal() - 1)) == years - 1


# -- retention (C4) and claim windows (B) ----------------------------------------------------------

KEEP = [
    # (fiscal year start (month, day), closed on, keep until)
    ((1, 1), date(2026, 5, 10), date(2029, 12, 31)),
    ((1, 1), date(2026, 1, 1), date(2029, 12, 31)),
    ((1, 1), date(2026, 12, 31), date(2029, 12, 31)),
    ((7, 1), date(2026, 5, 10), date(2029, 6, 30)),
    ((7, 1), date(2026, 6, 30), date(2029, 6, 30)),
    ((7, 1), date(2026, 7, 1), date(2030, 6, 30)),
    ((3, 1), date(2027, 6, 1), date(2031, 2, 28)),  # the fiscal year ends 29 February 2028
    ((3, 1), date(2024, 2, 29), date(2027, 2, 28)),
    ((10, 15), date(2026, 10, 14), date(2029, 10, 14)),
]


@pytest.mark.parametrize(("start", "closed", "until"), KEEP)
def test_keep_until(start: tuple[int, int], closed: date, until: date) -> None:
    hall = Settings(fiscal_year_start_month=start[0], fiscal_year_start_day=start[1])
    assert keep_until(closed, hall) == until


def test_keep_until_follows_retention_years() -> None:
    assert keep_until(date(2026, 5, 10), Settings(retention_years=5)) == date(2031, 12, 31)


@given(st.dates(date(1990, 1, 1), date(2090, 12, 31)), settings_values)
def test_keep_until_is_after_the_close_and_ends_a_fiscal_year(closed: date, hall: Settings) -> None:
    until = keep_until(closed, hall)
    assert until > closed
    following = date.fromordinal(until.toordinal() + 1)
    assert (following.month, following.day) == (
        hall.fiscal_year_start_month,
        hall.fiscal_year_start_day,
    )
    assert hall.retention_years <= until.year - closed.year <= hall.retention_years + 1


@pytest.mark.parametrize(
    ("closed", "days", "deadline"),
    [
        (date(2026, 11, 28), 30, date(2026, 12, 28)),
        (date(2026, 2, 1), 30, date(2026, 3, 3)),
        (date(2028, 2, 1), 30, date(2028, 3, 2)),
        (date(2026, 12, 15), 30, date(2027, 1, 14)),
        (date(2026, 12, 15), 7, date(2026, 12, 22)),
    ],
)
def test_claim_deadline_for_seal(closed: date, days: int, deadline: date) -> None:
    assert claim_deadline_for_seal(closed, Settings(seal_claim_days=days)) == deadline
