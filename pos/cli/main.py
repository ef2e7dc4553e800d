"""Entry point: the `booth` group, its subcommands, and the mapping of errors to exit codes."""

from __future__ import annotations

import json
import sys
from importlib.metadata import entry_points
from pathlib import Path

import click

from pos import __version__
from pos.cli.backup import backup, restore
from pos.cli.common import CliState, default_hall_dir
from pos.cli.deals import deal, house, rules
from pos.cli.demo import demo
from pos.cli.devices import device, rent
from pos.cli.exceptions import exception
from pos.cli.hall import init, join, station
from pos.cli.ledger import rebuild, verify
from pos.cli.receipts import printer, receipt, voucher
from pos.cli.reports import drawer, export, report
from pos.cli.roster import check_buyer, roster
from pos.cli.run import run
from pos.cli.sales import dispenser, player, sell, session
from pos.cli.scanning import scan, scanner
from pos.cli.staff import staff
from pos.cli.winners import check, redeem, seal, void
from pos.errors import BoothError, RuleRefused


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
    ctx.ensure_object(CliState).hall = hall or default_hall_dir()


COMMANDS = [
    init, join, station, staff, verify, rebuild, demo,
    deal, house, rules, session, sell, player, dispenser,
    redeem, void, check, seal, scan, scanner, exception,
    roster, check_buyer, device, rent, report, export, drawer,
    receipt, printer, voucher, backup, restore, run,
]  # fmt: skip
for command in COMMANDS:
    cli.add_command(command)


def _plugin_commands() -> None:
    """Commands of other layers (sync, front ends), found by entry point so that the core never
    imports them; each plugin module keeps its heavy imports inside its commands."""
    for entry in entry_points(group="booth.commands"):
        for command in entry.load():
            cli.add_command(command)


_plugin_commands()


def _report(error: BoothError, as_json: bool) -> None:
    if as_json:
        payload: dict[str, object] = {"error": error.message, "exit": error.exit_code}
        if isinstance(error, RuleRefused):
            payload["rule"] = error.rule
        click.echo(json.dumps(payload, sort_keys=True))
    click.echo(f"booth: {error.message}", err=True)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    try:
        code = cli.main(args=args, prog_name="booth", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("booth: aborted", err=True)
        sys.exit(2)
    except BoothError as exc:
        _report(exc, "--json" in args)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
