"""Rule D's name and date-of-birth matching (pos/domain/names.py): the tables in tests/data and
properties over name variants (hypothesis)."""

from __future__ import annotations

import csv
import unicodedata
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pos.domain import names
from pos.services import nicknames

DATA = Path(__file__).parent.parent / "data"


def _table(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _match(staff_name: str, family: str, given_names: str) -> str:
    staff, scanned = names.keys_of_full(staff_name), names.keys_of_parts(family, given_names)
    if names.same_name(staff, scanned):
        return "exact"
    if names.similar_names(staff, scanned, nicknames.related):
        return "near"
    return "none"


NAME_ROWS = _table("name_matches.csv")


@pytest.mark.parametrize("row", NAME_ROWS, ids=[row["why"] for row in NAME_ROWS])
def test_the_name_table(row: dict[str, str]) -> None:
    assert _match(row["staff_name"], row["family"], row["given"]) == row["match"]


DOB_ROWS = _table("dob_keystrokes.csv")


@pytest.mark.parametrize("row", DOB_ROWS, ids=[row["why"] for row in DOB_ROWS])
def test_the_date_of_birth_table(row: dict[str, str]) -> None:
    staff = date.fromisoformat(row["staff_dob"])
    try:
        scanned = date.fromisoformat(row["scanned_dob"])
    except ValueError:
        assert row["near"] == "no"
        return
    assert names.dob_one_keystroke(staff, scanned) is (row["near"] == "yes")
    assert names.dob_one_keystroke(scanned, staff) is (row["near"] == "yes")


def test_nicknames_come_from_the_data_set() -> None:
    for a, b in (("bob", "robert"), ("bill", "william"), ("peggy", "margaret")):
        assert nicknames.related(a, b) and nicknames.related(b, a)
    assert not nicknames.related("robert", "margaret")
    assert not nicknames.related("robert", "robert")


# --- properties ----------------------------------------------------------------------------------

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9).filter(
    lambda w: w not in {"jr", "sr", "ii", "iii", "iv"}
)
_ACCENTED = {"a": "áàâä", "e": "éèêë", "i": "íî", "o": "óôö", "u": "úûü", "n": "ñ", "c": "ç"}


@st.composite
def _written(
    draw: st.DrawFn, parts: list[str], joiners: tuple[str, ...] = ("-", " ", "", "‐")
) -> str:
    """One name of one or more parts as a person might write it: each part's case, accents,
    an apostrophe inside it, and the parts joined by a hyphen, a space or nothing."""
    out = []
    for part in parts:
        letters = []
        for ch in part:
            if ch in _ACCENTED and draw(st.booleans()):
                ch = draw(st.sampled_from(_ACCENTED[ch]))
            letters.append(ch.upper() if draw(st.booleans()) else ch)
        word = "".join(letters)
        if len(word) > 2 and draw(st.integers(0, 3)) == 0:
            cut = draw(st.integers(1, len(word) - 1))
            word = word[:cut] + draw(st.sampled_from("'’")) + word[cut:]
        out.append(word)
    joined = out[0]
    for word in out[1:]:
        joined += draw(st.sampled_from(joiners)) + word
    return joined


@settings(max_examples=100, deadline=None)
@given(st.data(), st.lists(_WORD, min_size=1, max_size=2), st.lists(_WORD, min_size=1, max_size=2))
def test_spellings_of_one_name_are_one_name(
    data: st.DataObject, given_parts: list[str], family_parts: list[str]
) -> None:
    """Hyphens, spaces, apostrophes, case and accents never make two spellings of a name two
    names: a roster's free text, a licence's fields, and the staff list's, all ways round."""
    staff = data.draw(_written(given_parts)) + " " + data.draw(_written(family_parts))
    family, given_names = data.draw(_written(family_parts)), data.draw(_written(given_parts))
    other = data.draw(_written(given_parts)) + " " + data.draw(_written(family_parts))
    scanned = names.keys_of_parts(family, given_names)
    assert names.same_name(names.keys_of_full(staff), scanned), (staff, family, given_names)
    assert names.same_name(names.keys_of_full(staff), names.keys_of_full(other))

    # A player card keeps one key of a name (a keyed hash): found from every spelling that
    # writes the parts of a double name apart (a fused "Maryann" is a name of its own there).
    def apart(parts: list[str]) -> str:
        return data.draw(_written(parts, ("-", " ", "‐")))

    split_given, split_family = apart(given_parts), apart(family_parts)
    stored = names.card_keys_of_full(f"{apart(given_parts)} {apart(family_parts)}")
    assert names.canonical_of_full(f"{split_given} {split_family}") in stored
    assert names.canonical_of_parts(split_family, split_given) in stored
    assert names.similar_names(names.keys_of_full(staff), scanned)


@settings(max_examples=100, deadline=None)
@given(_WORD, _WORD, _WORD, _WORD)
def test_different_names_are_not_the_same(a: str, b: str, c: str, d: str) -> None:
    """Names whose folded letters differ never match exactly."""
    if a + b == c + d:
        return
    first, second = names.keys_of_parts(b, a), names.keys_of_parts(d, c)
    assert names.same_name(first, second) is (first == second)
    assert not names.same_name(names.keys_of_full(f"{a} {b}"), names.keys_of_full(f"{c} {d}"))


@settings(max_examples=100, deadline=None)
@given(_WORD, _WORD, st.data())
def test_one_keystroke_in_a_name_is_near(given_name: str, family: str, data: st.DataObject) -> None:
    """A letter typed wrong, dropped or doubled in each part is a near match, never an exact one
    unless the letters come out the same."""
    where = data.draw(st.integers(0, len(family) - 1))
    typo = family[:where] + data.draw(st.sampled_from("xyz")) + family[where + 1 :]
    staff = names.keys_of_full(f"{given_name} {family}")
    scanned = names.keys_of_parts(typo, given_name[:-1] if len(given_name) > 2 else given_name)
    assert names.similar_names(staff, scanned)
    assert names.same_name(staff, scanned) is (typo == family and len(given_name) <= 2)


@st.composite
def _dob(draw: st.DrawFn) -> date:
    return draw(st.dates(min_value=date(1900, 1, 1), max_value=date(2010, 12, 31)))


@settings(max_examples=100, deadline=None)
@given(_dob(), st.integers(0, 7), st.integers(0, 9))
def test_one_digit_wrong_is_near(born: date, index: int, digit: int) -> None:
    text = list(born.strftime("%Y%m%d"))
    text[index] = str(digit)
    try:
        typed = date(int("".join(text[:4])), int("".join(text[4:6])), int("".join(text[6:])))
    except ValueError:
        return
    assert names.dob_one_keystroke(born, typed) is (typed != born)


@settings(max_examples=100, deadline=None)
@given(_dob(), st.integers(0, 7), st.integers(0, 7))
def test_two_digits_swapped_is_near(born: date, i: int, j: int) -> None:
    text = list(born.strftime("%Y%m%d"))
    text[i], text[j] = text[j], text[i]
    try:
        typed = date(int("".join(text[:4])), int("".join(text[4:6])), int("".join(text[6:])))
    except ValueError:
        return
    assert names.dob_one_keystroke(born, typed) is (typed != born)


@settings(max_examples=100, deadline=None)
@given(_dob(), st.integers(2, 4000))
def test_a_date_far_off_is_not_near(born: date, days: int) -> None:
    other = born + timedelta(days=days)
    x, y = born.strftime("%Y%m%d"), other.strftime("%Y%m%d")
    differ = sum(a != b for a, b in zip(x, y, strict=True))
    swapped = (born.month, born.day) == (other.day, other.month) and born.year == other.year
    if differ > 2 and not swapped:
        assert not names.dob_one_keystroke(born, other)


def test_fold_strips_what_people_vary() -> None:
    assert names.fold("Lée-Jones") == names.fold("LEE JONES") == "leejones"
    assert names.fold("O’Brien") == names.fold("o'brien") == "obrien"
    assert unicodedata.normalize("NFC", "é") != "e" and names.fold("é") == "e"
