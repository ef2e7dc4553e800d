"""booth scan, booth scanner set."""

from __future__ import annotations

import json
import queue
from pathlib import Path
from typing import Any

import click

from pos.cli.adapters import load_adapter
from pos.cli.common import emit, json_option, local_only, operator_option, state
from pos.errors import BadInput, HardwareFailure
from pos.services import devices
from pos.services.ports import Scanner
from pos.services.scanning import handle_scan

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


@click.command()
@click.option("--limit", type=int, help="Stop after this many scans.")
@operator_option
@json_option
@click.pass_context
@local_only
def scan(ctx: click.Context, limit: int | None, operator: str | None) -> None:
    """Listen to the scanner: pay (booth) or check (kiosk) each ticket scanned."""
    as_json = state(ctx).json
    scans: queue.Queue[tuple[str, str]] = queue.Queue()
    with state(ctx).open_station() as st:
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
                    result = handle_scan(st, text, operator=operator)
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
