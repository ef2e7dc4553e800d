"""The short code under a voucher's QR (pos/domain/voucher_code.py): typed back it reads as
itself, whatever the dashes, spaces and case; every single wrong character and every swap of
two neighbours reads as a typo; no look-alike character is ever printed."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from pos.domain import voucher_code as vc

numbers = hs.integers(min_value=0, max_value=vc.BASE**vc.DATA_LENGTH - 1)
secrets = hs.binary(min_size=16, max_size=64)


def test_the_alphabet_has_no_look_alikes_and_enough_bits() -> None:
    assert not set(vc.ALPHABET) & set("0O1IL2Z5S8B")
    assert not set(vc.ALPHABET) & vc.LOOK_ALIKES
    assert vc.ALPHABET.upper() == vc.ALPHABET and vc.ALPHABET.isalnum()
    assert len(set(vc.ALPHABET)) == vc.BASE == 23
    assert all(vc.BASE % d for d in range(2, vc.BASE))  # prime: the check needs it
    assert vc.DATA_LENGTH * math.log2(vc.BASE) >= 50
    assert 6 <= vc.LENGTH <= 16


@given(numbers)
def test_round_trip(number: int) -> None:
    code = vc.from_number(number)
    assert len(code) == vc.LENGTH
    assert vc.parse(code) == code
    assert vc.parse(vc.grouped(code)) == code


@given(secrets)
def test_derived_codes_are_canonical_and_never_use_a_look_alike(secret: bytes) -> None:
    code = vc.derive(secret)
    assert vc.derive(secret) == code  # the same secret, the same code (reprints)
    assert set(code) <= set(vc.ALPHABET)
    assert not set(code) & vc.LOOK_ALIKES
    assert vc.parse(code) == code
    printed = vc.grouped(code)
    assert printed.count("-") == len(vc.GROUPS) - 1
    assert printed.replace("-", "") == code


@given(numbers, hs.data())
def test_dashes_spaces_and_lower_case_are_read(number: int, data: hs.DataObject) -> None:
    code = vc.from_number(number)
    typed = ""
    for char in code:
        typed += data.draw(hs.sampled_from(["", " ", "-", " - "]))
        typed += char.lower() if data.draw(hs.booleans()) else char
    typed += data.draw(hs.sampled_from(["", " ", "-"]))
    assert vc.looks_like_one(typed)
    assert vc.parse(typed) == code


@given(numbers, hs.integers(min_value=0, max_value=vc.LENGTH - 1), hs.data())
def test_every_single_wrong_character_is_a_typo(number: int, at: int, data: hs.DataObject) -> None:
    code = vc.from_number(number)
    others = [c for c in vc.ALPHABET + "0O1IL2Z5S8BGV" if c != code[at]]
    wrong = data.draw(hs.sampled_from(others))
    with pytest.raises(vc.VoucherCodeTypo, match="that code has a typo"):
        vc.parse(code[:at] + wrong + code[at + 1 :])


@given(numbers)
def test_every_wrong_character_everywhere_exhaustively(number: int) -> None:
    code = vc.from_number(number)
    for at in range(vc.LENGTH):
        for char in vc.ALPHABET:
            if char != code[at]:
                with pytest.raises(vc.VoucherCodeTypo):
                    vc.parse(code[:at] + char + code[at + 1 :])


@given(numbers)
def test_every_swap_of_neighbours_is_a_typo(number: int) -> None:
    code = vc.from_number(number)
    for at in range(vc.LENGTH - 1):
        if code[at] == code[at + 1]:
            continue  # the same character twice: swapping changes nothing
        swapped = code[:at] + code[at + 1] + code[at] + code[at + 2 :]
        with pytest.raises(vc.VoucherCodeTypo, match="wrong or two are swapped"):
            vc.parse(swapped)


@given(numbers)
def test_a_character_missing_or_extra_is_a_typo(number: int) -> None:
    code = vc.from_number(number)
    for at in range(vc.LENGTH):
        with pytest.raises(vc.VoucherCodeTypo, match="a voucher's code has 13"):
            vc.parse(code[:at] + code[at + 1 :])
    with pytest.raises(vc.VoucherCodeTypo):
        vc.parse(code + code[-1])


def test_look_alikes_typed_read_as_a_typo_in_plain_words() -> None:
    code = vc.from_number(123456789)
    with pytest.raises(vc.VoucherCodeTypo) as caught:
        vc.parse("0" + code[1:])
    assert str(caught.value) == "that code has a typo (0 is never in a voucher's code)"
    assert not vc.looks_like_one("B1.hall.kiosk-1.1")  # a QR code's text is something else
    assert not vc.looks_like_one("A100003/0042")  # so is a ticket's


def test_the_code_depends_on_the_secret() -> None:
    assert vc.derive(b"a" * 32) != vc.derive(b"b" * 32)
    with pytest.raises(ValueError):
        vc.derive(b"short")
    with pytest.raises(ValueError):
        vc.from_number(vc.BASE**vc.DATA_LENGTH)
