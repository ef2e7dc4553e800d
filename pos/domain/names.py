"""Names and dates of birth compared as people write them (rule D: is this buyer a worker?).

Pure. Hyphens, spaces, apostrophes, full stops, case and accents do not make two spellings of one
name different: "Mary-Ann Lee-Jones", "MARY ANN LEE JONES" and "maryann leejones" are one name,
as are "O'Brien" and "OBRIEN", "José" and "JOSE". Suffixes (Jr, Sr, II..IV) and middle names take
no part.

A name is compared as keys: (family name, first given name), each folded to letters and digits
only. A free-text name ("Given [Middle] Family", as a roster or the staff list holds it) does not
say where the family name begins, so it has one key per place it could (`keys_of_full`); a
licence's fields say it (`keys_of_parts`). Two names are the same when they share a key.

Near matches (for a manager to decide, never a refusal on their own):
- a name within one keystroke per part, a first name that begins the other (an initial), the
  parts swapped, or a nickname of the other's first name (`nickname`, a lookup the caller passes
  in from a maintained data set: the domain reads no data of its own);
- the same name with a date of birth one keystroke off (`dob_one_keystroke`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from datetime import date

NameKey = tuple[str, str]  # (folded family name, folded first given name)
Nicknames = Callable[[str, str], bool]  # whether two folded first names are nicknames of one

SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "1st", "2nd", "3rd", "4th"})
_JOINERS = "'’‘`´ʼ.-‐‑‒–—"  # apostrophes, full stops and hyphens join a word
# Letters NFKD does not take apart.
_LETTERS = str.maketrans(
    {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i", "ß": "ss"}
)


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).translate(_LETTERS)


def words(text: str) -> list[str]:
    """The words of a name as written, folded: casefolded, accents stripped, each word only its
    letters and digits; hyphens and apostrophes stay inside a word ("mary-ann" is one word, as
    two given names joined), anything else separates words; suffixes after the first word go.

    "José  O'Neil-Smith Jr." -> ["jose", "o'neil-smith"]
    """
    plain = _plain(text)
    kept = "".join(ch if ch.isalnum() or ch in _JOINERS else " " for ch in plain)
    result = []
    for index, word in enumerate(kept.split()):
        bare = fold(word)
        if not bare or (index > 0 and bare in SUFFIXES):
            continue
        result.append(word)
    return result


def fold(text: str) -> str:
    """A name (or part of one) reduced to the letters and digits that make it: no case, accents,
    hyphens, apostrophes or spaces. "Lee-Jones" -> "leejones", "O'Brien" -> "obrien"."""
    return "".join(ch for ch in _plain(text) if ch.isalnum())


_APOSTROPHES = "'’‘`´ʼ."


def _parts(text: str) -> list[str]:
    """The folded parts of a name: split at spaces and hyphens, apostrophes dropped."""
    plain = "".join("" if ch in _APOSTROPHES else ch for ch in _plain(text))
    return [fold(part) for part in "".join(ch if ch.isalnum() else " " for ch in plain).split()]


def _first_parts(word: str) -> set[str]:
    """A first given name as it may be compared: whole ("mary-ann" -> "maryann") and its first
    part ("mary"), as a licence that writes "MARY ANN" gives "mary" as the first name."""
    return {fold(word), *(_parts(word)[:1])} - {""}


def canonical_of_parts(family: str, given: str) -> NameKey:
    """The one key a name with its parts known is stored under (a player's keyed person hash):
    the folded family name and the first part of the first given name."""
    first = _parts(given)
    return fold("".join(words(family))), first[0] if first else ""


def whole_of_parts(family: str, given: str) -> NameKey:
    """A name's second stored key: the folded family name and every given name fused, so that
    "Mary-Ann" and "MARY ANN" meet a list that writes "Maryann" (the canonical key keeps only
    "mary", which a middle name must not disturb)."""
    return fold("".join(words(family))), fold(given)


def canonical_of_full(full: str) -> NameKey:
    """The key a free-text name is stored under: its last word as the family name."""
    found = words(full)
    if not found:
        return "", ""
    if len(found) == 1:
        return fold(found[0]), ""
    return canonical_of_parts(found[-1], found[0])


def keys_of_parts(family: str, given: str) -> set[NameKey]:
    """The keys of a name whose family and given names are known apart (a licence)."""
    folded = fold("".join(words(family)))
    given_words = words(given)
    if not folded:
        return set()
    if not given_words:
        return {(folded, "")}
    return {(folded, first) for first in _first_parts(given_words[0]) | {fold(given)}}


def keys_of_full(full: str) -> set[NameKey]:
    """The keys of a free-text name, one for each place its family name could begin: the family
    name is the words from there on, the first given name its first word."""
    found = words(full)
    if not found:
        return set()
    if len(found) == 1:
        return {(fold(found[0]), "")}
    keys: set[NameKey] = set()
    for start in range(1, len(found)):
        family = fold("".join(found[start:]))
        given = found[:start]
        keys.update((family, first) for first in _first_parts(given[0]) | {fold("".join(given))})
    return keys


def card_keys_of_full(full: str) -> set[NameKey]:
    """The keys a player card of this free-text name could be stored under: its keys, and the
    canonical key of any other spelling of it (`canonical_of_full` takes the last word for the
    family name, so "Ann Lee Jones" is stored as ("jones", "ann"), which "Ann Lee-Jones" is too)."""
    keys = keys_of_full(full)
    found = words(full)
    if len(found) > 1:
        keys.add((_parts(found[-1])[-1], canonical_of_full(full)[1]))
    return keys


def same_name(a: Iterable[NameKey], b: Iterable[NameKey]) -> bool:
    """Whether two names (their keys) are one name as people write it."""
    return not set(a).isdisjoint(b)


def within_one_edit(a: str, b: str) -> bool:
    """Equal, or one insertion, deletion, substitution or swap of neighbours apart."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
        )
    return a[i:] == b[i + 1 :]


def similar_keys(a: NameKey, b: NameKey, nickname: Nicknames | None = None) -> bool:
    """Whether two keys could be one person, a near match (identical keys count as similar):
      - the family names are equal and one first name begins the other (an initial "j" and
        "john", or a first name missing on one side), or one is a nickname of the other
        (Bob and Robert, Peggy and Margaret);
      - each part is at most one keystroke apart: "smyth"/"smith" with "jon"/"john";
      - the parts are swapped, exactly: ("wei", "zhang") and ("zhang", "wei").
    A key with an empty family name is similar to nothing.
    """
    (family_a, first_a), (family_b, first_b) = a, b
    if not family_a or not family_b:
        return False
    if family_a == family_b:
        if first_a.startswith(first_b) or first_b.startswith(first_a):
            return True
        if nickname is not None and nickname(first_a, first_b):
            return True
    if within_one_edit(family_a, family_b) and within_one_edit(first_a, first_b):
        return True
    return family_a == first_b and first_a == family_b


def similar_names(
    a: Iterable[NameKey], b: Iterable[NameKey], nickname: Nicknames | None = None
) -> bool:
    """Whether any key of one name is similar to any key of the other."""
    others = list(b)
    return any(similar_keys(x, y, nickname) for x in a for y in others)


def dob_one_keystroke(a: date, b: date) -> bool:
    """Whether two different dates of birth are one keystroke apart, as typed YYYY-MM-DD: one
    digit wrong, two digits swapped, or the day and the month swapped (03-02 for 02-03)."""
    if a == b:
        return False
    if (a.year, a.month, a.day) == (b.year, b.day, b.month):
        return True
    x, y = (f"{d.year:04d}{d.month:02d}{d.day:02d}" for d in (a, b))
    differ = [i for i in range(8) if x[i] != y[i]]
    if len(differ) == 1:
        return True
    if len(differ) == 2:
        i, j = differ
        return x[i] == y[j] and x[j] == y[i]
    return False
