"""This station's own hardware settings (not hall-wide, so not in the ledger): devices.json."""

from __future__ import annotations

import json
from typing import Any

from pos.errors import BadInput
from pos.services.station import Station, write_private

DEVICES_FILE = "devices.json"
KINDS = ("dispenser", "printer", "printer_profile", "scanner", "acceptor")


def device_settings(st: Station) -> dict[str, str]:
    path = st.directory / DEVICES_FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except ValueError as exc:
        raise BadInput(str(path), f"device settings are damaged: {exc}") from None
    return {k: str(v) for k, v in data.items() if k in KINDS}


def set_device(st: Station, kind: str, spec: str, *, operator: str | None) -> dict[str, Any]:
    st.operator(operator, "manager")
    if kind not in KINDS:
        raise BadInput("device", f"{kind!r} is not one of {', '.join(KINDS)}")
    scheme = spec.partition(":")[0]
    if not scheme:
        raise BadInput(kind, f"{spec!r} names no adapter (e.g. sim, usb:VID:PID)")
    settings = {**device_settings(st), kind: spec}
    write_private(st.directory / DEVICES_FILE, json.dumps(settings, indent=2) + "\n", 0o644)
    return {"device": kind, "spec": spec}
