"""booth verify, booth rebuild."""

from __future__ import annotations

import click

from pos.cli.common import emit, json_option, reads, state
from pos.cli.progress import progress_bar
from pos.errors import IntegrityFailure, LedgerDamaged
from pos.ledger.verify import Report
from pos.ledger.verify import verify as verify_ledger
from pos.services.station import Station


@click.command()
@click.option(
    "--deep",
    is_flag=True,
    help="Also check every projection against a fresh rebuild (in a scratch copy).",
)
@json_option
@click.pass_context
@reads
def verify(ctx: click.Context, deep: bool) -> None:
    """Check the file (SQLite's integrity check), every station's chain and signatures; name
    the first bad event. --deep: also every projection against a rebuild of the log."""
    try:
        # The log alone: projections another version of Booth made are not replayed for it
        # (--deep compares them with a rebuild, so it needs them).
        with state(ctx).open_station(log_only=not deep) as st:
            report = verify_ledger(st.ledger, deep=deep)
    except LedgerDamaged as damaged:
        # The file is malformed: verification fails (exit 4), whatever could not be read.
        raise IntegrityFailure(f"verification failed: {damaged.message}") from None
    data = report.to_dict()
    if report.ok:
        total = sum(s.events for s in report.origins.values())
        emit(
            ctx,
            data,
            f"OK: {total} events from {len(report.origins)} stations verify; "
            f"digest {report.digest[:16]}"
            + ("; every projection matches a rebuild" if deep else ""),
        )
        return
    if state(ctx).json:
        emit(ctx, data, "")
    click.echo(f"booth: verification failed at {_problems(report)}", err=True)
    ctx.exit(IntegrityFailure.exit_code)


def _problems(report: Report) -> str:
    first = report.problems[0]
    more = len(report.problems) - 1
    return f"{first}" + (f" (and {more} more)" if more else "")


@click.command()
@json_option
@click.pass_context
def rebuild(ctx: click.Context) -> None:
    """Drop and recreate every projection from the event log, once the log verifies."""
    cli = state(ctx)
    with progress_bar(ctx, "Rebuilding") as progress:
        if cli.owner is None:
            # Checked before the station opens to write: that opening rebuilds projections
            # another version of Booth made (once; this command then does not rebuild again).
            with Station(cli.hall, read_only=True, log_only=True) as reader:
                _refuse_unverified(verify_ledger(reader.ledger))
        with cli.open_station(progress=progress) as st:
            count = st.ledger.rebuilt_on_open
            if count is None:
                if cli.owner is not None:
                    _refuse_unverified(verify_ledger(st.ledger))
                count = st.ledger.rebuild(progress=progress)
    emit(ctx, {"events": count}, f"Rebuilt projections from {count} events.")


def _refuse_unverified(report: Report) -> None:
    if not report.ok:
        raise IntegrityFailure(
            f"the ledger fails verification ({_problems(report)}): a rebuild would project "
            "what fails it, so nothing was rebuilt; restore the station from a backup "
            "(docs/backup-and-restore.md)"
        )
