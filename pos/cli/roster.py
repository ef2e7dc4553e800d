"""booth roster ..., booth check-buyer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pos.cli.common import emit, json_option, operator_option, reads, state
from pos.cli.file_params import InputPath
from pos.cli.progress import progress_bar
from pos.domain.roster import DUTIES
from pos.services import eligibility, players
from pos.services import roster as roster_service


@click.group()
def roster() -> None:
    """Shift rosters: who works when, at what (rule D)."""


@roster.command("import")
@click.argument("csv_file", type=InputPath(dir_okay=False, path_type=Path))
@operator_option
@json_option
@click.pass_context
def roster_import(ctx: click.Context, csv_file: Path, operator: str | None) -> None:
    """Import a roster CSV: all of it or, if any row is bad, none of it."""
    with state(ctx).open_station() as st, progress_bar(ctx, "Importing shifts") as progress:
        result = roster_service.import_roster(st, csv_file, operator=operator, progress=progress)
    emit(
        ctx,
        result,
        f"Imported {result['imported']} shifts ({result['unchanged']} already on "
        f"the roster); {result['new_staff']} new people.",
    )


def _shift_line(s: dict[str, Any]) -> str:
    return (
        f"{s['key'][:10]}  {s['day']} {s['start']}-{s['end']}  {s['duty']:<7} "
        f"{s['badge']:<10} {s['name']:<24} {s['organisation']}"
    )


@roster.command("show")
@click.option("--date", "day", help="Only this day (YYYY-MM-DD).")
@json_option
@click.pass_context
@reads
def roster_show(ctx: click.Context, day: str | None) -> None:
    """The active shifts, by day."""
    with state(ctx).open_station() as st:
        shifts = roster_service.show_roster(st, day)
    emit(ctx, shifts, lambda: "\n".join(_shift_line(s) for s in shifts) or "No shifts.")


def _shift_options(func: Any) -> Any:
    for option in reversed(
        (
            click.option("--date", "day"),
            click.option("--start"),
            click.option("--end"),
            click.option("--duty", type=click.Choice(DUTIES)),
            click.option("--session", help="The bingo session it works (YYYY-MM-DD/N)."),
        )
    ):
        func = option(func)
    return func


@roster.command("add")
@click.option("--badge", required=True)
@click.option("--name", required=True)
@click.option("--dob", "date_of_birth", default="")
@click.option("--organisation", required=True)
@_shift_options
@operator_option
@json_option
@click.pass_context
def roster_add(ctx: click.Context, /, operator: str | None, **fields: str | None) -> None:
    """Add one shift."""
    values = {("date" if k == "day" else k): v or "" for k, v in fields.items()}
    with state(ctx).open_station() as st:
        result = roster_service.add_shift(st, values, operator=operator)
    emit(ctx, result, f"Added shift {result['key'][:10]}.")


@roster.command("change")
@click.argument("key")
@_shift_options
@operator_option
@json_option
@click.pass_context
def roster_change(
    ctx: click.Context, /, key: str, operator: str | None, **changes: str | None
) -> None:
    """Change a shift's date, times or duty."""
    values = {("date" if k == "day" else k): v for k, v in changes.items()}
    with state(ctx).open_station() as st:
        result = roster_service.change_shift(st, key, values, operator=operator)
    emit(
        ctx,
        result,
        f"Changed shift {key[:10]}: {result['day']} {result['start']}-"
        f"{result['end']} {result['duty']}.",
    )


@roster.command("cancel")
@click.argument("key")
@operator_option
@json_option
@click.pass_context
def roster_cancel(ctx: click.Context, key: str, operator: str | None) -> None:
    """Cancel a shift."""
    with state(ctx).open_station() as st:
        result = roster_service.cancel_shift(st, key, operator=operator)
    emit(ctx, result, f"Cancelled shift {key[:10]}.")


@click.command("check-buyer")
@click.argument("code")
@json_option
@click.pass_context
@reads
def check_buyer(ctx: click.Context, code: str) -> None:
    """What a buyer (badge, player card or ID scan) may buy now, and why not."""
    with state(ctx).open_station() as st:
        buyer = players.resolve_buyer(st, code)
        assert buyer is not None
        report = eligibility.buyer_report(st, buyer)

    def text() -> str:
        lines = [f"Buyer {report['initials']} ({report['kind']})"]
        for deal in report["deals"]:
            verdict = "may buy" if deal["allowed"] else f"NO: {deal['why']}"
            lines.append(f"  {deal['serial']:<10} {deal['name']:<20} {verdict}")
        bingo = report["bingo"]
        lines.append(
            f"  bingo {bingo['game_date']}: "
            + ("may play" if bingo["allowed"] else f"NO: {bingo['why']}")
        )
        return "\n".join(lines)

    emit(ctx, report, text)
