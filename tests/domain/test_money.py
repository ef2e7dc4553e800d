"""Money in integer cents: parsing, formatting, counts."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos.domain.money import (
    MAX_AMOUNT,
    InvalidAmount,
    InvalidCount,
    amount_cents,
    dollars,
    format_amount,
    format_money,
    parse_amount,
    parse_count,
)

from .strategies import json_values


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("1.00", 100),
        ("500", 50_000),
        ("0.25", 25),
        ("12.5", 1250),
        ("  7.05 ", 705),
        ("1.500", 150),
        ("0001.10", 110),
        ("1000000", 100_000_000),
    ],
)
def test_parse_amount_accepts_decimal_dollars(text: str, cents: int) -> None:
    assert parse_amount(text) == cents


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("1.005", "fraction of a cent"),
        ("0.001", "fraction of a cent"),
        ("-1.00", "negative"),
        ("0", "zero"),
        ("0.00", "zero"),
        ("1000000.01", "above the largest amount accepted, $1,000,000.00"),
        ("abc", "is not an amount"),
        ("NaN", "is not an amount"),
        ("inf", "is not an amount"),
        ("-inf", "is not an amount"),
        ("1e3", "is not an amount"),
        ("1E3", "is not an amount"),
        ("", "is empty"),
        ("   ", "is empty"),
        ("$5", "is not an amount"),
        ("1,000.00", "is not an amount"),
        ("+1", "is not an amount"),
        (".50", "is not an amount"),
        ("5.", "is not an amount"),
        ("1 000", "is not an amount"),
        ("١٢", "is not an amount"),  # Arabic-Indic digits
        ("9" * 500, "too long"),
        (5, "decimal string"),
        (1.5, "decimal string"),
        (True, "decimal string"),
        (None, "decimal string"),
    ],
)
def test_parse_amount_refuses_with_the_value_and_field(value: object, words: str) -> None:
    with pytest.raises(InvalidAmount) as caught:
        parse_amount(value, "price")  # type: ignore[arg-type]
    assert caught.value.field == "price"
    assert words in str(caught.value)
    assert str(caught.value).startswith("price: ")
    if isinstance(value, str) and value.strip() and len(value) < 40:
        assert repr(value) in str(caught.value)


def test_parse_amount_zero_and_maximum_are_options() -> None:
    assert parse_amount("0.00", allow_zero=True) == 0
    assert parse_amount("20.00", maximum=2000) == 2000
    with pytest.raises(InvalidAmount, match=r"\$20\.00"):
        parse_amount("20.01", maximum=2000)


def test_amount_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        parse_amount("x")
    with pytest.raises(InvalidAmount):
        parse_count("x", "qty")


@pytest.mark.parametrize(
    ("cents", "amount", "money"),
    [
        (0, "0.00", "$0.00"),
        (5, "0.05", "$0.05"),
        (100, "1.00", "$1.00"),
        (123450, "1234.50", "$1,234.50"),
        (100_000_000, "1000000.00", "$1,000,000.00"),
        (-250, "-2.50", "-$2.50"),
    ],
)
def test_formatting(cents: int, amount: str, money: str) -> None:
    assert format_amount(cents) == amount
    assert format_money(cents) == money


@given(st.integers(min_value=1, max_value=MAX_AMOUNT))
def test_format_amount_is_the_inverse_of_parse_amount(cents: int) -> None:
    assert parse_amount(format_amount(cents)) == cents


@given(st.decimals(min_value=0, max_value=1_000_000, places=2, allow_nan=False))
def test_parse_amount_agrees_with_decimal_arithmetic(value: Decimal) -> None:
    text = format(value, "f")
    assert parse_amount(text, allow_zero=True) == int(value * 100)


@given(st.lists(st.integers(min_value=1, max_value=MAX_AMOUNT), max_size=50))
def test_money_sums_in_integer_cents(amounts: list[int]) -> None:
    parsed = [parse_amount(format_amount(cents)) for cents in amounts]
    total = sum(parsed)
    assert isinstance(total, int)
    assert total == sum(amounts)
    assert Decimal(format_amount(total)) == sum(
        (Decimal(format_amount(c)) for c in amounts), Decimal(0)
    )


@given(st.text(max_size=30) | json_values)
def test_parse_amount_only_ever_raises_invalid_amount(value: object) -> None:
    try:
        cents = parse_amount(value)  # type: ignore[arg-type]
    except InvalidAmount as exc:
        assert exc.field == "amount"
    else:
        assert isinstance(cents, int)
        assert 0 < cents <= MAX_AMOUNT


@pytest.mark.parametrize(("value", "count"), [(1, 1), (40, 40), ("40", 40), (" 7 ", 7), ("007", 7)])
def test_parse_count_accepts(value: object, count: int) -> None:
    assert parse_count(value, "qty") == count


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0, "below the smallest allowed, 1"),
        (-3, "below"),
        ("-3", "digits only"),
        ("+3", "digits only"),
        ("3.0", "digits only"),
        ("1e3", "digits only"),
        ("", "is empty"),
        ("٣", "digits only"),
        (True, "not a count"),
        (False, "not a count"),
        (3.0, "not a count"),
        (None, "not a count"),
        ([3], "a list"),
        (10_000_001, "above the largest allowed, 10,000,000"),
    ],
)
def test_parse_count_refuses(value: object, words: str) -> None:
    with pytest.raises(InvalidCount) as caught:
        parse_count(value, "qty")
    assert caught.value.field == "qty"
    assert words in str(caught.value)


def test_parse_count_refuses_a_huge_int_without_failing_to_print_it() -> None:
    with pytest.raises(InvalidCount, match="more than 38 digits"):
        parse_count(10**5000, "qty")


def test_parse_count_bounds_are_options() -> None:
    assert parse_count("0", "unsold", minimum=0) == 0
    with pytest.raises(InvalidCount, match="above the largest allowed, 12"):
        parse_count(13, "qty", maximum=12)


@given(json_values | st.text(max_size=30))
def test_parse_count_only_ever_raises_invalid_count(value: object) -> None:
    try:
        number = parse_count(value, "qty")
    except InvalidCount as exc:
        assert exc.field == "qty"
    else:
        assert 1 <= number <= 10_000_000


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_booths_own_amounts_read_back_exactly_and_read_as_dollars(cents: int) -> None:
    """amount_cents is the inverse of format_amount, signs included; dollars is format_money of
    it, thousands separator included (the private copies it replaced dropped it)."""
    assert amount_cents(format_amount(cents)) == cents
    assert dollars(format_amount(cents)) == format_money(cents)


@pytest.mark.parametrize(
    ("text", "cents"), [("1.5", 150), ("-12.50", -1250), ("500", 50_000), ("0.05", 5)]
)
def test_a_short_fraction_is_tenths_not_cents(text: str, cents: int) -> None:
    assert amount_cents(text) == cents  # two private copies read "1.5" as 105 cents


@pytest.mark.parametrize("text", ["", "1,000.00", "$5.00", "1.005", "abc", "--5"])
def test_what_booth_never_writes_is_refused(text: str) -> None:
    with pytest.raises(InvalidAmount):
        amount_cents(text)
