"""booth staff add, booth staff list."""

from __future__ import annotations

import click

from pos.cli.common import emit, json_option, operator_option, reads, state
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
