"""Raffles (11VAC15-40-60 F): a raffle's terms, its prizes at fair market value (F2), and the
two parts of a numbered ticket as the printer prints them.

A raffle is held by one station (the one that created it): its tickets are numbered there, one
after the other from 1, so no number is ever given twice, and its drawing is recorded there,
where every sale is on file. Pure: no clock, no ledger.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from pos.domain.money import InvalidAmount, format_money, parse_amount

ID_PATTERN = re.compile(r"[A-Z0-9][A-Z0-9-]{0,23}")
MAX_PRIZES = 50
TICKET_DIGITS = 6


class InvalidRaffle(ValueError):
    """A raffle's terms that cannot be taken (a malformed id, date, price or prize); `.field`
    names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


@dataclass(frozen=True)
class Prize:
    """One prize, in drawing order (place 1 is drawn first), at its fair market value (F2)."""

    place: int
    description: str
    value: int  # cents
    basis: str  # how the value was found: a receipt, an appraisal, a retail price

    def to_dict(self) -> dict[str, object]:
        return {
            "place": self.place,
            "description": self.description,
            "value": self.value,
            "basis": self.basis,
        }

    def shown(self) -> str:
        return f"{ordinal(self.place)} prize: {self.description} ({format_money(self.value)})"


@dataclass(frozen=True)
class Terms:
    raffle: str  # its id, e.g. SPRING26
    name: str
    drawing_date: date
    price: int  # cents a ticket
    prizes: tuple[Prize, ...]


def parse_id(text: str) -> str:
    raffle = text.strip().upper()
    if not ID_PATTERN.fullmatch(raffle):
        raise InvalidRaffle(
            "raffle", f"{text[:40]!r} is not a raffle id (1-24 letters, digits or '-')"
        )
    return raffle


def parse_prize(text: str, place: int) -> Prize:
    """`DESCRIPTION;VALUE;BASIS`, e.g. `Handmade quilt;250.00;appraised by Riverside Quilters`.
    The value and basis may be left empty here: the F2 check refuses them by rule."""
    parts = [part.strip() for part in text.split(";")]
    if len(parts) != 3 or not parts[0]:
        raise InvalidRaffle(
            "prize",
            f"{text[:60]!r} is not DESCRIPTION;VALUE;BASIS "
            "(e.g. 'Handmade quilt;250.00;appraisal by Riverside Quilters')",
        )
    description, value_text, basis = parts
    value = 0
    if value_text:
        try:
            value = parse_amount(value_text, "prize value", allow_zero=True)
        except InvalidAmount as exc:
            raise InvalidRaffle("prize", f"{description}: {exc.reason}") from None
    return Prize(place, description, value, basis)


def parse_terms(raffle: str, name: str, drawing_date: str, price: str, prizes: list[str]) -> Terms:
    ident = parse_id(raffle)
    if not name.strip():
        raise InvalidRaffle("name", "a raffle needs a name")
    try:
        drawn_on = date.fromisoformat(drawing_date.strip())
    except ValueError:
        raise InvalidRaffle("drawing", f"{drawing_date[:40]!r} is not YYYY-MM-DD") from None
    try:
        cents = parse_amount(price, "price")
    except InvalidAmount as exc:
        raise InvalidRaffle("price", exc.reason) from None
    if not prizes:
        raise InvalidRaffle("prize", "a raffle needs at least one prize (--prize)")
    if len(prizes) > MAX_PRIZES:
        raise InvalidRaffle("prize", f"{len(prizes)} prizes; at most {MAX_PRIZES}")
    return Terms(
        ident,
        name.strip(),
        drawn_on,
        cents,
        tuple(parse_prize(text, place) for place, text in enumerate(prizes, start=1)),
    )


def ticket_label(number: int) -> str:
    """A ticket's number as printed on both parts and read out at the drawing."""
    return f"{number:0{TICKET_DIGITS}d}"


def ordinal(place: int) -> str:
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def stub_lines(
    *, raffle: str, name: str, number: int, drawing_date: str, organisation: str
) -> tuple[str, ...]:
    """The stub (the detachable part that goes into the receptacle, F1): the raffle, the
    number, and lines for the buyer's name and telephone."""
    return (
        organisation,
        f"RAFFLE STUB - {name} ({raffle})",
        f"Drawing {drawing_date}",
        f"No. {ticket_label(number)}",
        "Name: ______________________",
        "Phone: _____________________",
    )
