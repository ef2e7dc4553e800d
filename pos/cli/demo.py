"""booth demo: a training hall with sample data and a scripted hour, run headless."""

from __future__ import annotations

from pathlib import Path

import click

from pos.cli.common import emit, json_option


@click.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo-hall"),
    show_default=True,
    help="Where to create the demo hall.",
)
@click.option("--seed", type=int, default=7, show_default=True)
@json_option
@click.pass_context
def demo(ctx: click.Context, directory: Path, seed: int) -> None:
    """Create a training hall with staff, stations and a scripted hour of activity."""
    from pos.services.demo import run_demo

    summary = run_demo(directory, seed=seed)
    emit(ctx, summary, lambda: "\n".join(summary["lines"]))
