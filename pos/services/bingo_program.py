"""The bingo session's game program (issue #18; rules A, G5, H1, I3, I4, J4, LIMIT, I7).

What it offers (stable names; the screens build on them):

- `read_program_file(path)` -> Program            a program from its JSON or TOML file
- `create_program(st, program, operator=)`        define a program (version 1, or the next version
                                                  of a program of that name): `ProgramView`
- `edit_program(st, name, game=, changes=, house_rules=, operator=)`
                                                  a new version with one game's fields changed
                                                  (or the house rules): `ProgramView`
- `show_program(st, name=None, version=None)`     the program in effect (or a named version):
                                                  `ProgramView`, or NotFound
- `program_history(st, name=None)`                every version: list of `ProgramView`
- `program_in_effect(st)`                         the parsed Program and its version, or None
- `program_view(...)`                             plain dataclasses for screens: `ProgramView`,
                                                  `GameLine`

Every version is an event (`ProgramDefined`), so the inspector's export holds every version.
Prize limits are checked when a program is defined (pos.domain.checks.bingo.program_limits).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pos.domain.bingo_program import (
    Game,
    GameKind,
    Program,
    parse_program,
    with_game_changes,
)
from pos.domain.checks import bingo as bingo_checks
from pos.domain.money import format_amount
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import bingo_games as games_read
from pos.ledger.projections import bingo_paper as paper_read
from pos.ledger.projections import bingo_program as program_read
from pos.ledger.projections import devices as devices_read
from pos.services.inputs import checked_input, read_input_text
from pos.services.settings import rulebook_settings
from pos.services.station import Station

PROGRAM_MAX = 256 * 1024


@dataclass(frozen=True)
class GameLine:
    number: int
    kind: str
    title: str
    pattern: str
    paper: str
    price: str | None  # decimal strings of dollars
    prize: str  # as printed: fixed, a pool and its rule, a progressive's prize and calls
    entry: str | None
    fee: str | None
    calls: int | None  # a progressive's calls now (I5), from the ledger
    pool: str | None  # a progressive's prize now, from the ledger
    house_rules: str
    raffle: str
    prize_amount: str | None = None  # the fixed (or progressive starting) prize, decimal
    increase: str | None = None  # a progressive's most growth a session, decimal


@dataclass(frozen=True)
class ProductLine:
    kind: str
    name: str
    price: str | None
    detail: str


@dataclass(frozen=True)
class ProgramView:
    name: str
    version: int
    defined_by: str | None
    house_rules: str
    games: list[GameLine]
    products: list[ProductLine]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "defined_by": self.defined_by,
            "house_rules": self.house_rules,
            "games": [g.__dict__ for g in self.games],
            "products": [p.__dict__ for p in self.products],
        }


def _money(cents: int | None) -> str | None:
    return None if cents is None else format_amount(cents)


def read_program_file(path: Path) -> Program:
    text = read_input_text(path, "program", limit=PROGRAM_MAX)
    with checked_input("program"):
        try:
            data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            raise BadInput("program", f"{path} does not parse: {exc}") from None
        return parse_program(data)


def program_from_mapping(data: object) -> Program:
    with checked_input("program"):
        return parse_program(data)


def _check_products(st: Station, program: Program) -> None:
    conn = st.ledger.conn
    devices = {p.name for p in devices_read.packages(conn)}
    for product in program.products:
        if product.kind.value == "pack" and paper_read.pack(conn, product.name) is None:
            raise BadInput("products", f"no pack {product.name!r} is defined (booth paper pack)")
        if product.kind.value == "device" and product.name not in devices:
            raise BadInput(
                "products", f"no device package {product.name!r} is defined (booth device package)"
            )
        if product.kind.value == "paper" and paper_read.paper_series(conn, product.name) is None:
            raise BadInput("products", f"no paper series {product.name!r} has been received")


def _define(st: Station, program: Program, by: str) -> ProgramView:
    with st.ledger.transaction():
        refuse(bingo_checks.program_limits(program, rulebook_settings(st)))
        _check_products(st, program)
        latest = program_read.program_version(st.ledger.conn, program.name)
        version = (latest.version + 1) if latest else 1
        st.append(
            "ProgramDefined",
            {"name": program.name, "version": version, "program": program.to_dict(), "by": by},
        )
    return show_program(st, program.name, version)


def create_program(st: Station, program: Program, *, operator: str | None) -> ProgramView:
    """Define a program; a program of a name already on file gets its next version."""
    by = st.operator(operator, "manager")
    return _define(st, program, by.badge)


def edit_program(
    st: Station,
    name: str,
    *,
    game: int | None = None,
    changes: dict[str, Any] | None = None,
    house_rules: str | None = None,
    operator: str | None,
) -> ProgramView:
    """A new version of program `name`: game `game`'s fields changed (amounts as decimal
    strings; "" clears a field), and/or new house rules."""
    by = st.operator(operator, "manager")
    found = program_read.program_version(st.ledger.conn, name)
    if found is None:
        raise NotFound(f"no program {name!r} is on file")
    program = program_from_mapping(found.program)
    with checked_input("program"):
        if game is not None and changes:
            program = with_game_changes(program, game, changes)
        if house_rules is not None:
            program = parse_program({**program.to_dict(), "house_rules": house_rules})
    if game is None and house_rules is None:
        raise BadInput("program", "say what changes: --game N with a field, or --house-rules")
    return _define(st, program, by.badge)


def program_in_effect(st: Station) -> tuple[Program, int] | None:
    """The program in effect (the one defined last, its latest version) and its version."""
    found = program_read.current_program(st.ledger.conn)
    if found is None:
        return None
    return program_from_mapping(found.program), found.version


def require_program(st: Station) -> tuple[Program, int]:
    found = program_in_effect(st)
    if found is None:
        raise NotFound("no game program is defined yet (booth program create)")
    return found


def require_game(program: Program, number: int, *kinds: GameKind) -> Game:
    game = program.game(number)
    if game is None:
        raise BadInput("game", f"{number} is not a game of program {program.name!r}")
    if kinds and game.kind not in kinds:
        wanted = " or ".join(k.value for k in kinds)
        raise BadInput("game", f"game {number} ({game.title}) is a {game.kind} game, not {wanted}")
    return game


def _game_line(st: Station, game: Game) -> GameLine:
    calls = pool = None
    if game.kind is GameKind.PROGRESSIVE:
        state = games_read.progressive(st.ledger.conn, game.name)
        if state is not None:
            calls, pool = state.calls, format_amount(state.pool)
    return GameLine(
        number=game.number,
        kind=game.kind.value,
        title=game.title,
        pattern=game.pattern,
        paper=game.paper,
        price=_money(game.price),
        prize=game.prize_text(),
        entry=_money(game.entry),
        fee=_money(game.fee),
        calls=calls,
        pool=pool,
        house_rules=game.house_rules,
        raffle=game.raffle,
        prize_amount=_money(game.prize),
        increase=_money(game.increase),
    )


def _product_line(st: Station, kind: str, name: str, price: int | None) -> ProductLine:
    conn = st.ledger.conn
    if kind == "pack":
        pack = paper_read.pack(conn, name)
        if pack is not None:
            items = ", ".join(f"{i['count']} x {i['series']}" for i in pack.items)
            return ProductLine(kind, name, format_amount(pack.price), f"{pack.games} ({items})")
    if kind == "device":
        for package in devices_read.packages(conn):
            if package.name == name:
                return ProductLine(
                    kind,
                    name,
                    format_amount(package.price),
                    f"electronic bingo device: {package.faces} faces x {package.games} games",
                )
    if kind == "paper":
        series = paper_read.paper_series(conn, name)
        detail = f"{series.faces} paper, sold apart" if series else "paper"
        return ProductLine(kind, name, _money(price), detail)
    return ProductLine(kind, name, _money(price), "")


def program_view(st: Station, program: Program, version: int, by: str | None) -> ProgramView:
    return ProgramView(
        name=program.name,
        version=version,
        defined_by=by,
        house_rules=program.house_rules,
        games=[_game_line(st, g) for g in program.games],
        products=[_product_line(st, p.kind.value, p.name, p.price) for p in program.products],
    )


def show_program(st: Station, name: str | None = None, version: int | None = None) -> ProgramView:
    """The program in effect, or program `name` (its latest version, or `version`)."""
    conn = st.ledger.conn
    found = (
        program_read.program_version(conn, name, version)
        if name
        else program_read.current_program(conn)
    )
    if found is None:
        raise NotFound(
            f"no program {name!r}" + (f" version {version}" if version else "") + " is on file"
            if name
            else "no game program is defined yet (booth program create)"
        )
    return program_view(st, program_from_mapping(found.program), found.version, found.by)


def program_history(st: Station, name: str | None = None) -> list[ProgramView]:
    """Every version of every program (or of `name`), oldest first."""
    return [
        program_view(st, program_from_mapping(v.program), v.version, v.by)
        for v in program_read.program_versions(st.ledger.conn, name)
    ]
