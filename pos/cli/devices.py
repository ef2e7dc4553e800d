"""booth device ..., booth rent."""

from __future__ import annotations

from typing import Any

import click

from pos.cli.common import (
    GAME_NUMBER,
    buyer_options,
    configured_printer,
    emit,
    json_option,
    operator_option,
    reads,
    state,
)
from pos.domain.money import format_money
from pos.errors import BadInput, HardwareFailure
from pos.services import devices_rental as rental
from pos.services.ports import PrinterFault


@click.group()
def device() -> None:
    """Electronic bingo devices (rule E)."""


@device.command("add")
@click.argument("ids", nargs=-1, required=True)
@click.option("--model")
@operator_option
@json_option
@click.pass_context
def device_add(
    ctx: click.Context, ids: tuple[str, ...], model: str | None, operator: str | None
) -> None:
    """Add devices to the hall's pool."""
    with state(ctx).open_station() as st:
        added = rental.add_devices(st, list(ids), model=model, operator=operator)
    emit(ctx, {"added": added}, f"Added {', '.join(added)}.")


@device.command("retire")
@click.argument("device_id")
@operator_option
@json_option
@click.pass_context
def device_retire(ctx: click.Context, device_id: str, operator: str | None) -> None:
    """Take a device out of service."""
    with state(ctx).open_station() as st:
        result = rental.retire_device(st, device_id, operator=operator)
    emit(ctx, result, f"{result['device']} retired.")


@device.command("list")
@json_option
@click.pass_context
@reads
def device_list(ctx: click.Context) -> None:
    """Every device and its state (free, rented, defective, retired)."""
    with state(ctx).open_station() as st:
        rows = rental.list_devices(st)
    emit(
        ctx,
        rows,
        lambda: (
            "\n".join(
                f"{r['device']:<10} {r['state']:<10} {r['model'] or '':<12}"
                + (
                    f" session {r['session']}, {r['faces']} faces x {r['games']}"
                    if r["session"]
                    else ""
                )
                for r in rows
            )
            or "No devices yet."
        ),
    )


@device.command("package")
@click.argument("name")
@click.option("--faces", required=True, help="Card faces per game.")
@click.option("--games", required=True, help="Games in the session.")
@click.option("--price", required=True, help="The house's price, e.g. 20.00.")
@operator_option
@json_option
@click.pass_context
def device_package(
    ctx: click.Context, name: str, faces: str, games: str, price: str, operator: str | None
) -> None:
    """Define (or reprice) a rental package."""
    with state(ctx).open_station() as st:
        result = rental.define_package(
            st, name, faces=faces, games=games, price=price, operator=operator
        )
    emit(
        ctx,
        result,
        f"Package {result['name']}: {result['faces']} faces x {result['games']} "
        f"games, ${result['price']}.",
    )


@device.command("return")
@click.argument("device_id")
@operator_option
@json_option
@click.pass_context
def device_return(ctx: click.Context, device_id: str, operator: str | None) -> None:
    """Take a rented device back."""
    with state(ctx).open_station() as st:
        result = rental.return_device(st, device_id, operator=operator)
    emit(ctx, result, f"{result['device']} is back and free.")


@device.command("exchange")
@click.argument("old")
@click.option(
    "--witness",
    required=True,
    help="The disinterested player who verified it: their player card or ID scan (E2).",
)
@click.option(
    "--no-numbers-keyed",
    is_flag=True,
    help="No numbers called in the game in progress were keyed into the replacement.",
)
@click.option("--game", type=GAME_NUMBER, help="The game in progress.")
@operator_option
@json_option
@click.pass_context
def device_exchange(
    ctx: click.Context,
    old: str,
    witness: str,
    no_numbers_keyed: bool,
    game: int | None,
    operator: str | None,
) -> None:
    """Exchange a defective device (E.2): the faces move to the replacement."""
    with state(ctx).open_station() as st:
        result = rental.exchange_device(
            st,
            old,
            witness=witness,
            no_numbers_keyed=no_numbers_keyed,
            game=game,
            operator=operator,
        )
    emit(ctx, result, f"{result['old']} is defective; its faces are now on {result['new']}.")


def _faces_text(result: dict[str, Any]) -> str:
    lines = [f"Device {result['device']}, session {result['session']}, game {result['game']}"]
    for card in result["faces"]:
        lines.append(f"  face {card['serial']}:   B  I  N  G  O")
        for row in card["rows"]:
            lines.append("             " + " ".join("FR" if n == 0 else f"{n:>2}" for n in row))
    return "\n".join(lines)


@device.command("faces")
@click.argument("device_id")
@click.option("--game", type=GAME_NUMBER, default=1, show_default=True)
@click.option("--print", "to_printer", is_flag=True, help="Also print them on the receipt printer.")
@json_option
@click.pass_context
@reads
def device_faces(ctx: click.Context, device_id: str, game: int, to_printer: bool) -> None:
    """The faces loaded on a device for a game, exactly as stored (E.1.i)."""
    with state(ctx).open_station() as st:
        result = rental.device_faces(st, device_id, game=game)
        if to_printer:
            printer = configured_printer(st)
            if printer is None:
                raise BadInput("printer", "no printer set: booth printer set SPEC")
            sheet = rental.faces_receipt(st, result)
            try:
                printer.print_receipt(sheet, name=f"{st.id}-faces-{result['device']}-g{game}")
            except PrinterFault as fault:
                raise HardwareFailure(f"printer: {fault}") from None
    emit(ctx, result, lambda: _faces_text(result))


@click.command()
@click.option("--faces", required=True, help="Card faces per game (at most 54).")
@click.option("--games", default="1", show_default=True)
@buyer_options
@operator_option
@json_option
@click.pass_context
def rent(
    ctx: click.Context,
    faces: str,
    games: str,
    buyer: str | None,
    manager: str | None,
    reason: str | None,
    operator: str | None,
) -> None:
    """Rent the next free device (first come, first served) loaded with card faces."""
    with state(ctx).open_station() as st:
        result = rental.rent(
            st,
            faces=faces,
            games=games,
            buyer=buyer,
            operator=operator,
            manager=manager,
            reason=reason,
        )
    emit(
        ctx,
        result,
        f"Device {result.device}: {result.faces} faces x {result.games} "
        f"games, {format_money(result.amount)}; receipt {result.receipt}.",
    )
