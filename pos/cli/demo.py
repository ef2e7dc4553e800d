"""booth demo: a training hall with sample data and a scripted hour; with --live, its stations
then run as separate processes that find each other on 127.0.0.1 and converge."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click

from pos.cli.common import emit, json_option, local_only
from pos.cli.file_params import OutputPath

STATIONS = ("manager", "booth-1", "kiosk-1")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _digests(directory: Path) -> dict[str, str]:
    from pos.ledger.verify import verify
    from pos.services.station import Station

    out = {}
    for name in STATIONS:
        with Station(directory / name) as st:
            out[name] = verify(st.ledger).digest
    return out


def _live(directory: Path, seconds: float, ui: bool) -> dict[str, Any]:
    """Each station as its own process (`booth serve`, or `booth run` with a screen), until
    they hold the same events or `seconds` pass; then stop them and compare."""
    env = {**os.environ, "BOOTH_NOW": "2026-11-28T23:00:00+00:00"}
    processes = []
    command = "run" if ui else "serve"
    for name in STATIONS:
        args = [sys.executable, "-m", "pos", "--hall", str(directory / name), command]
        port = str(_free_port())
        if command == "serve":
            args += ["--port", port, "--interval", "1"]
        else:
            args += ["--serve", f"127.0.0.1:{port}"]
        processes.append(
            subprocess.Popen(
                args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        )
        click.echo(f"  started {name} (pid {processes[-1].pid}): booth {command}", err=True)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and all(p.poll() is None for p in processes):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    digests = _digests(directory)
    return {"converged": len(set(digests.values())) == 1, "digests": digests}


@click.command()
@click.option(
    "--dir",
    "directory",
    type=OutputPath(file_okay=False, path_type=Path),
    default=Path("demo-hall"),
    show_default=True,
    help="Where to create the demo hall.",
)
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=7, show_default=True)
@click.option(
    "--live",
    type=float,
    default=0,
    metavar="SECONDS",
    help="Then run each station as its own process for this long (LAN sync on "
    "127.0.0.1; with a screen and the Kivy front end, the touch screens).",
)
@json_option
@click.pass_context
@local_only
def demo(ctx: click.Context, directory: Path, seed: int, live: float) -> None:
    """Create a training hall with staff, stations, deals and a scripted hour of activity."""
    from pos.services.demo import run_demo

    summary = run_demo(directory, seed=seed, converge=not live)
    if live:
        from pos.services.demo import describe

        ui = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        if not ui:
            click.echo("No display: running the stations headless (booth serve).", err=True)
        state = _live(directory, live, ui)
        summary = {
            **summary,
            **describe(directory, summary["hall"], summary["refusal_lines"]),
            "live": state,
        }
        summary["lines"].append(
            f"  live for {live:g} s as separate processes: the stations "
            + ("hold the same events." if state["converged"] else "have NOT converged yet.")
        )
    emit(ctx, summary, lambda: "\n".join(summary["lines"]))
