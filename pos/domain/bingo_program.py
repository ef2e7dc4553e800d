"""A bingo session's game program (rules A, G5, H1, I3, I4, J4): its games in order, the house
rules printed on it and the products on sale. Pure values and parsing, standard library only.

The interchange format (JSON, or TOML with the same keys; amounts are decimal strings):

    {"name": "Friday Night",
     "house_rules": "Players must be present to win...",
     "games": [
       {"kind": "regular", "name": "Early Bird", "pattern": "any line", "paper": "6-on",
        "prize": "100.00"},
       {"kind": "jackpot", "name": "Jackpot", "pattern": "coverall", "prize": "1000.00"},
       {"kind": "decision", "name": "Decision", "pattern": "any line", "paper": "DEC",
        "entry": "1.00", "fee": "0.25"},
       {"kind": "progressive", "name": "Lucky 7", "pattern": "coverall", "paper": "PROG",
        "price": "1.00", "calls": 50, "prize": "500.00", "increase": "100.00"},
       {"kind": "treasure-chest", "price": "1.00", "house_rules": "..."},
       {"kind": "wingo", "name": "WINGO", "prize": "50.00", "house_rules": "..."},
       {"kind": "raffle", "name": "50/50 drawing", "raffle": "R1"}],
     "products": [{"kind": "pack", "name": "Door pack"}, {"kind": "device", "name": "Basic"},
                  {"kind": "paper", "name": "PROG", "price": "1.00"}]}

A game's prize is fixed (`prize`) or a pool with its rule (`pool`: the rule's text). A decision
game's prize is always the pool of its fees (G4); a progressive game's prize grows as rule I
says; a treasure chest is listed as a "Treasure Chest Raffle" (H1); a raffle drawing is listed by
its raffle's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pos.domain.money import InvalidAmount, format_amount, format_money, parse_amount, parse_count

MAX_GAMES = 60
MAX_TEXT = 8000
MAX_NAME = 80
CHEST_TITLE = "Treasure Chest Raffle"


class InvalidProgram(ValueError):
    """A program that cannot be read; `.field` names the offending part."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class GameKind(StrEnum):
    REGULAR = "regular"
    SPECIAL = "special"
    JACKPOT = "jackpot"
    PROGRESSIVE = "progressive"
    DECISION = "decision"
    WINGO = "wingo"
    TREASURE_CHEST = "treasure-chest"
    RAFFLE = "raffle"


# Games whose prizes are bingo prizes paid at the booth, reported as bingo (J5: WINGO too).
BINGO_KINDS = frozenset(
    {GameKind.REGULAR, GameKind.SPECIAL, GameKind.JACKPOT, GameKind.WINGO, GameKind.PROGRESSIVE}
)


class ProductKind(StrEnum):
    PACK = "pack"
    PAPER = "paper"
    DEVICE = "device"


@dataclass(frozen=True)
class Game:
    number: int  # its place on the program, from 1
    kind: GameKind
    name: str
    pattern: str = ""
    paper: str = ""  # what it is played on: a pack's paper ("6-on") or a series sold apart
    price: int | None = None  # cents: a progressive sheet (I4), a treasure chest entry
    prize: int | None = None  # cents: a fixed prize; a progressive game's starting prize
    pool: str = ""  # the prize rule when the prize is a pool
    entry: int | None = None  # decision bingo: cents per card face (G2)
    fee: int | None = None  # decision bingo: cents per three numbers called per card (G3)
    calls: int | None = None  # progressive: numbers called for the progressive prize (I3)
    increase: int | None = None  # progressive: the most the prize grows in a session
    house_rules: str = ""  # WINGO (J4), treasure chest (H2): how it is played
    raffle: str = ""  # a raffle drawing: the raffle's name or id

    @property
    def title(self) -> str:
        """As the program lists it: a treasure chest is always a Treasure Chest Raffle (H1)."""
        if self.kind is GameKind.TREASURE_CHEST:
            return CHEST_TITLE if self.name in ("", CHEST_TITLE) else f"{CHEST_TITLE}: {self.name}"
        return self.name

    def prize_text(self) -> str:
        """The prize as printed: fixed, or the pool and its rule."""
        if self.kind is GameKind.DECISION:
            return "the fees paid in, up to the regular bingo prize limit (excess kept, G4)"
        if self.kind is GameKind.PROGRESSIVE:
            return f"{format_money(self.prize or 0)} progressive in {self.calls} numbers" + (
                f", grows up to {format_money(self.increase)} a session" if self.increase else ""
            )
        if self.prize is not None:
            return format_money(self.prize)
        if self.pool:
            return f"pool: {self.pool}"
        if self.kind is GameKind.RAFFLE:
            return f"raffle {self.raffle}" if self.raffle else "raffle"
        return ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "name": self.name}
        for key in ("pattern", "paper", "pool", "house_rules", "raffle"):
            value = getattr(self, key)
            if value:
                out[key] = value
        for key in ("price", "prize", "entry", "fee", "increase"):
            value = getattr(self, key)
            if value is not None:
                out[key] = format_amount(value)
        if self.calls is not None:
            out["calls"] = self.calls
        return out


@dataclass(frozen=True)
class Product:
    kind: ProductKind
    name: str  # a pack's name, a paper series, a device package's name
    price: int | None = None  # cents; packs and device packages carry their own

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "name": self.name}
        if self.price is not None:
            out["price"] = format_amount(self.price)
        return out


@dataclass(frozen=True)
class Program:
    name: str
    games: tuple[Game, ...]
    house_rules: str = ""
    products: tuple[Product, ...] = field(default_factory=tuple)

    def game(self, number: int) -> Game | None:
        return next((g for g in self.games if g.number == number), None)

    def games_of(self, kind: GameKind) -> list[Game]:
        return [g for g in self.games if g.kind is kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "house_rules": self.house_rules,
            "games": [g.to_dict() for g in self.games],
            "products": [p.to_dict() for p in self.products],
        }


def _text(data: Mapping[str, Any], key: str, where: str, *, limit: int = MAX_NAME) -> str:
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidProgram(f"{where}.{key}", f"{value!r} is not text")
    value = value.strip()
    if len(value) > limit:
        raise InvalidProgram(f"{where}.{key}", f"is {len(value)} characters (at most {limit})")
    return value


def _amount(data: Mapping[str, Any], key: str, where: str) -> int | None:
    if data.get(key) in (None, ""):
        return None
    try:
        return parse_amount(data[key], f"{where}.{key}")
    except InvalidAmount as exc:
        raise InvalidProgram(exc.field, exc.reason) from None


def _count(data: Mapping[str, Any], key: str, where: str, *, maximum: int) -> int | None:
    if data.get(key) in (None, ""):
        return None
    try:
        return parse_count(data[key], f"{where}.{key}", maximum=maximum)
    except InvalidAmount as exc:
        raise InvalidProgram(exc.field, exc.reason) from None


def _game(number: int, data: object) -> Game:
    where = f"games[{number}]"
    if not isinstance(data, Mapping):
        raise InvalidProgram(where, "is not an object")
    raw_kind = data.get("kind", "regular")
    try:
        kind = GameKind(str(raw_kind).strip().lower())
    except ValueError:
        known = ", ".join(k.value for k in GameKind)
        raise InvalidProgram(f"{where}.kind", f"{raw_kind!r} is not one of {known}") from None
    name = _text(data, "name", where)
    if not name and kind is not GameKind.TREASURE_CHEST:
        raise InvalidProgram(f"{where}.name", "is missing: every game has a name")
    if kind is GameKind.TREASURE_CHEST and name in ("", CHEST_TITLE):
        name = CHEST_TITLE
    return Game(
        number=number,
        kind=kind,
        name=name,
        pattern=_text(data, "pattern", where),
        paper=_text(data, "paper", where),
        price=_amount(data, "price", where),
        prize=_amount(data, "prize", where),
        pool=_text(data, "pool", where, limit=400),
        entry=_amount(data, "entry", where),
        fee=_amount(data, "fee", where),
        calls=_count(data, "calls", where, maximum=75),
        increase=_amount(data, "increase", where),
        house_rules=_text(data, "house_rules", where, limit=MAX_TEXT),
        raffle=_text(data, "raffle", where),
    )


def _product(index: int, data: object) -> Product:
    where = f"products[{index}]"
    if not isinstance(data, Mapping):
        raise InvalidProgram(where, "is not an object")
    raw_kind = data.get("kind", "")
    try:
        kind = ProductKind(str(raw_kind).strip().lower())
    except ValueError:
        known = ", ".join(k.value for k in ProductKind)
        raise InvalidProgram(f"{where}.kind", f"{raw_kind!r} is not one of {known}") from None
    name = _text(data, "name", where)
    if not name:
        raise InvalidProgram(f"{where}.name", "is missing")
    return Product(kind, name, _amount(data, "price", where))


def parse_program(data: object) -> Program:
    """A program from its interchange mapping; games are numbered in the order given."""
    if not isinstance(data, Mapping):
        raise InvalidProgram("program", "is not an object")
    name = _text(data, "name", "program")
    if not name:
        raise InvalidProgram("program.name", "is missing")
    games_data = data.get("games")
    if not isinstance(games_data, list) or not games_data:
        raise InvalidProgram("program.games", "give the games in order (a list of at least one)")
    if len(games_data) > MAX_GAMES:
        raise InvalidProgram("program.games", f"{len(games_data)} games (at most {MAX_GAMES})")
    products_data = data.get("products") or []
    if not isinstance(products_data, list):
        raise InvalidProgram("program.products", "is not a list")
    return Program(
        name=name,
        games=tuple(_game(n, g) for n, g in enumerate(games_data, start=1)),
        house_rules=_text(data, "house_rules", "program", limit=MAX_TEXT),
        products=tuple(_product(i, p) for i, p in enumerate(products_data)),
    )


def with_game_changes(program: Program, number: int, changes: Mapping[str, Any]) -> Program:
    """The program with game `number`'s fields changed (amounts as decimal strings, "" clears
    a field); every other game as it was."""
    games = [g.to_dict() for g in program.games]
    if not 1 <= number <= len(games):
        raise InvalidProgram("game", f"{number} is not a game of the program (1..{len(games)})")
    target = games[number - 1]
    for key, value in changes.items():
        if value == "":
            target.pop(key, None)
        else:
            target[key] = value
    return parse_program({**program.to_dict(), "games": games})


# -- decision bingo arithmetic (G2-G4) --------------------------------------------------------


@dataclass(frozen=True)
class DecisionPool:
    paid_in: int  # entries and fees, cents
    prize: int  # what the winner is paid: the pool, at most the limit (G4)
    retained: int  # what the organisation keeps: the pool above the limit


def decision_pool(entries: int, fees: int, *, limit: int) -> DecisionPool:
    """G4: the prize is the total paid in, never above the regular bingo prize limit; the
    excess is retained by the organisation."""
    paid_in = entries + fees
    prize = min(paid_in, limit)
    return DecisionPool(paid_in, prize, paid_in - prize)


def progressive_growth(increase: int | None, session_sales: int, *, limit: int) -> int:
    """How much a progressive prize grows after a session it was not won in: the program's
    increase, at most half of that session's sales of its paper and at most the limit."""
    return max(0, min(increase or 0, session_sales // 2, limit))


def split(amount: int, winners: int) -> list[int]:
    """A prize split evenly between winners, the odd cents to the first ones."""
    if winners < 1:
        raise ValueError("a prize has at least one winner")
    base, rest = divmod(amount, winners)
    return [base + (1 if index < rest else 0) for index in range(winners)]
