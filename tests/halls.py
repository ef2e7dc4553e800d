"""A hall driven through the `booth` command as its manager would, and sample flares."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pos.services.station import Station
from tests.conftest import TRAINING_NOW, run_booth

ENV = {"BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "M1"}


def flare(serial: str = "A123456", **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "serial": serial,
        "game": "pull-tab",
        "name": "Lucky 7s",
        "form": "LS-4000",
        "manufacturer": "Arrow",
        "tickets": 4000,
        "price": "1.00",
        "prizes": [
            {"amount": "500.00", "count": 1},
            {"amount": "100.00", "count": 2},
            {"amount": "5.00", "count": 100},
        ],
        "supplier": {"name": "Bingo Supply Co", "address": "1 Main St, Richmond VA"},
        "invoice": "INV-1001",
    }
    data.update(changes)
    return data


def seal_flare(serial: str = "S777", **changes: Any) -> dict[str, Any]:
    terms: dict[str, Any] = {
        "game": "seal-card",
        "name": "Seal the Deal",
        "tickets": 300,
        "prizes": [{"amount": "50.00", "count": 2}],
        "seal": {
            "lines": 30,
            "prize": "250.00",
            "progressive": False,
            "hold_tickets": ["013", "113"],
        },
        "sheet_and_seal_present": True,
    }
    return flare(serial, **{**terms, **changes})


class Hall:
    """A hall's manager station driven through the CLI, as a manager would."""

    def __init__(self, directory: Path, tmp: Path) -> None:
        self.directory = directory
        self.tmp = tmp

    def __call__(self, *args: str, **env: str) -> Any:
        return run_booth("--hall", str(self.directory), *args, env={**ENV, **env})

    def receive(self, data: dict[str, Any]) -> Any:
        path = self.tmp / f"{data.get('serial', 'x')}-{len(list(self.tmp.iterdir()))}.json"
        path.write_text(json.dumps(data))
        return self("deal", "receive", "--flare", str(path), "--json")

    def count(self) -> int:
        with Station(self.directory) as st:
            return st.ledger.count()


def refused(result: Any, rule: str) -> None:
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert f"(rule {rule})" in result.stderr, result.stderr


def licence_barcode(
    family: str,
    given: str,
    dob: str,
    *,
    number: str = "T64235789",
    expiry: str = "2030-06-30",
    suffix: str = "",
) -> str:
    """A driver's licence PDF417 payload in the AAMVA 2016 (version 09) layout."""

    def us_date(iso: str) -> str:
        year, month, day = iso.split("-")
        return f"{month}{day}{year}"

    elements = [
        f"DAQ{number}",
        f"DCS{family.upper()}",
        "DDEN",
        f"DAC{given.upper()}",
        "DDFN",
        "DADNONE",
        "DDGN",
        f"DBB{us_date(dob)}",
        f"DBA{us_date(expiry)}",
        "DBC1",
        "DAJVA",
        "DCGUSA",
        "DCF0123456789",
    ]
    if suffix:
        elements.append(f"DCU{suffix}")
    subfile = "DL" + "\n".join(elements) + "\r"
    header_length = 21 + 10
    header = f"@\n\x1e\rANSI 636000090001DL{header_length:04d}{len(subfile):04d}"
    return header + subfile
