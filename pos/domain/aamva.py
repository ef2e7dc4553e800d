"""US and Canadian driver's licence and ID card barcodes (AAMVA DL/ID Card Design Standard).

The PDF417 barcode on the back of a licence holds text laid out by Annex D of the standard:

    @ LF RS CR                       compliance indicator, element separator, record separator,
                                     segment terminator
    "ANSI " (or "AAMVA" on some 2000-standard cards)
    IIN (6 digits)                   the issuing jurisdiction
    AAMVA version (2 digits)         01 = DL/ID-2000, 02 = 2003, 03 = 2005, 04 = 2009, ... 10 = 2020
    jurisdiction version (2 digits)  from version 02 on only
    number of entries (2 digits)
    subfile designators              type (2), offset (4), length (4) for each entry: "DL" or "ID"
                                     for the card's data, "Z?" for the jurisdiction's own
    subfiles                         type, then data elements: a 3-letter id and its value, each
                                     ended by LF, the subfile ended by CR

What Booth reads, whatever the version: DAQ (customer ID number), DBB (date of birth), DBA
(expiry), DAJ (address jurisdiction). Names: DCS family name with DAC first and DAD middle names
(version 04 on; version 01 used DAB/DAC/DAD), DCT given names (versions 02 and 03), DAA full name
"FAMILY,FIRST,MIDDLE[,SUFFIX]" (version 01), DCU suffix (DAE in version 01). The elements present
decide, not the version number, because jurisdictions mix them.

Dates are MMDDCCYY on US cards from version 02 on and CCYYMMDD on version 01 and Canadian cards.
The two layouts cannot be confused for years 1800-2199 (a month never starts with 18-21), so each
date is read in whichever layout it is valid: cards that break the rule still read correctly.

Scanners mangle the text: CR LF for LF, separators dropped or changed, the "@" missing, a
symbology prefix, offsets that point nowhere (or that line endings shifted), trailing junk,
lowercase. The subfile is found by its offset when that points at it, else by searching for it;
elements are read line by line, whatever ends the line.

Privacy: no message of InvalidLicence holds a value from the barcode, only element ids; the ID
number is left out of Licence's repr.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

from pos.domain.names import SUFFIXES, within_one_edit

_MAX_TEXT = 4096  # a PDF417 symbol holds at most about 1,850 characters of text
_HEADER_WINDOW = 48  # the header must start near the beginning (after a symbology prefix, say)

_FLAGS = re.ASCII | re.IGNORECASE
_FILE_TYPE = re.compile(r"ANSI ?|AAMVA", _FLAGS)
_HEADER = re.compile(r"(?:ANSI ?|AAMVA)([0-9]{6})([0-9]{2})", _FLAGS)
_TWO_DIGITS = re.compile(r"[0-9]{2}", re.ASCII)
_DESIGNATOR = re.compile(r"([A-Z]{2})([0-9]{4})([0-9]{4})", _FLAGS)
# The start of the card's own subfile: its type and then (maybe past line ends) an element id.
# A hit must follow a digit (the end of the designators), a separator or a space, so that a value
# ending in "ID" or "DL" ("MADRID") is not taken for the start of a subfile.
_SUBFILE = re.compile(r"(?<=[0-9\r\n\x1c\x1d\x1e ])(DL|ID)[\r\n]*(?=D[A-Z]{2})", _FLAGS)
_SUBFILE_AT = re.compile(r"(DL|ID)[\r\n]*(?=D[A-Z]{2})", _FLAGS)
_LINE_END = re.compile(r"[\r\n\x1c\x1d\x1e]+")
_ELEMENT_ID = re.compile(r"[A-Z]{3}", _FLAGS)
_DATE = re.compile(r"[0-9]{8}", re.ASCII)

# Values some jurisdictions write where a name part is absent.
_ABSENT = frozenset({"none", "unavl", "unavailable", "n/a"})

_LABELS = {
    "DAQ": "ID number",
    "DBB": "date of birth",
    "DBA": "expiry",
    "DCS": "family name",
}


class InvalidLicence(ValueError):
    """A scan that is not a readable AAMVA licence or ID card. Messages never quote the scan."""

    def __init__(self, message: str) -> None:
        super().__init__(f"id: {message}")
        self.field = "id"


@dataclass(frozen=True)
class Licence:
    family_name: str
    given_names: str  # first and middle names, separated by spaces
    suffix: str  # "JR", "III", ... or ""
    date_of_birth: date
    expiry: date
    id_number: str = field(repr=False)  # never logged: Booth keeps only a keyed hash of it
    jurisdiction: str  # DAJ, the cardholder's state or province ("VA", "ON"), or ""
    aamva_version: int

    @property
    def full_name(self) -> str:
        return " ".join(part for part in (self.given_names, self.family_name, self.suffix) if part)


# -- reading the barcode ------------------------------------------------------------------------


def _as_text(data: str | bytes) -> str:
    if isinstance(data, bytes | bytearray):
        if len(data) > _MAX_TEXT:
            raise InvalidLicence(
                f"the scan is too long to be a licence barcode ({len(data)} bytes)"
            )
        raw = bytes(data)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")  # the standard's character set; never fails
    elif isinstance(data, str):
        text = data
    else:
        raise InvalidLicence("the scan is neither text nor bytes")
    if len(text) > _MAX_TEXT:
        raise InvalidLicence(
            f"the scan is too long to be a licence barcode ({len(text)} characters)"
        )
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise InvalidLicence("the scan is empty")
    return text


def looks_like_licence(data: str | bytes) -> bool:
    """A cheap test for routing scans: does this start like an AAMVA barcode? Never raises."""
    try:
        head = data[: _HEADER_WINDOW + 16]
        if isinstance(head, bytes | bytearray):
            head = bytes(head).decode("latin-1")
        if not isinstance(head, str):
            return False
        match = _HEADER.search(head)
        return match is not None and match.start() <= _HEADER_WINDOW and match.group(2) != "00"
    except Exception:  # pragma: no cover - a routing test must not take the scanner down
        return False


@dataclass(frozen=True)
class _Header:
    version: int
    end: int  # where the subfile designators end (or the header, where they are unreadable)
    designators: tuple[tuple[str, int], ...]  # (type, offset) of each readable designator


def _header(text: str) -> _Header:
    file_type = _FILE_TYPE.search(text, 0, _HEADER_WINDOW + 5)
    if file_type is None:
        raise InvalidLicence(
            "this is not a driver's licence or ID card barcode (no ANSI or AAMVA header)"
        )
    match = _HEADER.match(text, file_type.start())
    if match is None:
        raise InvalidLicence("the AAMVA header is cut short or garbled")
    version = int(match.group(2))
    if version == 0:
        raise InvalidLicence(
            "AAMVA version 00 (cards made before the 2000 standard) has no standard layout"
        )
    # Version 01 has no jurisdiction version; some cards disagree, so try the other layout too.
    skips = (0, 2) if version == 1 else (2, 0)
    for skip in skips:
        pos = match.end() + skip
        entries = _TWO_DIGITS.match(text, pos)
        if entries is None:
            continue
        pos = entries.end()
        designators: list[tuple[str, int]] = []
        for _ in range(int(entries.group())):
            designator = _DESIGNATOR.match(text, pos)
            if designator is None:
                break
            designators.append((designator.group(1).upper(), int(designator.group(2))))
            pos = designator.end()
        if designators:
            return _Header(version, pos, tuple(designators))
    return _Header(version, match.end(), ())


def _subfile_start(text: str, header: _Header) -> int:
    """Where the DL (else ID) subfile's first element begins."""
    for wanted in ("DL", "ID"):
        for kind, offset in header.designators:
            if kind != wanted or offset < header.end:
                continue
            at = _SUBFILE_AT.match(text, offset)
            if at is not None and at.group(1).upper() == kind:
                return at.end()
    # The offsets are missing or wrong (often: line endings changed by the scanner): search.
    found = _SUBFILE.search(text, header.end)
    if found is None:
        raise InvalidLicence("the barcode has no DL or ID subfile (the card's own data)")
    return found.end()


def _elements(text: str, start: int) -> dict[str, str]:
    """Element id -> value, from `start` on; the first of a repeated id wins (it is the DL/ID
    subfile's: jurisdiction subfiles that follow use Z.. ids)."""
    elements: dict[str, str] = {}
    for line in _LINE_END.split(text[start:]):
        if len(line) < 3 or not _ELEMENT_ID.fullmatch(line[:3]):
            continue
        elements.setdefault(line[:3].upper(), line[3:])
    return elements


def _clean(value: str) -> str:
    printable = "".join(ch for ch in value if ch.isprintable())
    return " ".join(printable.split())


def _name_part(value: str | None) -> str:
    """A name element's value, with commas (between several middle names) made spaces."""
    if value is None:
        return ""
    text = _clean(value.replace(",", " "))
    return "" if text.casefold() in _ABSENT else text


def _is_suffix(word: str) -> bool:
    return normalise_name(word) in SUFFIXES


def _full_name(value: str) -> tuple[str, str, str]:
    """Version 01's DAA: "FAMILY,FIRST,MIDDLE,SUFFIX" (trailing parts optional). Some cards use
    "$" for ","; with neither, the standard's order is kept: the first word is the family name."""
    if re.search(r"[,$]", value):
        parts = [_name_part(part) for part in re.split(r"[,$]", value)]
    else:
        words = _clean(value).split()
        parts = [words[0], " ".join(words[1:])] if words else [""]
    family, rest = parts[0], parts[1:]
    given, suffix = rest[:2], (rest[2] if len(rest) > 2 else "")
    if not suffix and len(given) == 2 and _is_suffix(given[1]):
        suffix = given.pop()
    return family, " ".join(part for part in given if part), suffix


def _date(elements: dict[str, str], element: str) -> date:
    label = _LABELS[element]
    value = elements.get(element)
    if value is None:
        raise InvalidLicence(f"the {label} field {element} is missing")
    digits = value.strip()
    if not _DATE.fullmatch(digits):
        raise InvalidLicence(f"the {label} field {element} is not a date (8 digits)")
    if 18 <= int(digits[:2]) <= 21:  # CCYYMMDD (version 01, Canada)
        year, month, day = int(digits[:4]), int(digits[4:6]), int(digits[6:])
    else:  # MMDDCCYY (US, version 02 on)
        month, day, year = int(digits[:2]), int(digits[2:4]), int(digits[4:])
    if not 1800 <= year <= 2199:
        raise InvalidLicence(f"the {label} field {element} is not a date")
    try:
        return date(year, month, day)
    except ValueError:
        raise InvalidLicence(f"the {label} field {element} is not a date") from None


def parse_licence(data: str | bytes) -> Licence:
    """Read a licence or ID card barcode; raises InvalidLicence (and nothing else) if it can't."""
    text = _as_text(data)
    header = _header(text)
    elements = _elements(text, _subfile_start(text, header))

    id_number = _clean(elements.get("DAQ", ""))
    if not id_number:
        raise InvalidLicence("the ID number field DAQ is missing")

    from_daa = _full_name(elements["DAA"]) if "DAA" in elements else ("", "", "")
    family = _name_part(elements.get("DCS")) or _name_part(elements.get("DAB")) or from_daa[0]
    if not family:
        raise InvalidLicence("the family name field DCS (DAB or DAA on older cards) is missing")
    first_and_middle = " ".join(
        part for part in (_name_part(elements.get("DAC")), _name_part(elements.get("DAD"))) if part
    )
    given = first_and_middle or _name_part(elements.get("DCT")) or from_daa[1]
    suffix = _name_part(elements.get("DCU")) or _name_part(elements.get("DAE")) or from_daa[2]

    born = _date(elements, "DBB")
    expiry = _date(elements, "DBA")
    if born >= expiry:
        raise InvalidLicence("the date of birth (DBB) is not before the expiry (DBA)")

    return Licence(
        family_name=family,
        given_names=given,
        suffix=suffix,
        date_of_birth=born,
        expiry=expiry,
        id_number=id_number,
        jurisdiction=_clean(elements.get("DAJ", "")).upper(),
        aamva_version=header.version,
    )


def is_expired(licence: Licence, today: date) -> bool:
    """An ID is valid through its expiry day."""
    return today > licence.expiry


def age_on(licence: Licence, today: date) -> int:
    """Completed years on `today`. Someone born on 29 February turns a year older on 1 March in
    other years: the later of the two readings, so an age limit is never met a day early."""
    born = licence.date_of_birth
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


# -- matching people across records ------------------------------------------------------------

_DROPPED = "'’‘`´ʼ."  # apostrophes and full stops join: O'Neil -> oneil, Jr. -> jr
# Letters NFKD does not take apart.
_LETTERS = str.maketrans(
    {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i"}
)


def normalise_name(text: str) -> str:
    """A name reduced for matching: casefolded, accents stripped, apostrophes and full stops
    dropped, other punctuation (hyphens, commas) made spaces, spaces collapsed, and the suffixes
    JR, SR, II, III, IV (and 1ST..4TH) removed unless they are the first word (the family name Ii).

    "José  O'Neil-Smith Jr." -> "jose oneil smith"
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = plain.translate(_LETTERS)
    plain = "".join("" if ch in _DROPPED else ch if ch.isalnum() else " " for ch in plain)
    words = plain.split()
    return " ".join(words[:1] + [word for word in words[1:] if word not in SUFFIXES])


def name_key(family: str, given: str) -> tuple[str, str]:
    """(normalised family name, normalised first given name): middle names don't take part."""
    first = normalise_name(given).split()
    return normalise_name(family), first[0] if first else ""


def similar_names(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two name keys (from name_key) could be the same person: a near match, for a
    manager to decide when the dates of birth agree too. Identical keys count as similar. True
    when either
      - the family names are equal and one first name begins the other (an initial "j" and
        "john", a truncated "christoph", or a first name missing on one side), or
      - each part is at most one edit apart (insert, delete, substitute, swap two neighbours):
        "smyth"/"smith" with "jon"/"john", or
      - the parts are swapped ("wei", "zhang") and ("zhang", "wei"), exactly.
    A key with an empty family name is similar to nothing.
    """
    (family_a, first_a), (family_b, first_b) = a, b
    if not family_a or not family_b:
        return False
    if family_a == family_b and (first_a.startswith(first_b) or first_b.startswith(first_a)):
        return True
    if within_one_edit(family_a, family_b) and within_one_edit(first_a, first_b):
        return True
    return family_a == first_b and first_a == family_b
