"""What every command shares: the hall directory, the operator, --json, and output."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from pos.services.station import Station

F = TypeVar("F", bound=Callable[..., Any])


def default_hall_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("booth", appauthor=False)) / "station"


@dataclass
class CliState:
    hall: Path = Path(".")
    json: bool = False

    def open_station(self) -> Station:
        return Station(self.hall)


def json_option(func: F) -> F:
    def remember(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
        if value:
            ctx.ensure_object(CliState).json = True
        return value

    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        expose_value=False,
        callback=remember,
        is_eager=True,
        help="Print machine-readable JSON.",
    )(func)


def operator_option(func: F) -> F:
    return click.option(
        "--as",
        "operator",
        envvar="BOOTH_OPERATOR",
        metavar="BADGE",
        help="The operator's badge (or BOOTH_OPERATOR).",
    )(func)


def state(ctx: click.Context) -> CliState:
    return ctx.ensure_object(CliState)


def emit(ctx: click.Context, data: Any, human: str | Callable[[], str]) -> None:
    if state(ctx).json:
        click.echo(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        click.echo(human() if callable(human) else human)


def env_now_hint() -> str:
    return os.environ.get("BOOTH_NOW", "")
