"""booth verify, booth rebuild."""

from __future__ import annotations

import click

from pos.cli.common import emit, json_option, reads, state
from pos.cli.progress import progress_bar
from pos.errors import IntegrityFailure
from pos.ledger.verify import verify as verify_ledger


@click.command()
@json_option
@click.pass_context
@reads
def verify(ctx: click.Context) -> None:
    """Check every station's chain and signatures; name the first bad event."""
    with state(ctx).open_station() as st:
        report = verify_ledger(st.ledger)
    data = report.to_dict()
    if report.ok:
        total = sum(s.events for s in report.origins.values())
        emit(
            ctx,
            data,
            f"OK: {total} events from {len(report.origins)} stations verify; "
            f"digest {report.digest[:16]}",
        )
        return
    if state(ctx).json:
        emit(ctx, data, "")
    first = report.problems[0]
    more = len(report.problems) - 1
    click.echo(
        f"booth: verification failed at {first}" + (f" (and {more} more)" if more else ""),
        err=True,
    )
    ctx.exit(IntegrityFailure.exit_code)


@click.command()
@json_option
@click.pass_context
def rebuild(ctx: click.Context) -> None:
    """Drop and recreate every projection from the event log."""
    with state(ctx).open_station() as st, progress_bar(ctx, "Rebuilding") as progress:
        count = st.ledger.rebuild(progress=progress)
    emit(ctx, {"events": count}, f"Rebuilt projections from {count} events.")
