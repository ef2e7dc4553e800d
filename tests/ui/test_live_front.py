"""The touch screen and the command line beside it see each other's writes at once.

The screen runs in this process (its runtime serves the station's control socket); `booth` runs
as a separate process, as a manager at a terminal would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.ui.conftest import NOW, SELLER_PIN
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy renders the screen; booth runs beside it

BOOTH = str(Path(sys.executable).parent / "booth")


def booth(hall: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    env["BOOTH_NOW"] = NOW.isoformat()
    env["BOOTH_OPERATOR"] = "M100"  # a read of money needs a badge (pos.domain.read_access)
    return subprocess.run(
        [BOOTH, "--hall", str(hall), *args],
        env=env, capture_output=True, text=True, timeout=60, cwd=hall.parent,
    )  # fmt: skip


def test_a_deal_received_at_the_cli_shows_on_the_manager_screen(
    demo_hall: Path, open_front: Any
) -> None:
    manager = demo_hall / "manager"
    ui: Driver = open_front(manager)
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-deals")
    assert "A100077" not in ui.text()
    flare = demo_hall / "live-wire.json"
    flare.write_text(
        json.dumps(
            {
                "serial": "A100077",
                "game": "pull-tab",
                "name": "Live Wire",
                "form": "LW-1",
                "manufacturer": "Arrow",
                "tickets": 1000,
                "price": "1.00",
                "prizes": [{"amount": "50.00", "count": 2}],
                "supplier": {"name": "Bingo Supply Co", "address": "1 Main St"},
                "invoice": "INV-77",
            }
        )
    )
    received = booth(manager, "deal", "receive", "--flare", flare.name, "--as", "M100")
    assert received.returncode == 0, received.stderr
    ui.settle()
    assert "A100077 Live Wire · received · not in a bin" in ui.text()
    ui.shot("manager-deal-from-cli", both=False)


def test_a_sale_on_the_booth_screen_shows_in_deal_show_at_once(
    demo_hall: Path, open_front: Any
) -> None:
    hall = demo_hall / "booth-1"
    ui: Driver = open_front(hall)
    for key in SELLER_PIN:
        ui.tap(f"key-{key}")
    ui.tap("login")
    before = json.loads(booth(hall, "deal", "show", "A100002", "--json").stdout)["tickets_sold"]
    ui.tap("bin-A100002")
    ui.tap("key-3")
    ui.tap("sell")
    assert "SOLD 3 × Cherry Bells" in ui.find("sale-headline").text
    shown = booth(hall, "deal", "show", "A100002", "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["tickets_sold"] == before + 3
