"""A deal's flare: what the manufacturer prints about a deal, and its interchange form.

The JSON interchange form (issue 3) is the shape `booth deal receive --flare FILE` reads, as JSON
or TOML: amounts are decimal strings of dollars, counts are integers, extra keys are ignored.
`parse_flare` checks only the SHAPE (types, formats, ranges) and names the offending field as a
dotted path ("prizes[1].amount"); whether the deal may be taken in (prize cap, winners against
tickets, a price of zero, a duplicate serial, C1, C5) is the rulebook's `check_intake`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from pos.domain.money import InvalidAmount, format_amount, parse_amount, parse_count

MAX_TICKETS = 10_000_000
MAX_SEAL_LINES = 10_000
_SERIAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,31}", re.ASCII)
_TICKET_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,31}", re.ASCII)
_TEXT_LIMITS = {"address": 200, "invoice": 64}
_TEXT_LIMIT = 120


class GameType(StrEnum):
    PULL_TAB = "pull-tab"
    SEAL_CARD = "seal-card"
    EVENT = "event"


@dataclass(frozen=True)
class PrizeTier:
    amount: int  # cents per winning ticket
    count: int  # winning tickets at this amount


@dataclass(frozen=True)
class Supplier:
    name: str
    address: str


@dataclass(frozen=True)
class SealTerms:
    lines: int  # numbered lines on the sign-up sheet
    prize: int  # cents, paid to the signer of the line under the seal
    progressive: bool
    hold_tickets: tuple[str, ...]  # ticket numbers that entitle their holder to sign a line


@dataclass(frozen=True)
class Flare:
    serial: str
    game: GameType
    name: str
    form: str
    manufacturer: str
    tickets: int
    price: int  # cents per ticket
    prizes: tuple[PrizeTier, ...]
    supplier: Supplier
    invoice: str
    seal: SealTerms | None = None
    sheet_and_seal_present: bool = False
    tampered: bool = False

    @property
    def ideal_gross(self) -> int:
        """Cents taken in if every ticket sells at the flare's price."""
        return self.tickets * self.price

    @property
    def total_prizes(self) -> int:
        """Cents paid out if every prize is claimed: the tiers, plus the seal prize if any."""
        tiers = sum(tier.amount * tier.count for tier in self.prizes)
        return tiers + (self.seal.prize if self.seal is not None else 0)

    @property
    def winners(self) -> int:
        """Winning tickets in the deal: the tiers' counts (the seal line is not a ticket)."""
        return sum(tier.count for tier in self.prizes)

    @property
    def ideal_net(self) -> int:
        return self.ideal_gross - self.total_prizes


class InvalidFlare(ValueError):
    """A flare that does not have the interchange shape; `.field` is a dotted path."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message


# -- parsing -------------------------------------------------------------------------------------


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "…")
    if isinstance(value, int) and value.bit_length() > 128:
        return "a number of more than 38 digits"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _object(value: object, path: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise InvalidFlare(path, f"{_describe(value)} is not an object")
    return value


def _required(data: Mapping[str, object], key: str, path: str) -> object:
    if key not in data:
        raise InvalidFlare(_join(path, key), "is missing")
    return data[key]


def _text(data: Mapping[str, object], key: str, path: str) -> str:
    field = _join(path, key)
    value = _required(data, key, path)
    if not isinstance(value, str):
        raise InvalidFlare(field, f"{_describe(value)} is not text")
    text = " ".join(value.split())
    limit = _TEXT_LIMITS.get(key, _TEXT_LIMIT)
    if not text:
        raise InvalidFlare(field, "is empty")
    if len(text) > limit:
        raise InvalidFlare(field, f"{_describe(value)} is longer than {limit} characters")
    if not text.isprintable():
        raise InvalidFlare(field, f"{_describe(value)} holds control characters")
    return text


def _flag(data: Mapping[str, object], key: str, path: str, default: bool | None) -> bool:
    if key not in data and default is not None:
        return default
    value = _required(data, key, path)
    if not isinstance(value, bool):
        raise InvalidFlare(_join(path, key), f"{_describe(value)} is not true or false")
    return value


def _amount(value: object, field: str, *, allow_zero: bool = False) -> int:
    try:
        return parse_amount(value, field, allow_zero=allow_zero)  # type: ignore[arg-type]
    except InvalidAmount as exc:
        raise InvalidFlare(exc.field, exc.reason) from None


def _count(value: object, field: str, *, maximum: int) -> int:
    try:
        return parse_count(value, field, minimum=1, maximum=maximum)
    except InvalidAmount as exc:
        raise InvalidFlare(exc.field, exc.reason) from None


def _list(value: object, field: str) -> list[object]:
    if not isinstance(value, list | tuple):
        raise InvalidFlare(field, f"{_describe(value)} is not a list")
    return list(value)


def _serial(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidFlare("serial", f"{_describe(value)} is not a serial number")
    text = value.strip()
    if not _SERIAL.fullmatch(text):
        raise InvalidFlare(
            "serial",
            f"{_describe(value)} is not a serial number (letters, digits and '-', at most 32)",
        )
    return text.upper()


def _game(value: object) -> GameType:
    choices = ", ".join(game.value for game in GameType)
    if not isinstance(value, str):
        raise InvalidFlare("game", f"{_describe(value)} is not a game type ({choices})")
    try:
        return GameType(value.strip().lower())
    except ValueError:
        raise InvalidFlare("game", f"{_describe(value)} is not one of {choices}") from None


def _prizes(value: object) -> tuple[PrizeTier, ...]:
    items = _list(value, "prizes")
    if not items:
        raise InvalidFlare("prizes", "is empty; a flare lists at least one prize tier")
    tiers = []
    for index, item in enumerate(items):
        path = f"prizes[{index}]"
        tier = _object(item, path)
        amount = _amount(_required(tier, "amount", path), f"{path}.amount")
        count = _count(_required(tier, "count", path), f"{path}.count", maximum=MAX_TICKETS)
        tiers.append(PrizeTier(amount=amount, count=count))
    return tuple(tiers)


def _supplier(value: object) -> Supplier:
    data = _object(value, "supplier")
    return Supplier(
        name=_text(data, "name", "supplier"), address=_text(data, "address", "supplier")
    )


def _seal(value: object) -> SealTerms:
    data = _object(value, "seal")
    lines = _count(_required(data, "lines", "seal"), "seal.lines", maximum=MAX_SEAL_LINES)
    prize = _amount(_required(data, "prize", "seal"), "seal.prize")
    progressive = _flag(data, "progressive", "seal", None)
    items = _list(_required(data, "hold_tickets", "seal"), "seal.hold_tickets")
    if not items:
        raise InvalidFlare(
            "seal.hold_tickets", "is empty; a seal card has at least one hold ticket"
        )
    holds: list[str] = []
    for index, item in enumerate(items):
        field = f"seal.hold_tickets[{index}]"
        if not isinstance(item, str) or not _TICKET_NUMBER.fullmatch(item.strip()):
            raise InvalidFlare(
                field,
                f"{_describe(item)} is not a ticket number (text of letters, digits and '-')",
            )
        number = item.strip()
        if number in holds:
            raise InvalidFlare(field, f"{number!r} is listed twice")
        holds.append(number)
    return SealTerms(lines=lines, prize=prize, progressive=progressive, hold_tickets=tuple(holds))


def parse_flare(data: object) -> Flare:
    """The interchange form (a mapping, as JSON or TOML gives it) -> a Flare; shape only.

    The price may be "0.00" here: a price of zero is refused by the rulebook (rule DEAL), so that
    it is a refusal that cites a rule rather than bad input.
    """
    flare = _object(data, "flare")
    serial = _serial(_required(flare, "serial", ""))
    game = _game(_required(flare, "game", ""))
    name = _text(flare, "name", "")
    form = _text(flare, "form", "")
    manufacturer = _text(flare, "manufacturer", "")
    tickets = _count(_required(flare, "tickets", ""), "tickets", maximum=MAX_TICKETS)
    price = _amount(_required(flare, "price", ""), "price", allow_zero=True)
    prizes = _prizes(_required(flare, "prizes", ""))
    supplier = _supplier(_required(flare, "supplier", ""))
    invoice = _text(flare, "invoice", "")
    seal = None
    if flare.get("seal") is not None:
        if game is GameType.PULL_TAB:
            raise InvalidFlare(
                "seal", "a pull-tab deal has no seal; give the game as seal-card or event"
            )
        seal = _seal(flare["seal"])
    return Flare(
        serial=serial,
        game=game,
        name=name,
        form=form,
        manufacturer=manufacturer,
        tickets=tickets,
        price=price,
        prizes=prizes,
        supplier=supplier,
        invoice=invoice,
        seal=seal,
        sheet_and_seal_present=_flag(flare, "sheet_and_seal_present", "", False),
        tampered=_flag(flare, "tampered", "", False),
    )


def flare_to_dict(flare: Flare) -> dict[str, object]:
    """A Flare -> the interchange form; `parse_flare(flare_to_dict(f)) == f`."""
    data: dict[str, object] = {
        "serial": flare.serial,
        "game": flare.game.value,
        "name": flare.name,
        "form": flare.form,
        "manufacturer": flare.manufacturer,
        "tickets": flare.tickets,
        "price": format_amount(flare.price),
        "prizes": [
            {"amount": format_amount(tier.amount), "count": tier.count} for tier in flare.prizes
        ],
        "supplier": {"name": flare.supplier.name, "address": flare.supplier.address},
        "invoice": flare.invoice,
    }
    if flare.seal is not None:
        data["seal"] = {
            "lines": flare.seal.lines,
            "prize": format_amount(flare.seal.prize),
            "progressive": flare.seal.progressive,
            "hold_tickets": list(flare.seal.hold_tickets),
        }
    if flare.game is GameType.SEAL_CARD or flare.sheet_and_seal_present:
        data["sheet_and_seal_present"] = flare.sheet_and_seal_present
    if flare.tampered:
        data["tampered"] = True
    return data


def _reject_constant(name: str) -> object:
    raise InvalidFlare("flare", f"{name} is not a number a flare can hold")


def load_flare_text(text: str, fmt: str) -> Flare:
    """The text of a flare file, "json" or "toml" -> a Flare. Malformed text: field "flare"."""
    kind = fmt.strip().lower()
    if kind == "json":
        try:
            data: object = json.loads(text, parse_constant=_reject_constant)
        except InvalidFlare:
            raise
        except ValueError as exc:  # JSONDecodeError, or an integer of more than 4300 digits
            raise InvalidFlare("flare", f"the JSON text is not valid: {exc}") from None
        except RecursionError:
            raise InvalidFlare("flare", "the JSON text is nested too deeply") from None
    elif kind == "toml":
        import tomllib  # here: few flares come as TOML, and every deal command imports this module

        try:
            data = tomllib.loads(text)
        except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4300 digits
            raise InvalidFlare("flare", f"the TOML text is not valid: {exc}") from None
        except RecursionError:
            raise InvalidFlare("flare", "the TOML text is nested too deeply") from None
    else:
        raise InvalidFlare("format", f"{_describe(fmt)} is not a flare format (json or toml)")
    return parse_flare(data)
