"""booth run: this station's role on its screen, with its scanner and print queue beside it.

The core never imports a front end: the UI is found through the `booth.frontends` entry point
group (the Kivy one registers as `kivy`), and nothing of it is imported before `run` is invoked,
so `booth --help` and every other command stay free of Kivy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pos import plugins
from pos.cli.common import local_only, state
from pos.cli.file_params import OutputPath
from pos.errors import BadInput, HardwareFailure, PluginNotFound

GROUP = "booth.frontends"
DEFAULT_FRONTEND = "kivy"


def load_frontend(name: str) -> Any:
    try:
        return plugins.load(GROUP, name)
    except PluginNotFound:
        known = ", ".join(plugins.names(GROUP)) or "none installed"
        raise HardwareFailure(
            f"no front end {name!r} is installed ({known}): pip install -e . registers the Kivy one"
        ) from None


def _size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise BadInput("size", f"{text!r} is not WIDTHxHEIGHT (e.g. 800x480)")
    if not (320 <= int(width) <= 7680 and 240 <= int(height) <= 4320):
        raise BadInput("size", f"{text} is outside 320x240 .. 7680x4320")
    return int(width), int(height)


@click.command()
@click.option("--size", default="800x480", show_default=True, help="Window size, WIDTHxHEIGHT.")
@click.option("--fullscreen", is_flag=True, help="Fill the screen (a kiosk or booth display).")
@click.option(
    "--headless",
    is_flag=True,
    help="No display needed: render offscreen (a demo or a smoke test); with --screenshot, "
    "the first frame is saved.",
)
@click.option(
    "--idle-timeout",
    type=float,
    help="Kiosk: seconds without a touch before it forgets the player (default: ui.json, 60).",
)
@click.option(
    "--exit-after",
    type=float,
    help="Stop this many seconds after the first frame (tests, demos).",
)
@click.option(
    "--screenshot",
    type=OutputPath(dir_okay=False, path_type=Path),
    help="Save the first frame as a PNG here.",
)
@click.option(
    "--serve",
    metavar="ADDRESS:PORT",
    help="Also run LAN sync beside the UI, as `booth serve` does (e.g. 127.0.0.1:8701).",
)
@click.option("--peer", "peers", multiple=True, help="A peer's sync URL (with --serve).")
@click.option(
    "--web",
    metavar="ADDRESS:PORT",
    help="Also serve the manager's phone, the read-only web app over HTTPS, as "
    "`booth serve --web` does (e.g. 0.0.0.0:8443).",
)
@click.option("--no-discovery", is_flag=True, help="With --serve: only the --peer list.")
@click.option(
    "--frontend", default=DEFAULT_FRONTEND, show_default=True, help="Which front end to start."
)
@click.pass_context
@local_only
def run(
    ctx: click.Context,
    size: str,
    fullscreen: bool,
    headless: bool,
    idle_timeout: float | None,
    exit_after: float | None,
    screenshot: Path | None,
    serve: str | None,
    peers: tuple[str, ...],
    web: str | None,
    no_discovery: bool,
    frontend: str,
) -> None:
    """Start this station's role: its screens, scanner and print queue (and LAN sync).

    Exits 3 when there is no display (set DISPLAY, WAYLAND_DISPLAY or SDL_VIDEODRIVER) unless
    --headless.
    """
    if idle_timeout is not None and idle_timeout <= 0:
        raise BadInput("idle-timeout", "must be more than 0 seconds")
    start = load_frontend(frontend)
    code = start(
        state(ctx).hall,
        headless=headless,
        size=_size(size),
        fullscreen=fullscreen,
        idle_timeout=idle_timeout,
        exit_after=exit_after,
        screenshot=screenshot,
        serve=serve,
        peers=peers,
        discover=not no_discovery,
        **({"web": web} if web else {}),
    )
    ctx.exit(int(code or 0))
