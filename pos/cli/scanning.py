"""booth scan, booth scanner set."""

from __future__ import annotations

import contextlib
import json
import queue
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import click

from pos.cli.adapters import load_adapter
from pos.cli.client import owner_answers
from pos.cli.common import emit, json_option, local_only, operator_option, state
from pos.errors import BadInput, HardwareFailure
from pos.services import devices
from pos.services.ports import Scanner
from pos.services.scanning import handle_scan
from pos.services.station import Station

DEFAULT_SCANNER = "stdin"


@click.group()
def scanner() -> None:
    """This station's barcode scanner."""


@scanner.command("set")
@click.argument("spec")
@operator_option
@json_option
@click.pass_context
def scanner_set(ctx: click.Context, spec: str, operator: str | None) -> None:
    """Choose the scanner: usb:VID:PID, evdev:/dev/input/..., serial:/dev/ttyUSB0, stdin."""
    with state(ctx).open_station() as st:
        _open(spec, st.directory)
        result = devices.set_device(st, "scanner", spec, operator=operator)
    emit(ctx, result, f"Scanner: {result['spec']}.")


def _open(spec: str, directory: Path) -> Scanner:
    try:
        reader: Scanner = load_adapter("booth.scanners", spec, directory)
    except ValueError as exc:  # the drivers' BadScannerSpec is a ValueError
        raise BadInput("scanner", str(exc)) from None
    return reader


def _forwarded_scan(hall: Path, text: str, operator: str | None) -> dict[str, Any]:
    """One scan handled by the station's running owner (it owns the station's writes)."""
    from pos.cli import client
    from pos.cli.request_ids import new_request_id

    args = ["scan-code", text, *(["--as", operator] if operator else [])]
    result = client.forward(hall, args, new_request_id(), explicit_id=False)
    if result.exit_code != 0:
        message = result.stderr.strip().removeprefix("booth: ") or f"exit {result.exit_code}"
        return {"ok": False, "action": "refused", "message": message}
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


@click.command("scan-code", hidden=True)
@click.argument("text")
@operator_option
@click.pass_context
def scan_code(ctx: click.Context, text: str, operator: str | None) -> None:
    """One scan, as `booth scan` hands it to a running station (JSON)."""
    with state(ctx).open_station() as st:
        result = handle_scan(st, text, operator=operator)
    click.echo(json.dumps(result, sort_keys=True))


@click.command()
@click.option("--limit", type=click.IntRange(1, 10**9), help="Stop after this many scans.")
@operator_option
@json_option
@click.pass_context
@local_only
def scan(ctx: click.Context, limit: int | None, operator: str | None) -> None:
    """Listen to the scanner: pay (booth) or check (kiosk) each ticket scanned.

    Beside the station's running owner, each scan is handed to it (it owns the writes)."""
    as_json = state(ctx).json
    hall = state(ctx).hall
    scans: queue.Queue[tuple[str, str]] = queue.Queue()
    with contextlib.ExitStack() as stack:
        if owner_answers(hall):
            st = stack.enter_context(Station(hall, read_only=True))
            handle: Callable[[str], dict[str, Any]] = partial(
                _forwarded_scan, hall, operator=operator
            )
        else:
            st = stack.enter_context(state(ctx).open_station())
            handle = partial(handle_scan, st, operator=operator)
        spec = devices.device_settings(st).get("scanner", DEFAULT_SCANNER)
        reader = _open(spec, st.directory)
        try:
            reader.start(
                lambda text: scans.put(("scan", text)),
                lambda problem: scans.put(("error", str(problem))),
            )
        except Exception as exc:  # a driver's own error: the device is missing or refused
            raise HardwareFailure(f"scanner {spec}: {exc}") from None
        handled = 0
        try:
            while limit is None or handled < limit:
                try:
                    kind, text = scans.get(timeout=0.2)
                except queue.Empty:
                    if not reader.running:
                        break  # the input ended (stdin at EOF)
                    continue
                result: dict[str, Any]
                if kind == "error":
                    result = {"ok": False, "action": "scanner", "message": text}
                else:
                    result = handle(text)
                    handled += 1
                click.echo(
                    json.dumps(result, sort_keys=True)
                    if as_json
                    else ("" if result["ok"] else "NO: ") + result["message"]
                )
        except KeyboardInterrupt:
            pass
        finally:
            reader.stop()
