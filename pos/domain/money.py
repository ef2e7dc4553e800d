"""Money in integer cents, and counts of tickets: parsing what people type, formatting it back.

Amounts in the interchange format are decimal strings ("1.00", "500", "0.25"); nothing here ever
touches a float. `format_amount` is the exact inverse of `parse_amount` for every valid amount.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

MAX_AMOUNT = 100_000_000  # cents: $1,000,000.00, far above any prize or price a hall handles
MAX_COUNT = 10_000_000

_AMOUNT = re.compile(r"([0-9]+)(?:\.([0-9]+))?", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_MAX_TEXT = 40  # longer text is never a valid amount or count; keeps messages and int() small


class InvalidAmount(ValueError):
    """An amount of money (or a count) that cannot be accepted; `.field` names the input."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


class InvalidCount(InvalidAmount):
    """A ticket count or quantity that cannot be accepted (a kind of InvalidAmount)."""


def _shown(value: object) -> str:
    if isinstance(value, int) and value.bit_length() > 128:
        return "a number of more than 38 digits"  # repr() of a huge int can itself fail
    if value is None:
        return "nothing (null)"
    if not isinstance(value, str | int | float):
        if isinstance(value, dict):
            return "an object"
        return "a list" if isinstance(value, list | tuple) else f"a {type(value).__name__}"
    text = repr(value)
    return text if len(text) <= _MAX_TEXT + 2 else text[:_MAX_TEXT] + "…"


def parse_amount(
    text: str | int,
    field: str = "amount",
    *,
    allow_zero: bool = False,
    maximum: int = MAX_AMOUNT,
) -> int:
    """A decimal string of dollars ("12.50", "500", "0.25") -> integer cents.

    Refused: anything but a str (ints and floats are ambiguous: dollars or cents?), empty text,
    signs, exponents, NaN/inf, thousands separators, currency signs, fractions of a cent, zero
    (unless `allow_zero`) and more than `maximum` cents. Surrounding blanks are ignored; trailing
    zeros after the cents ("1.500") are exact and accepted.
    """
    if isinstance(text, bool) or not isinstance(text, str):
        raise InvalidAmount(
            field,
            f"{_shown(text)} is not an amount: give it as a decimal string of dollars, "
            'like "12.50"',
        )
    value = text.strip()
    if not value:
        raise InvalidAmount(field, "is empty: give an amount of dollars, like 12.50")
    if len(value) > _MAX_TEXT:
        raise InvalidAmount(field, f"{_shown(text)} is not an amount (too long)")
    if value.startswith("-") and _AMOUNT.fullmatch(value[1:]):
        raise InvalidAmount(field, f"{_shown(text)} is negative; amounts are never below zero")
    match = _AMOUNT.fullmatch(value)
    if match is None:
        raise InvalidAmount(
            field, f"{_shown(text)} is not an amount (digits with at most two decimals, like 12.50)"
        )
    whole, fraction = match.group(1), match.group(2) or ""
    if len(fraction) > 2:
        if fraction[2:].strip("0"):
            raise InvalidAmount(
                field, f"{_shown(text)} has a fraction of a cent; use at most two decimals"
            )
        fraction = fraction[:2]
    cents = int(whole) * 100 + int(fraction.ljust(2, "0"))
    if cents == 0 and not allow_zero:
        raise InvalidAmount(field, f"{_shown(text)} is zero; give an amount above $0.00")
    if cents > maximum:
        raise InvalidAmount(
            field, f"{_shown(text)} is above the largest amount accepted, {format_money(maximum)}"
        )
    return cents


def format_amount(cents: int) -> str:
    """Integer cents -> "1234.50" (no currency sign, no separators; '-' when negative)."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}{dollars}.{rest:02d}"


def amount_cents(text: str) -> int:
    """An amount as Booth itself writes it (format_amount: "12.50", "-5.00") -> integer cents.
    For Booth's own figures only (service results, stored program amounts): what a person types
    goes through parse_amount, which refuses what this does not expect. Exact: "1.5" is 150."""
    value = text.strip()
    sign = -1 if value.startswith("-") else 1
    match = _AMOUNT.fullmatch(value.removeprefix("-"))
    if match is None or len((match.group(2) or "").rstrip("0")) > 2:
        raise InvalidAmount("amount", f"{_shown(text)} is not an amount Booth writes")
    whole, fraction = match.group(1), (match.group(2) or "")[:2]
    return sign * (int(whole) * 100 + int(fraction.ljust(2, "0")))


def dollars(text: str) -> str:
    """An amount as Booth writes it ("-1020.00") -> as people read it ("-$1,020.00")."""
    return format_money(amount_cents(text))


#: Metadata of a dataclass field holding integer cents (`field(metadata=CENTS)`): the front
#: ends' edge (the CLI's JSON) writes it as an amount ("12.50"), a list of cents as a list.
CENTS: Mapping[str, bool] = MappingProxyType({"cents": True})
#: ... of a field that is None where it does not apply, and then left out of the JSON.
OPTIONAL: Mapping[str, bool] = MappingProxyType({"optional": True})
OPTIONAL_CENTS: Mapping[str, bool] = MappingProxyType({"cents": True, "optional": True})


def format_money(cents: int) -> str:
    """Integer cents -> "$1,234.50" for people ("-$5.00" when negative)."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


def parse_count(
    value: object,
    field: str,
    *,
    minimum: int = 1,
    maximum: int = MAX_COUNT,
) -> int:
    """A ticket count or quantity: an int, or a string of digits ("40"), within the bounds.

    Refused: bools, floats (even 4.0), signs, blanks inside, non-ASCII digits, empty text.
    Raises InvalidCount (a subclass of InvalidAmount).
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidCount(field, f"{_shown(value)} is not a count (a whole number like 40)")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise InvalidCount(field, "is empty: give a whole number like 40")
        if len(text) > _MAX_TEXT or not _DIGITS.fullmatch(text):
            raise InvalidCount(field, f"{_shown(value)} is not a count (digits only, like 40)")
        number = int(text)
    else:
        number = value
    if number < minimum:
        raise InvalidCount(field, f"{_shown(value)} is below the smallest allowed, {minimum:,}")
    if number > maximum:
        raise InvalidCount(field, f"{_shown(value)} is above the largest allowed, {maximum:,}")
    return number


def json_form(value: Any) -> Any:
    """A typed result as a front end's JSON says it (the CLI's, a scan's): a dataclass as an
    object, its CENTS fields as amounts ("12.50"), an OPTIONAL field left out when None. The
    front ends format money here, and nowhere before."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for item in dataclasses.fields(value):
            found = getattr(value, item.name)
            if found is None and item.metadata.get("optional"):
                continue
            out[item.name] = _amounts(found) if item.metadata.get("cents") else json_form(found)
        return out
    if isinstance(value, list | tuple):
        return [json_form(v) for v in value]
    if isinstance(value, dict):
        return {k: json_form(v) for k, v in value.items()}
    return value


def _amounts(cents: int | list[int] | None) -> str | list[str] | None:
    if cents is None:
        return None
    return [format_amount(c) for c in cents] if isinstance(cents, list) else format_amount(cents)
