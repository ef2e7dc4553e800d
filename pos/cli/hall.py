"""booth init, booth station add, booth join."""

from __future__ import annotations

import io
import json
from pathlib import Path

import click

from pos.cli.common import emit, json_option, local_only, operator_option, state
from pos.cli.file_params import InputPath, OutputPath
from pos.domain.identity import STATION_ROLES
from pos.services import hall as hall_service
from pos.services.station import write_private


@click.command()
@click.option("--org", "organisation", required=True, help="The organisation running the games.")
@click.option("--location", required=True, help="The hall's address or name.")
@click.option("--time-zone", required=True, help="The hall's time zone, e.g. America/New_York.")
@click.option(
    "--training", is_flag=True, help="A training hall: BOOTH_NOW allowed, TRAINING printed."
)
@click.option("--station", "station_name", default="manager", show_default=True)
@json_option
@click.pass_context
@local_only
def init(
    ctx: click.Context,
    organisation: str,
    location: str,
    time_zone: str,
    training: bool,
    station_name: str,
) -> None:
    """Create a new hall here, with this station as its manager station."""
    result = hall_service.init_hall(
        state(ctx).hall,
        organisation=organisation,
        location=location,
        time_zone=time_zone,
        training=training,
        station=station_name,
    )
    emit(
        ctx,
        result,
        f"Created hall {result['hall']}{' (TRAINING)' if training else ''} in "
        f"{result['directory']}; this station is {result['station']} (manager).\n"
        "Next: booth staff add --name NAME --badge CODE --role manager",
    )


@click.group()
def station() -> None:
    """The hall's stations."""


@station.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(STATION_ROLES), required=True)
@click.option(
    "--out",
    type=OutputPath(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the one-time join bundle (secret).",
)
@click.option("--qr", is_flag=True, help="Also show the bundle's identity as a terminal QR code.")
@click.option("--location", help="Where the station stands (default: the hall's location).")
@operator_option
@json_option
@click.pass_context
def station_add(
    ctx: click.Context,
    name: str,
    role: str,
    out: Path,
    qr: bool,
    location: str | None,
    operator: str | None,
) -> None:
    """Certify a new station and write its one-time join bundle."""
    with state(ctx).open_station() as st:
        bundle = hall_service.add_station(
            st, name=name, role=role, operator=operator, location=location
        )
    write_private(out, json.dumps(bundle, indent=1) + "\n")
    summary = {"station": bundle["station"], "role": role, "bundle": str(out)}
    emit(
        ctx,
        summary,
        f"Station {name} ({role}) certified. Join bundle: {out} (works once; keep it secret).\n"
        f"On that machine: booth --hall DIR join {out.name}",
    )
    if qr and not state(ctx).json:
        click.echo(_terminal_qr(bundle))


def _terminal_qr(bundle: dict[str, object]) -> str:
    import qrcode

    compact = json.dumps(
        {k: bundle[k] for k in ("hall", "station", "role", "certificate")},
        separators=(",", ":"),
    )
    code = qrcode.QRCode(border=1)
    code.add_data(compact)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()


@click.command()
@click.argument("bundle", type=InputPath(dir_okay=False, path_type=Path))
@json_option
@click.pass_context
@local_only
def join(ctx: click.Context, bundle: Path) -> None:
    """Set up this station from a join bundle (the bundle is used up)."""
    result = hall_service.join(state(ctx).hall, bundle)
    emit(
        ctx,
        result,
        f"Joined hall {result['hall']} as {result['station']} ({result['role']}) in "
        f"{result['directory']}; {result['events']} events on file.",
    )
