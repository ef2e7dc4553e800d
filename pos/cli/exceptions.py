"""booth exception list, booth exception resolve."""

from __future__ import annotations

import click

from pos.cli.common import emit, json_option, operator_option, reads, state
from pos.services import exceptions as exceptions_service


@click.group()
def exception() -> None:
    """Exceptions for the manager to decide (double payments, counterfeits, devices, tickets
    paid on both sides of a cut, purchases rule D would have refused, near matches)."""


@exception.command("list")
@json_option
@click.pass_context
@reads
def exception_list(ctx: click.Context) -> None:
    """The exceptions not yet decided, newest first."""
    with state(ctx).open_station() as st:
        found = exceptions_service.open_exceptions(st)
        notes = exceptions_service.record_notes(st)
    emit(
        ctx,
        found,
        lambda: "\n".join(
            (
                [f"{e['exception']:<16} {e['kind']:<22} {e['detail']}" for e in found]
                or ["No exceptions to decide."]
            )
            + [f"note: {line}" for line in notes]
        ),
    )


@exception.command("resolve")
@click.argument("ref", metavar="ORIGIN:SEQ")
@click.option(
    "--decision",
    type=click.Choice(exceptions_service.DECISIONS),
    required=True,
    help="accepted, rejected or noted.",
)
@click.option("--note", required=True, help="Why: recorded with the decision.")
@operator_option
@json_option
@click.pass_context
def exception_resolve(
    ctx: click.Context, ref: str, decision: str, note: str, operator: str | None
) -> None:
    """Decide an exception (managers), once, with a note."""
    origin, seq = exceptions_service.parse_ref(ref)
    with state(ctx).open_station() as st:
        result = exceptions_service.resolve_exception(
            st, origin, seq, decision=decision, note=note, operator=operator
        )
    emit(
        ctx,
        result,
        f"Exception {result['exception']} ({result['kind']}) {result['decision']} "
        f"by {result['resolved_by']}: {result['note']}",
    )
