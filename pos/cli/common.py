"""What every command shares: the hall directory, the operator, --json, and output."""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pos.domain.money import json_form
from pos.errors import BoothError
from pos.ledger import requests
from pos.services import money_path, print_queue
from pos.services.station import Station

if TYPE_CHECKING:  # imported where used: a write (`booth sell`) needs none of them
    from pos.services.ports import ReceiptPrinter
    from pos.services.read_access import Reader

F = TypeVar("F", bound=Callable[..., Any])

#: Seconds a write waits for another `booth` process writing to the same idle station.
LOCK_WAIT = 10.0


class Access(enum.Enum):
    """How a command reaches a station whose owner (its screen or `booth serve`) is running.

    WRITE: sent to the owner and run on its worker (the default). READ: run on a read-only
    connection, in the owner when it runs (it answers at once, warm), else here, with no lock
    (a write-protected copy works). LOCAL: always run in this process (it creates a station,
    starts an owner, or works on files beside the ledger)."""

    WRITE = "write"
    READ = "read"
    LOCAL = "local"


def reads(func: F) -> F:
    """Mark a command that only reads: no lock, a read-only ledger; and give it `--as BADGE`
    (or BOOTH_OPERATOR): who reads, checked when the station opens against what the read
    shows (pos.domain.read_access, rule ROLE)."""
    func.booth_access = Access.READ  # type: ignore[attr-defined]

    def remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
        if value:
            ctx.ensure_object(CliState).badge = value

    return click.option(
        "--as",
        "reader_badge",
        envvar="BOOTH_OPERATOR",
        metavar="BADGE",
        expose_value=False,
        callback=remember,
        help="Who reads: their badge (or BOOTH_OPERATOR); reads of money or people need one.",
    )(func)


def local_only(func: F) -> F:
    """Mark a command that always runs in the calling process."""
    func.booth_access = Access.LOCAL  # type: ignore[attr-defined]
    return func


def command_access(command: click.Command | None) -> Access:
    callback = getattr(command, "callback", None)
    access = getattr(callback, "booth_access", Access.WRITE)
    return access if isinstance(access, Access) else Access.WRITE


class AlreadyAnswered(Exception):
    """The command's request id was done before: its first answer stands."""

    def __init__(self, claim: requests.Claim) -> None:
        super().__init__(claim.request_id)
        self.claim = claim


@dataclass
class Owner:
    """Inside the station's running owner: the station a forwarded command uses (the worker's
    for a write, a reader's view for a read) and what follows a write (printing, redraws)."""

    station: Station
    after_write: Callable[[Station], None]


@dataclass
class CliState:
    hall: Path = Path(".")
    json: bool = False
    request_id: str | None = None
    owner: Owner | None = None
    #: set once the command opened the station to write (its answer may be kept)
    wrote: bool = field(default=False)
    #: a read's `--as BADGE`, and once the station is open, who reads and what they may see
    badge: str | None = None
    reader: Reader | None = None

    @property
    def read_by(self) -> Reader:
        """Who reads (set once a reading command opened its station)."""
        if self.reader is None:
            raise RuntimeError("read_by before the read opened its station")
        return self.reader

    @contextmanager
    def open_station(
        self, *, log_only: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> Iterator[Station]:
        """The station for one command; once the command has committed, its receipts print.

        Beside a running owner this is the owner's station (the command was forwarded to it);
        a reading command gets a read-only station and takes no lock. `log_only`: the command
        reads only the log (Station); `progress`: a rebuild while opening to write."""
        context = click.get_current_context()
        access = command_access(context.command)
        if self.owner is not None:
            self.wrote = access is not Access.READ
            if access is Access.READ:
                from pos.services import read_access  # a write needs none of it

                self.reader = read_access.reader(
                    self.owner.station, self.badge, context.command_path
                )
            yield self.owner.station
            if access is not Access.READ:
                self.owner.after_write(self.owner.station)
            return
        read = access is Access.READ
        st = Station(
            self.hall,
            read_only=read,
            lock_wait=0.0 if access is Access.LOCAL else LOCK_WAIT,
            log_only=log_only,
            progress=progress,
        )
        if st.ledger.stale_projections and not log_only:
            click.echo(
                f"booth: note: {self.hall} was last opened to write by another version of "
                f"Booth; this read replayed its log in memory. Start the station, or run "
                f"'booth --hall {self.hall} rebuild', to rebuild its projections once.",
                err=True,
            )
        try:
            if not read and self.request_id is not None:
                claim = money_path.done_before(st, self.request_id)
                if claim is not None:
                    raise AlreadyAnswered(claim)
            self.wrote = not read
            if read:
                from pos.services import read_access

                self.reader = read_access.reader(st, self.badge, context.command_path)
            yield st
            if not read:
                print_queued_receipts(st)
        finally:
            st.close()


def configured_printer(st: Station) -> ReceiptPrinter | None:
    from pos.cli.adapters import load_receipt_printer
    from pos.services.devices import device_settings

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
    if not print_queue.pending(st):
        return
    try:
        printer = configured_printer(st)
    except BoothError as error:
        click.echo(f"booth: printer: {error.message}; receipts stay queued", err=True)
        return
    if printer is None:
        return
    from pos.services import receipts  # what a receipt says: only once one prints

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


# Whole-number options within the bounds their meaning allows: never a number too large for
# the ledger (SQLite holds 64 bits), never a negative count.
GAME_NUMBER = click.IntRange(1, 1000)
RECEIPT_NUMBER = click.IntRange(1, 10**12)
VERSION_NUMBER = click.IntRange(1, 10**6)
LINE_NUMBER = click.IntRange(1, 10_000)
YEAR = click.IntRange(1900, 9999)


def manager_decision_options(func: F) -> F:
    """--manager and --reason: a manager deciding a near match to a worker (rule D)."""
    func = click.option("--reason", help="The manager's reason for allowing it.")(func)
    return click.option(
        "--manager",
        metavar="BADGE",
        help="A manager's badge, deciding a near match to a worker (rule D).",
    )(func)


_WINNER_OPTIONS = (
    ("--winner-name", "W-2G: the winner's name."),
    ("--winner-address", "W-2G: the winner's address."),
    ("--winner-tin", "W-2G: the winner's taxpayer ID."),
    ("--winner-id", "W-2G: the photo ID shown (type and number)."),
)


def winner_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--winner-name, --winner-address, --winner-tin and --winner-id, given to the command as
    one `winner` (a Winner, or None when none was given): the data Form W-2G needs."""

    @functools.wraps(func)
    def command(
        *args: Any,
        winner_name: str,
        winner_address: str,
        winner_tin: str,
        winner_id: str,
        **kwargs: Any,
    ) -> Any:
        from pos.services.w2g import Winner  # only the commands that pay a prize

        parts = (winner_name, winner_address, winner_tin, winner_id)
        winner = Winner(*parts) if any(parts) else None
        return func(*args, winner=winner, **kwargs)

    wrapped: Callable[..., Any] = command
    for name, help_text in reversed(_WINNER_OPTIONS):
        wrapped = click.option(name, default="", help=help_text)(wrapped)
    return wrapped


def buyer_options(func: F) -> F:
    """--buyer, checked against the roster and the ledger (rule D), and a manager's decision."""
    func = manager_decision_options(func)
    return click.option(
        "--buyer", help="The buyer's player card, badge or ID scan (checked for rule D)."
    )(func)


def state(ctx: click.Context) -> CliState:
    return ctx.ensure_object(CliState)


def emit(ctx: click.Context, data: Any, human: str | Callable[[], str]) -> None:
    if state(ctx).json:
        click.echo(json.dumps(json_form(data), indent=2, sort_keys=True, default=str))
    else:
        click.echo(human() if callable(human) else human)
