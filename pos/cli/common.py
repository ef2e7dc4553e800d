"""What every command shares: the hall directory, the operator, --json, and output."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from pos.cli.adapters import load_receipt_printer
from pos.errors import BoothError
from pos.services import receipts
from pos.services.devices import device_settings
from pos.services.ports import ReceiptPrinter
from pos.services.station import Station

F = TypeVar("F", bound=Callable[..., Any])


def default_hall_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("booth", appauthor=False)) / "station"


@dataclass
class CliState:
    hall: Path = Path(".")
    json: bool = False

    @contextmanager
    def open_station(self) -> Iterator[Station]:
        """The station for one command; once the command has committed, its receipts print."""
        st = Station(self.hall)
        try:
            yield st
            print_queued_receipts(st)
        finally:
            st.close()


def configured_printer(st: Station) -> ReceiptPrinter | None:
    settings = device_settings(st)
    spec = settings.get("printer")
    if not spec:
        return None
    printer: ReceiptPrinter = load_receipt_printer(
        spec, st.directory, settings.get("printer_profile")
    )
    return printer


def print_queued_receipts(st: Station) -> None:
    """After a command: print what it queued. A printer fault keeps the jobs queued and the
    station working, and says so (the receipt prints when the printer is back)."""
    if not receipts.pending(st):
        return
    try:
        printer = configured_printer(st)
    except BoothError as error:
        click.echo(f"booth: printer: {error.message}; receipts stay queued", err=True)
        return
    if printer is None:
        return
    result = receipts.print_pending(st, printer)
    if result["error"]:
        click.echo(
            f"booth: printer: {result['error']}; receipts {result['queued']} stay "
            "queued and print when it is back",
            err=True,
        )


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
