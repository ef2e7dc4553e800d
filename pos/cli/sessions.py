"""`booth session`: open, schedule, close and reopen sessions.

Apart from the sale's commands (pos.cli.sales): a sale does not import what closing a session
needs (the books' quarters, carried-over seal prizes, the devices not returned)."""

from __future__ import annotations

from dataclasses import asdict

import click

from pos.cli.common import emit, json_option, operator_option, state
from pos.errors import BadInput
from pos.services import money_path, sessions


@click.group()
def session() -> None:
    """Open and close sessions."""


@session.command("open")
@click.option("--date", "game_date", help="Game date (default: today in the hall's time zone).")
@click.option(
    "--number", type=click.IntRange(1, 99), help="Session number that day (default: the next)."
)
@click.option("--reason", default="", help="Why a session opens on a past date (recorded).")
@click.option(
    "--into-reported-quarter",
    is_flag=True,
    help="Open on a past date in a quarter whose report was produced (an exception).",
)
@operator_option
@json_option
@click.pass_context
def session_open(
    ctx: click.Context,
    game_date: str | None,
    number: int | None,
    reason: str,
    into_reported_quarter: bool,
    operator: str | None,
) -> None:
    """Open a session (today; a past date with --reason); carried-over deals come back."""
    with state(ctx).open_station() as st:
        result = sessions.open_session(
            st,
            operator=operator,
            game_date=game_date,
            number=number,
            reason=reason,
            into_reported_quarter=into_reported_quarter,
        )
    resumed = f"; back in play: {', '.join(result['resumed'])}" if result["resumed"] else ""
    emit(ctx, result, f"Session {result['session']} is open{resumed}.")


@session.command("schedule")
@click.argument("game_date", metavar="DATE")
@click.option(
    "--sells",
    "games",
    multiple=True,
    type=click.Choice(sessions.SCHEDULED_GAMES),
    help="A type of ticket its sessions sell (repeat; default pull-tab and seal-card).",
)
@operator_option
@json_option
@click.pass_context
def session_schedule(
    ctx: click.Context, game_date: str, games: tuple[str, ...], operator: str | None
) -> None:
    """Schedule a game date and the tickets its sessions sell (rule C4 reads it)."""
    with state(ctx).open_station() as st:
        result = sessions.schedule_session(st, game_date, games=games, operator=operator)
    emit(
        ctx,
        result,
        f"Scheduled {result['game_date']}: sells {', '.join(result['games'])}.",
    )


@session.command("close")
@click.option(
    "--without",
    "without",
    multiple=True,
    help="Close without this station's marker (the manager's recorded decision).",
)
@click.option("--reason", help="Why the station named by --without is missing.")
@operator_option
@json_option
@click.pass_context
def session_close(
    ctx: click.Context, without: tuple[str, ...], reason: str | None, operator: str | None
) -> None:
    """Close the session: a booth or kiosk records its close marker; the manager closes it
    hall-wide once it holds every station's marker (unfinished deals carry over, event games
    end, K5)."""
    if without and not reason:
        raise BadInput("reason", "say why the station is missing (--reason TEXT)")
    with state(ctx).open_station() as st:
        result = sessions.close_session(
            st, operator=operator, without=dict.fromkeys(without, reason or "")
        )
    if "marker" in result:
        emit(
            ctx,
            result,
            f"{result['station']} closed its part of session {result['session']} "
            f"(marker {result['marker']}).",
        )
        return
    emit(
        ctx,
        result,
        lambda: (
            f"Session {result['session']} closed. Carried over: "
            f"{', '.join(result['carried_over']) or 'none'}; event games ended: "
            f"{', '.join(result['event_games_ended']) or 'none'}"
            + (f"; closed without {', '.join(result['missing'])}" if result["missing"] else "")
            + "."
        ),
    )


@session.command("reopen")
@click.option(
    "--manager", metavar="BADGE", required=True, help="The manager reopening this station."
)
@click.option("--reason", required=True, help="Why the station reopens (kept on the record).")
@json_option
@click.pass_context
def session_reopen(ctx: click.Context, manager: str, reason: str) -> None:
    """Reopen this station for the session after its close marker (rule CLOSE): it sells and
    pays again until it closes with a new marker. The manager and the reason are recorded."""
    with state(ctx).open_station() as st:
        result = money_path.reopen(st, manager=manager, reason=reason)
    emit(
        ctx,
        asdict(result),
        f"{result.station} reopened for session {result.session} by {result.manager}: "
        f"{result.reason}.",
    )
