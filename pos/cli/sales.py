"""booth sell, booth player register, booth dispenser set, booth acceptor set."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from pos.cli.common import buyer_options, emit, json_option, operator_option, state
from pos.domain.money import format_amount
from pos.errors import BadInput
from pos.services import devices, sales
from pos.services.station import Station

if TYPE_CHECKING:  # a kiosk's: loaded by name from its settings
    from pos.services.ports import Dispenser


def _dispenser(st: Station) -> Dispenser | None:
    if st.config.role != "kiosk":
        return None
    from pos.cli.adapters import load_adapter  # reads the installed plugins: kiosks only

    spec = devices.device_settings(st).get("dispenser", "sim")
    dispenser: Dispenser = load_adapter("booth.dispensers", spec, st.directory)
    return dispenser


@click.command()
@click.argument("serial")
@click.option("--qty", required=True, help="How many tickets.")
@buyer_options
@click.option("--price", help="The price rung (event games: must be the flare's).")
@click.option("--for", "on_behalf_of", help="The person the buyer says the tickets are for.")
@click.option(
    "--voucher",
    help="Kiosks: pay with a voucher's QR code, or the short code printed under it; change "
    "comes as a voucher.",
)
@operator_option
@json_option
@click.pass_context
def sell(
    ctx: click.Context,
    serial: str,
    qty: str,
    buyer: str | None,
    price: str | None,
    on_behalf_of: str | None,
    manager: str | None,
    reason: str | None,
    voucher: str | None,
    operator: str | None,
) -> None:
    """Sell tickets from a deal in play in this station's bins."""
    buyers = sales.Buyers(buyer, on_behalf_of, manager, reason)
    with state(ctx).open_station() as st:
        result = sales.sell(
            st,
            serial,
            qty=qty,
            operator=operator,
            price=price,
            dispenser=_dispenser(st),
            buyers=buyers,
            voucher=voucher,
        )
    short = ""
    if result.short:
        short = (
            f" (asked {result.requested}: the dispenser gave {result.qty}; "
            f"${format_amount(result.credit or 0)} credited)"
        )
    paid_by_voucher = ""
    if result.voucher_paid is not None:
        paid_by_voucher = (
            f" Paid with a ${format_amount(result.voucher_paid)} voucher; change "
            f"${format_amount(result.change or 0)}"
            + (f" as voucher {result.change_voucher}." if result.change_voucher else ".")
        )
    emit(
        ctx,
        result,
        f"Sold {result.qty} x {result.serial} for ${format_amount(result.amount)}"
        f"{short}; receipt {result.receipt}.{paid_by_voucher}",
    )


@click.group()
def player() -> None:
    """Player cards (registered once at the booth with an ID check)."""


@player.command("register")
@click.argument("card")
@click.option("--licence", help="The ID's PDF417 barcode as scanned (fills in everything).")
@click.option("--dob", "date_of_birth", help="From the ID, YYYY-MM-DD.")
@click.option("--initials")
@click.option("--name", help="The name on the ID (kept only as a keyed hash, to match staff).")
@click.option("--id-number", help="The ID's number: only a keyed hash of it is kept.")
@operator_option
@json_option
@click.pass_context
def player_register(
    ctx: click.Context,
    card: str,
    licence: str | None,
    date_of_birth: str | None,
    initials: str | None,
    name: str | None,
    id_number: str | None,
    operator: str | None,
) -> None:
    """Register a player card after checking the player's ID."""
    from pos.services import players  # not on a sale's path

    with state(ctx).open_station() as st:
        result = players.register_player(
            st,
            card=card,
            date_of_birth=date_of_birth,
            initials=initials,
            name=name,
            id_number=id_number,
            licence=licence,
            operator=operator,
        )
    emit(
        ctx,
        result,
        f"Card {result['card']} registered for {result['initials']}"
        f" ({'18 or over' if result['adult'] else 'UNDER 18: no sales'}).",
    )


@click.group()
def dispenser() -> None:
    """This kiosk's ticket dispenser."""


@dispenser.command("set")
@click.argument("spec")
@operator_option
@json_option
@click.pass_context
def dispenser_set(ctx: click.Context, spec: str, operator: str | None) -> None:
    """Choose the dispenser adapter, e.g. sim or sim:capacity=40,jam-every=7."""
    from pos.cli.adapters import load_adapter

    with state(ctx).open_station() as st:
        load_adapter("booth.dispensers", spec, st.directory)
        result = devices.set_device(st, "dispenser", spec, operator=operator)
    emit(ctx, result, f"Dispenser: {result['spec']}.")


ACCEPTORS = "booth.acceptors"
NO_ACCEPTOR = "none"


@click.group()
def acceptor() -> None:
    """This kiosk's bill acceptor (the kiosk takes cash)."""


@acceptor.command("set")
@click.argument("spec")
@operator_option
@json_option
@click.pass_context
def acceptor_set(ctx: click.Context, spec: str, operator: str | None) -> None:
    """Choose the bill acceptor: sim, sim:fail=jam, ssp:/dev/ttyACM0[@BAUD][#ID] (ITL),
    id003:/dev/ttyUSB0[@BAUD] (JCM), ebds:/dev/ttyUSB0[@BAUD] (MEI/CPI), or none (vouchers
    only)."""
    from pos.cli.adapters import load_adapter

    with state(ctx).open_station() as st:
        if spec.strip().lower() != NO_ACCEPTOR:
            try:  # the setting names a kind that exists, with options it understands
                load_adapter(ACCEPTORS, spec, st.directory)
            except ValueError as exc:  # the drivers' BadAcceptorSpec
                raise BadInput("acceptor", f"{spec!r}: {exc}") from None
        result = devices.set_device(st, "acceptor", spec.strip(), operator=operator)
    emit(ctx, result, f"Bill acceptor: {result['spec']}.")
