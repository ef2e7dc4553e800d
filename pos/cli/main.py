"""Entry point: the `booth` group, its subcommands, and the mapping of errors to exit codes."""

from __future__ import annotations

import io
import json
import sqlite3
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import click

from pos import __version__
from pos.cli.common import AlreadyAnswered, CliState
from pos.cli.common_paths import default_hall_dir
from pos.cli.lazy_group import LazyGroup
from pos.cli.request_ids import BadRequestId, new_request_id, split_request_id
from pos.errors import BadInput, BoothError, RuleRefused, StorageFailure, elide_long_values
from pos.ledger import requests
from pos.ledger.store import ledger_error
from pos.services.station import LEDGER_FILE

if TYPE_CHECKING:  # imported by a command whose answer is kept (it has a request id)
    from pos.cli.capture import Captured

# Each command, and a function importing the module it lives in: imported when it is named
# (pos.cli.lazy_group), so a command line imports its own command's modules only. Commands of
# other layers (sync, front ends) come by the `booth.commands` entry point (pos.plugins), read
# only when a name is not one of these.


def _hall() -> ModuleType:
    from pos.cli import hall

    return hall


def _staff() -> ModuleType:
    from pos.cli import staff

    return staff


def _ledger() -> ModuleType:
    from pos.cli import ledger

    return ledger


def _demo() -> ModuleType:
    from pos.cli import demo

    return demo


def _deals() -> ModuleType:
    from pos.cli import deals

    return deals


def _sales() -> ModuleType:
    from pos.cli import sales

    return sales


def _winners() -> ModuleType:
    from pos.cli import winners

    return winners


def _scanning() -> ModuleType:
    from pos.cli import scanning

    return scanning


def _exceptions() -> ModuleType:
    from pos.cli import exceptions

    return exceptions


def _roster() -> ModuleType:
    from pos.cli import roster

    return roster


def _devices() -> ModuleType:
    from pos.cli import devices

    return devices


def _reports() -> ModuleType:
    from pos.cli import books, reports  # noqa: F401  books adds to report and drawer

    return reports


def _receipts() -> ModuleType:
    from pos.cli import receipts

    return receipts


def _backup() -> ModuleType:
    from pos.cli import backup

    return backup


def _run() -> ModuleType:
    from pos.cli import run

    return run


def _sessions() -> ModuleType:
    from pos.cli import sessions

    return sessions


def _raffle() -> ModuleType:
    from pos.cli import raffle

    return raffle


def _bingo() -> ModuleType:
    from pos.cli import bingo

    return bingo


def _books() -> ModuleType:
    from pos.cli import books

    return books


COMMANDS: dict[str, Callable[[], ModuleType]] = {
    "init": _hall,
    "join": _hall,
    "station": _hall,
    "staff": _staff,
    "verify": _ledger,
    "rebuild": _ledger,
    "demo": _demo,
    "deal": _deals,
    "house": _deals,
    "rules": _deals,
    "session": _sessions,
    "sell": _sales,
    "player": _sales,
    "dispenser": _sales,
    "acceptor": _sales,
    "redeem": _winners,
    "punch": _winners,
    "void": _winners,
    "check": _winners,
    "seal": _winners,
    "scan": _scanning,
    "scan-code": _scanning,
    "scanner": _scanning,
    "exception": _exceptions,
    "roster": _roster,
    "check-buyer": _roster,
    "device": _devices,
    "rent": _devices,
    "report": _reports,
    "export": _reports,
    "drawer": _reports,
    "receipt": _receipts,
    "printer": _receipts,
    "voucher": _receipts,
    "backup": _backup,
    "restore": _backup,
    "run": _run,
    "raffle": _raffle,
    "program": _bingo,
    "paper": _bingo,
    "bingo": _bingo,
    "deposit": _books,
    "disbursement": _books,
    "bank": _books,
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="booth")
@click.option(
    "--hall",
    envvar="BOOTH_HALL",
    type=click.Path(file_okay=False, path_type=Path),
    help="This station's directory (or BOOTH_HALL; default: the platform's data directory).",
)
@click.pass_context
def cli(ctx: click.Context, hall: Path | None) -> None:
    """Booth: point of sale for charitable gaming halls.

    Exit codes: 0 done, 1 refused by a rule, 2 bad usage or input, 3 hardware, network or
    storage failure (or the station is in use), 4 the ledger or a signed payload fails
    verification.
    """
    cli_state = ctx.ensure_object(CliState)
    if cli_state.owner is None:  # inside the owner, the station is the owner's
        cli_state.hall = hall or default_hall_dir()


def report_error(error: BoothError, as_json: bool) -> int:
    """Say what went wrong (as JSON too, with --json); returns the error's exit code."""
    if as_json:
        payload: dict[str, object] = {"error": error.message, "exit": error.exit_code}
        if isinstance(error, RuleRefused):
            payload["rule"] = error.rule
        click.echo(json.dumps(payload, sort_keys=True))
    click.echo(f"booth: {error.message}", err=True)
    return error.exit_code


def replay(claim: requests.Claim, as_json: bool, command: requests.Command | None = None) -> int:
    """The answer to a request id that was done before; exit 2 when it was done for another
    command than `command`."""
    if claim.other_command(command):
        assert claim.command is not None
        return report_error(
            BadInput(
                "request-id",
                f"{claim.request_id} was used for `{claim.command.line}`, not for this "
                "command: give this command a new request id",
            ),
            as_json,
        )
    if claim.answer is not None:
        sys.stdout.write(claim.answer.stdout)
        sys.stderr.write(claim.answer.stderr)
        return claim.answer.exit_code
    if as_json:
        click.echo(
            json.dumps(
                {"request_id": claim.request_id, "done_before": True, "events": claim.events()},
                sort_keys=True,
            )
        )
    click.echo(
        f"booth: request {claim.request_id} was done before ({claim.events()}); "
        "its answer was lost, nothing was done again",
        err=True,
    )
    return 0


def execute(args: list[str], cli_state: CliState, command: requests.Command | None = None) -> int:
    """Run one command line in this process; its output goes to sys.stdout and sys.stderr.
    Returns the exit code (errors become their message and code, never a traceback).
    `command`: the command line its request id is claimed for."""
    try:
        with requests.running(cli_state.request_id, command):
            code = cli.main(args=args, prog_name="booth", standalone_mode=False, obj=cli_state)
    except click.ClickException as exc:
        shown = io.StringIO()
        exc.show(file=shown)
        click.echo(elide_long_values(shown.getvalue()), err=True, nl=False)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("booth: aborted", err=True)
        return 2
    except AlreadyAnswered as done:
        return replay(done.claim, "--json" in args, command)
    except BoothError as exc:
        return report_error(exc, "--json" in args)
    except sqlite3.DatabaseError as exc:  # met outside a transaction: a read of a bad page
        return report_error(ledger_error(exc), "--json" in args)
    except OSError as exc:  # a file the command wrote or read: a full disk, no such directory
        where = f"{exc.filename}: " if exc.filename else ""
        failure = StorageFailure(f"{where}{exc.strerror or exc}")
        return report_error(failure, "--json" in args)
    return int(code) if isinstance(code, int) else 0


def keeps_answer(exit_code: int) -> bool:
    """Answers kept for a request id: done (0) and refused by a rule (1). The others (bad input,
    a failure, a forgery) recorded nothing and may be tried again with the same id."""
    return exit_code in (0, 1)


def _captured(request_id: str | None) -> AbstractContextManager[Captured | None]:
    """What the command prints, captured when its answer is kept (a request id was given)."""
    if request_id is None:
        return nullcontext()
    from pos.cli.capture import capturing

    return capturing(tee=True)


def main(argv: list[str] | None = None) -> None:
    """`booth` in this process (no running owner took the command)."""
    try:
        args, request_id = split_request_id(sys.argv[1:] if argv is None else argv)
    except BadRequestId as exc:
        click.echo(f"booth: {exc}", err=True)
        sys.exit(2)
    cli_state = CliState(request_id=request_id or new_request_id())
    command = requests.Command.of(args)
    try:
        with _captured(request_id) as captured:
            code = execute(args, cli_state, command)
        if (
            captured is not None
            and request_id is not None
            and cli_state.wrote
            and keeps_answer(code)
        ):
            answer = requests.Answer(code, captured.stdout.getvalue(), captured.stderr.getvalue())
            try:
                requests.keep_answer_at(
                    str(cli_state.hall / LEDGER_FILE), request_id, answer, command
                )
            except Exception as exc:  # the work is done and claimed; only the copy is lost
                report_error(
                    StorageFailure(f"the answer to {request_id} was not kept: {exc}"), False
                )
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(code)
