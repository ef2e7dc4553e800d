"""Flares: the interchange form, its parsing and the arithmetic a deal is judged by."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pos.domain.flare import (
    Flare,
    GameType,
    InvalidFlare,
    PrizeTier,
    SealTerms,
    Supplier,
    flare_to_dict,
    load_flare_text,
    parse_flare,
)

from .strategies import flares, json_values


def pull_tab() -> dict[str, Any]:
    return {
        "serial": "A123456",
        "game": "pull-tab",
        "name": "Lucky 7s",
        "form": "LS-4000",
        "manufacturer": "Arrow",
        "tickets": 4000,
        "price": "1.00",
        "prizes": [
            {"amount": "500.00", "count": 1},
            {"amount": "100.00", "count": 2},
            {"amount": "5.00", "count": 100},
        ],
        "supplier": {"name": "Bingo Supply Co", "address": "1 Main St, Richmond VA"},
        "invoice": "INV-1001",
    }


def seal_card() -> dict[str, Any]:
    data = pull_tab()
    data.update(
        serial="S-77",
        game="seal-card",
        seal={"lines": 30, "prize": "250.00", "progressive": False, "hold_tickets": ["013", "113"]},
        sheet_and_seal_present=True,
    )
    return data


TOML_SEAL_CARD = """
serial = "s-77"
game = "seal-card"
name = "Lucky 7s"
form = "LS-4000"
manufacturer = "Arrow"
tickets = 4000
price = "1.00"
invoice = "INV-1001"
sheet_and_seal_present = true

[[prizes]]
amount = "500.00"
count = 1

[[prizes]]
amount = "100.00"
count = 2

[[prizes]]
amount = "5.00"
count = 100

[supplier]
name = "Bingo Supply Co"
address = "1 Main St, Richmond VA"

[seal]
lines = 30
prize = "250.00"
progressive = false
hold_tickets = ["013", "113"]
"""


def test_the_issue_example_parses() -> None:
    flare = parse_flare(pull_tab())
    assert flare == Flare(
        serial="A123456",
        game=GameType.PULL_TAB,
        name="Lucky 7s",
        form="LS-4000",
        manufacturer="Arrow",
        tickets=4000,
        price=100,
        prizes=(PrizeTier(50_000, 1), PrizeTier(10_000, 2), PrizeTier(500, 100)),
        supplier=Supplier("Bingo Supply Co", "1 Main St, Richmond VA"),
        invoice="INV-1001",
    )
    assert flare.ideal_gross == 400_000
    assert flare.total_prizes == 120_000
    assert flare.winners == 103
    assert flare.ideal_net == 280_000


def test_a_seal_card_counts_its_seal_prize() -> None:
    flare = parse_flare(seal_card())
    assert flare.seal == SealTerms(
        lines=30, prize=25_000, progressive=False, hold_tickets=("013", "113")
    )
    assert flare.sheet_and_seal_present
    assert flare.total_prizes == 120_000 + 25_000
    assert flare.winners == 103
    assert flare.ideal_net == 400_000 - 145_000


def test_json_and_toml_give_the_same_flare() -> None:
    from_toml = load_flare_text(TOML_SEAL_CARD, "toml")
    from_json = load_flare_text(json.dumps(seal_card()), "JSON")
    assert from_toml == from_json
    assert from_toml.serial == "S-77"


def test_extra_keys_are_ignored_and_text_is_normalised() -> None:
    data = pull_tab()
    data["colour"] = "red"
    data["prizes"][0]["symbol"] = "777"
    data["serial"] = " a123456 "
    data["name"] = "  Lucky \n 7s "
    data["game"] = "Pull-Tab"
    flare = parse_flare(data)
    assert flare == parse_flare(pull_tab())


def test_optional_flags() -> None:
    data = pull_tab()
    data["tampered"] = True
    assert parse_flare(data).tampered
    assert not parse_flare(pull_tab()).tampered
    assert not parse_flare(pull_tab()).sheet_and_seal_present


def test_shape_only_a_zero_price_and_a_huge_prize_parse() -> None:
    # Zero price, the cap, winners > tickets: the rulebook refuses them, citing a rule.
    data = pull_tab()
    data["price"] = "0.00"
    data["prizes"][0]["amount"] = "2500.00"
    data["tickets"] = 10
    flare = parse_flare(data)
    assert flare.price == 0
    assert flare.winners > flare.tickets


def _set(data: dict[str, Any], path: str, value: Any) -> None:
    keys = path.replace("[", ".").replace("]", "").split(".")
    target: Any = data
    for key in keys[:-1]:
        target = target[int(key)] if key.isdigit() else target[key]
    last = keys[-1]
    if value is _DELETE:
        del target[int(last) if last.isdigit() else last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value


_DELETE = object()

BAD_FIELDS = [
    # (path set, value, field named, words in the message)
    ("serial", _DELETE, "serial", "is missing"),
    ("serial", "", "serial", "is not a serial number"),
    ("serial", "A 1", "serial", "'A 1'"),
    ("serial", "-A1", "serial", "is not a serial number"),
    ("serial", "A" * 33, "serial", "at most 32"),
    ("serial", "ınv1", "serial", "is not a serial number"),  # dotless i upper-cases to I
    ("serial", 123456, "serial", "123456"),
    ("game", "bingo", "game", "'bingo' is not one of pull-tab, seal-card, event"),
    ("game", None, "game", "null"),
    ("name", "", "name", "is empty"),
    ("name", "   ", "name", "is empty"),
    ("name", 7, "name", "7 is not text"),
    ("name", "x" * 121, "name", "longer than 120"),
    ("name", "Lucky\x007s", "name", "control characters"),
    ("form", _DELETE, "form", "is missing"),
    ("manufacturer", ["Arrow"], "manufacturer", "a list is not text"),
    ("tickets", 0, "tickets", "below the smallest allowed, 1"),
    ("tickets", -5, "tickets", "-5"),
    ("tickets", 4000.0, "tickets", "4000.0 is not a count"),
    ("tickets", True, "tickets", "is not a count"),
    ("tickets", "4k", "tickets", "'4k'"),
    ("tickets", 10_000_001, "tickets", "above the largest allowed"),
    ("price", 1.0, "price", "decimal string"),
    ("price", 100, "price", "decimal string"),
    ("price", "1.005", "price", "fraction of a cent"),
    ("price", "-1.00", "price", "negative"),
    ("price", "one", "price", "'one' is not an amount"),
    ("prizes", [], "prizes", "is empty"),
    ("prizes", {"amount": "1.00"}, "prizes", "is not a list"),
    ("prizes[1]", "100.00", "prizes[1]", "'100.00' is not an object"),
    ("prizes[1].amount", "0.00", "prizes[1].amount", "zero"),
    ("prizes[1].amount", "100.001", "prizes[1].amount", "fraction of a cent"),
    ("prizes[1].amount", _DELETE, "prizes[1].amount", "is missing"),
    ("prizes[2].count", 0, "prizes[2].count", "below the smallest allowed"),
    ("prizes[2].count", "many", "prizes[2].count", "'many'"),
    ("supplier", "Bingo Supply Co", "supplier", "is not an object"),
    ("supplier.address", _DELETE, "supplier.address", "is missing"),
    ("supplier.address", "x" * 201, "supplier.address", "longer than 200"),
    ("invoice", "x" * 65, "invoice", "longer than 64"),
    ("invoice", None, "invoice", "null is not text"),
    ("tampered", "yes", "tampered", "'yes' is not true or false"),
    ("tampered", 1, "tampered", "1 is not true or false"),
    ("seal", {"lines": 30}, "seal", "a pull-tab deal has no seal"),
]


@pytest.mark.parametrize(("path", "value", "field", "words"), BAD_FIELDS)
def test_bad_fields_are_named(path: str, value: Any, field: str, words: str) -> None:
    data = pull_tab()
    _set(data, path, value)
    with pytest.raises(InvalidFlare) as caught:
        parse_flare(data)
    assert caught.value.field == field
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"{field}: ")


BAD_SEAL_FIELDS = [
    ("seal", "yes", "seal", "is not an object"),
    ("seal.lines", 0, "seal.lines", "below the smallest allowed"),
    ("seal.lines", 10_001, "seal.lines", "above the largest allowed"),
    ("seal.prize", 250, "seal.prize", "decimal string"),
    ("seal.prize", _DELETE, "seal.prize", "is missing"),
    ("seal.progressive", _DELETE, "seal.progressive", "is missing"),
    ("seal.progressive", "false", "seal.progressive", "not true or false"),
    ("seal.hold_tickets", [], "seal.hold_tickets", "is empty"),
    ("seal.hold_tickets", "013", "seal.hold_tickets", "is not a list"),
    ("seal.hold_tickets[1]", 113, "seal.hold_tickets[1]", "113 is not a ticket number"),
    ("seal.hold_tickets[1]", "013", "seal.hold_tickets[1]", "'013' is listed twice"),
    ("seal.hold_tickets[0]", "0 13", "seal.hold_tickets[0]", "'0 13'"),
    ("sheet_and_seal_present", "true", "sheet_and_seal_present", "not true or false"),
]


@pytest.mark.parametrize(("path", "value", "field", "words"), BAD_SEAL_FIELDS)
def test_bad_seal_fields_are_named(path: str, value: Any, field: str, words: str) -> None:
    data = seal_card()
    _set(data, path, value)
    with pytest.raises(InvalidFlare) as caught:
        parse_flare(data)
    assert caught.value.field == field
    assert words in str(caught.value)


def test_event_games_may_carry_seal_terms_and_null_seal_is_no_seal() -> None:
    data = seal_card()
    data["game"] = "event"
    assert parse_flare(data).seal is not None
    data = pull_tab()
    data["seal"] = None
    assert parse_flare(data).seal is None


@pytest.mark.parametrize(
    ("text", "fmt", "field", "words"),
    [
        ("{", "json", "flare", "JSON text is not valid"),
        ("", "json", "flare", "JSON text is not valid"),
        ("[1, 2]", "json", "flare", "a list is not an object"),
        ('"flare"', "json", "flare", "is not an object"),
        ('{"price": NaN}', "json", "flare", "NaN"),
        ('{"price": Infinity}', "json", "flare", "Infinity"),
        ("[" * 100_000, "json", "flare", "JSON text"),
        ('{"tickets": ' + "1" * 5000 + "}", "json", "flare", "JSON text is not valid"),
        ("serial = ", "toml", "flare", "TOML text is not valid"),
        ("tickets = " + "1" * 5000, "toml", "flare", "TOML text is not valid"),
        ("price = 1.00", "toml", "serial", "is missing"),
        ("{}", "yaml", "format", "'yaml' is not a flare format"),
    ],
)
def test_malformed_text(text: str, fmt: str, field: str, words: str) -> None:
    with pytest.raises(InvalidFlare) as caught:
        load_flare_text(text, fmt)
    assert caught.value.field == field
    assert words in str(caught.value)


def test_a_toml_float_price_is_refused_clearly() -> None:
    text = TOML_SEAL_CARD.replace('price = "1.00"', "price = 1.00")
    with pytest.raises(InvalidFlare, match=r"price: 1.0 is not an amount: give it as a decimal"):
        load_flare_text(text, "toml")


@settings(max_examples=60)
@given(flares())
def test_flare_to_dict_round_trips(flare: Flare) -> None:
    data = flare_to_dict(flare)
    assert parse_flare(data) == flare
    assert parse_flare(json.loads(json.dumps(data))) == flare


@settings(max_examples=60)
@given(flares())
def test_ideal_net_is_gross_less_prizes(flare: Flare) -> None:
    assert flare.ideal_gross == flare.tickets * flare.price
    tiers = sum(tier.amount * tier.count for tier in flare.prizes)
    seal = flare.seal.prize if flare.seal is not None else 0
    assert flare.total_prizes == tiers + seal
    assert flare.ideal_net == flare.ideal_gross - flare.total_prizes
    assert all(isinstance(x, int) for x in (flare.ideal_gross, flare.total_prizes, flare.ideal_net))


@given(json_values)
def test_random_json_only_raises_invalid_flare(value: object) -> None:
    try:
        parse_flare(value)
    except InvalidFlare as exc:
        assert exc.field


def _paths(value: Any, prefix: str = "") -> list[str]:
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            out.append(path)
            out.extend(_paths(item, path))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            path = f"{prefix}[{index}]"
            out.append(path)
            out.extend(_paths(item, path))
    return out


@given(st.data(), st.sampled_from([pull_tab, seal_card]), json_values)
def test_one_field_replaced_by_junk_only_raises_invalid_flare(
    data: st.DataObject, make: Any, junk: object
) -> None:
    flare = make()
    path = data.draw(st.sampled_from(_paths(flare)))
    mutated = copy.deepcopy(flare)
    _set(mutated, path, junk)
    try:
        parse_flare(mutated)
    except InvalidFlare as exc:
        assert exc.field.split(".")[0].split("[")[0] == path.split(".")[0].split("[")[0]


@given(st.text(max_size=200), st.sampled_from(["json", "toml"]))
def test_random_text_only_raises_invalid_flare(text: str, fmt: str) -> None:
    try:
        load_flare_text(text, fmt)
    except InvalidFlare as exc:
        assert exc.field


@given(json_values)
def test_random_json_text_only_raises_invalid_flare(value: object) -> None:
    try:
        text = json.dumps(value)
    except ValueError:
        return
    try:
        load_flare_text(text, "json")
    except InvalidFlare as exc:
        assert exc.field
