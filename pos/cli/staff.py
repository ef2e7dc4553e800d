"""booth staff add, booth staff list, booth staff pin."""

from __future__ import annotations

import sys

import click

from pos.cli.common import emit, json_option, local_only, operator_option, reads, state
from pos.domain.identity import STAFF_ROLES
from pos.services import staff as staff_service


@click.group()
def staff() -> None:
    """The hall's staff and their roles."""


@staff.command("add")
@click.option("--name", required=True)
@click.option("--badge", required=True, help="The code on their badge.")
@click.option(
    "--role",
    "roles",
    type=click.Choice(STAFF_ROLES, case_sensitive=False),
    multiple=True,
    required=True,
)
@click.option("--dob", "date_of_birth", help="Date of birth, YYYY-MM-DD or M/D/YYYY.")
@operator_option
@json_option
@click.pass_context
def staff_add(
    ctx: click.Context,
    name: str,
    badge: str,
    roles: tuple[str, ...],
    date_of_birth: str | None,
    operator: str | None,
) -> None:
    """Add a person to the hall's staff (the first must be a manager)."""
    with state(ctx).open_station() as st:
        result = staff_service.add_staff(
            st,
            badge=badge,
            name=name,
            roles=list(roles),
            date_of_birth=date_of_birth,
            operator=operator,
        )
    emit(
        ctx,
        result,
        f"Added {result['name']} (badge {result['badge']}): {', '.join(result['roles'])}.",
    )


@staff.command("consent")
@click.argument("badge")
@click.option("--guardian", required=True, help="The parent or legal guardian who signed it.")
@click.option("--signed", required=True, help="The day it was signed (YYYY-MM-DD).")
@click.option("--name", help="Whose it is, for a badge not on staff yet.")
@operator_option
@json_option
@click.pass_context
def staff_consent(
    ctx: click.Context,
    badge: str,
    guardian: str,
    signed: str,
    name: str | None,
    operator: str | None,
) -> None:
    """Put on file the written consent of a parent or legal guardian for a worker aged 14
    through 17 (11VAC20-20-60 E); keep the signed paper with the hall's records."""
    with state(ctx).open_station() as st:
        result = staff_service.record_consent(
            st, badge, guardian=guardian, signed=signed, name=name, operator=operator
        )
    emit(
        ctx,
        result,
        f"Consent on file for {result['name']} (badge {result['badge']}): signed by "
        f"{result['guardian']} on {result['signed']}.",
    )


@staff.command("list")
@json_option
@click.pass_context
@reads
def staff_list(ctx: click.Context) -> None:
    """List the hall's staff."""
    with state(ctx).open_station() as st:
        people = staff_service.list_staff(st)
    emit(
        ctx,
        people,
        lambda: (
            "\n".join(f"{p['badge']:<12} {p['name']:<30} {', '.join(p['roles'])}" for p in people)
            or "No staff yet."
        ),
    )


def _read_pin(from_stdin: bool) -> str:
    """The PIN: the first line of stdin (--pin-stdin, for scripts), else asked twice without
    echo. Never an option: a command line is visible to every user of the machine."""
    if from_stdin:
        line = str(sys.stdin.readline())
        return line.rstrip("\r\n")
    pin: str = click.prompt("New PIN (4 to 8 digits)", hide_input=True, confirmation_prompt=True)
    return pin


@staff.command("pin")
@click.argument("badge")
@click.option("--pin-stdin", is_flag=True, help="Read the PIN from the first line of stdin.")
@operator_option
@json_option
@click.pass_context
@local_only
def staff_pin(ctx: click.Context, badge: str, pin_stdin: bool, operator: str | None) -> None:
    """Set a person's PIN (a manager sets anyone's; a person their own). Only a slow hash of it
    is kept (and replicated, so the badge and PIN work at every station); the PIN is hashed
    here and never leaves this process."""
    from pos.cli.client import owner_answers
    from pos.domain import pins
    from pos.services.inputs import checked_input

    with checked_input("pin"):
        stored = pins.hash_pin(_read_pin(pin_stdin))
    cli = state(ctx)
    if owner_answers(cli.hall):
        from pos.cli import client
        from pos.cli.request_ids import new_request_id

        args = ["staff", "pin-hash", badge, stored, *(["--as", operator] if operator else [])]
        result = client.forward(
            cli.hall,
            [*args, *(["--json"] if cli.json else [])],
            cli.request_id or new_request_id(),
            explicit_id=False,
        )
        click.echo(result.stdout, nl=False)
        click.echo(result.stderr, nl=False, err=True)
        ctx.exit(result.exit_code)
    _record_pin(ctx, badge, stored, operator)


@staff.command("pin-hash", hidden=True)
@click.argument("badge")
@click.argument("stored")
@operator_option
@json_option
@click.pass_context
def staff_pin_hash(ctx: click.Context, badge: str, stored: str, operator: str | None) -> None:
    """A PIN's hash, made by `booth staff pin` in the caller's process, recorded by the owner."""
    _record_pin(ctx, badge, stored, operator)


def _record_pin(ctx: click.Context, badge: str, stored: str, operator: str | None) -> None:
    from pos.services import signon

    with state(ctx).open_station() as st:
        result = signon.set_pin_hash(st, badge, stored, operator=operator)
    emit(ctx, result, f"PIN set for {result['name']} (badge {result['badge']}).")
