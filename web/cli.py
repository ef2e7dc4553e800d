"""booth web pair | sessions | revoke: the manager's phone (registered through the
`booth.commands` entry point). The web app itself runs with `booth serve --web ADDRESS:PORT`
or `booth run --web ADDRESS:PORT`."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import click

from pos.cli.common import emit, json_option, operator_option, reads, state
from pos.cli.file_params import OutputPath
from pos.services import web_access
from pos.services.outputs import replacing


def qr_text(link: str) -> str:
    """A QR code of `link`, for a terminal."""
    import qrcode

    code = qrcode.QRCode(border=1)
    code.add_data(link)
    code.make(fit=True)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()


def qr_png(link: str, path: Path) -> None:
    import qrcode

    image = qrcode.make(link, border=2, box_size=8)
    with replacing(path) as partial, partial.open("wb") as handle:
        image.save(handle)


@click.group()
def web() -> None:
    """The manager's phone: pairing links and web sessions (the web app: booth serve --web)."""


@web.command("pair")
@click.option(
    "--role",
    type=click.Choice(web_access.WEB_ROLES),
    required=True,
    help="Who may sign in through the link.",
)
@click.option(
    "--expires-in",
    "ttl",
    type=click.IntRange(1, web_access.MAX_PAIR_TTL),  # the service's own bound, one constant
    default=web_access.PAIR_TTL,
    show_default=True,
    help=f"Seconds the link stays good (1 to {web_access.MAX_PAIR_TTL}).",
)
@click.option("--url", "base_url", help="The web app's address (default: where it serves).")
@click.option(
    "--png",
    "png_file",
    type=OutputPath(dir_okay=False, path_type=Path),
    help="Also write the QR code as a PNG.",
)
@operator_option
@json_option
@click.pass_context
def web_pair(
    ctx: click.Context,
    role: str,
    ttl: int,
    base_url: str | None,
    png_file: Path | None,
    operator: str | None,
) -> None:
    """A one-time pairing link for a phone, as a QR code: it expires quickly, and a person of
    the role signs in through it with badge and PIN."""
    with state(ctx).open_station() as st:
        result = web_access.create_pairing(st, role, operator=operator, base_url=base_url, ttl=ttl)
    if png_file is not None:
        qr_png(result["url"], png_file)
        result["png"] = str(png_file)

    def human() -> str:
        lines = [
            qr_text(result["url"]),
            f"Pairing link for a {role} (one sign-in, until {result['expires_at']}):",
            f"  {result['url']}",
        ]
        if result.get("ca_fingerprint"):
            lines.append(f"The hall's web certificate, SHA-256: {result['ca_fingerprint']}")
        return "\n".join(lines)

    emit(ctx, result, human)


def _session_line(row: dict[str, Any]) -> str:
    return (
        f"{row['id']}  {row['role']:<9} {row['badge']:<10} {row['state']:<8} "
        f"since {row['created_at']}  until {row['expires_at']}"
        + (f"  revoked {row['revoked_at']} by {row['revoked_by']}" if row["revoked_at"] else "")
    )


@web.command("sessions")
@json_option
@click.pass_context
@reads
def web_sessions(ctx: click.Context) -> None:
    """The phones signed in to this station's web app, and their state."""
    with state(ctx).open_station() as st:
        rows = web_access.list_sessions(st)
    emit(
        ctx,
        rows,
        lambda: "\n".join(_session_line(r) for r in rows) or "No web session.",
    )


@web.command("revoke")
@click.argument("session", required=False)
@click.option("--all", "every", is_flag=True, help="Revoke every session.")
@operator_option
@json_option
@click.pass_context
def web_revoke(ctx: click.Context, session: str | None, every: bool, operator: str | None) -> None:
    """End a phone's web session at once (or every one with --all)."""
    from pos.errors import BadInput

    if (session is None) == (not every):
        raise BadInput("session", "give one SESSION or --all")
    with state(ctx).open_station() as st:
        revoked = web_access.revoke(st, None if every else session, operator=operator)
    emit(
        ctx,
        {"revoked": revoked},
        f"Revoked {len(revoked)} web session(s)." if revoked else "Nothing to revoke.",
    )


COMMANDS = [web]
