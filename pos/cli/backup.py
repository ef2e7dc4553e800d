"""booth backup, booth restore."""

from __future__ import annotations

from pathlib import Path

import click

from pos.cli.common import emit, json_option, local_only, state
from pos.cli.progress import progress_bar
from pos.clock import SystemClock
from pos.services import backup as backup_service


@click.command()
@click.argument("dest", type=click.Path(path_type=Path))
@json_option
@click.pass_context
@local_only
def backup(ctx: click.Context, dest: Path) -> None:
    """Back up this station (ledger, keys, settings) into a new folder in DEST, and verify it.

    DEST is a directory that exists: a mounted USB stick or a path. Safe while the station runs.
    The backup holds the station's keys: keep it locked away like the cash.
    """
    with progress_bar(ctx, "Verifying the copy") as progress:
        result = backup_service.backup(
            state(ctx).hall, dest, now=SystemClock().now(), progress=progress
        )
    emit(
        ctx,
        result,
        f"Backed up station {result['station']} ({result['role']}) to {result['path']}\n"
        f"Verified: {result['events']} events, digest {result['digest'][:16]}.\n"
        "It holds the station's keys: eject the stick and keep it locked away.",
    )


@click.command()
@click.argument("source", type=click.Path(path_type=Path))
@click.option(
    "--hall",
    "target",
    type=click.Path(file_okay=False, path_type=Path),
    help="The empty directory to restore into (default: booth's --hall or BOOTH_HALL).",
)
@json_option
@click.pass_context
@local_only
def restore(ctx: click.Context, source: Path, target: Path | None) -> None:
    """Restore a backup folder SOURCE into an empty station directory, verified.

    Refused, leaving nothing behind, when the directory is not empty or the backup does not
    verify. The restored station records nothing until a sync with the hall's other stations
    gave back its own events newer than the backup.
    """
    with progress_bar(ctx, "Verifying the restored ledger") as progress:
        result = backup_service.restore(
            source, target or state(ctx).hall, progress=progress, now=SystemClock().now()
        )
    emit(
        ctx,
        result,
        f"Restored station {result['station']} ({result['role']}) of hall {result['hall']} "
        f"into {result['directory']}\n"
        f"Verified: {result['events']} events, digest {result['digest'][:16]}; "
        f"hall key {result['hall_public_key'][:16]}.\n"
        f"It records nothing until it has caught up: start it with the network up and let it "
        f"sync with the hall's other stations ('booth sync now'), which give back its own "
        f"events newer than this backup (it holds its own up to {result['station']}:"
        f"{result['own_seq']}). 'booth sync status' shows when it has.",
    )
