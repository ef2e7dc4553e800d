"""A whole hall night at one booth, built once and copied per test: the contract suite's hall.

The manager takes in a pull-tab deal, a seal card deal and an event game, bingo paper, a pack,
devices and their package and the session's program; it adds booth-1, issues paper to it and
opens the session. booth-1 joins, pulls, opens the deals in its bins and creates a raffle, so
that every product kind is sold and paid at the same booth, through the `booth` command.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, flare, seal_flare
from tests.test_bingo_session import PROGRAM

ENVIRON = {"BOOTH_NOW": TRAINING_NOW}
BOOTH = "booth-1"
RAFFLE = "R-CONTRACT"
MANAGER_DIR, BOOTH_DIR = "manager", BOOTH


def ok(result: Any) -> Any:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def build(root: Path, manager_dir: Path) -> None:
    """The manager (a copy of `manager_dir`) and booth-1 under `root`, ready to sell."""
    shutil.copytree(manager_dir, root / MANAGER_DIR)
    files = root / "files"
    files.mkdir()
    manager = Hall(root / MANAGER_DIR, files)
    ok(manager.receive(flare("A123456")))
    ok(manager.receive(seal_flare("S777")))
    ok(manager.receive(flare("E100", game="event", name="Event game", tickets=500,
                             prizes=[{"amount": "20.00", "count": 5}])))  # fmt: skip
    for series, faces, first, last, *progressive in (
        ("R6", "6-on", "1001", "1200"),
        ("SP", "3-on", "5001", "5100"),
        ("PROG", "1-on", "1", "100", "--progressive"),
    ):
        received = manager("paper", "receive", "--series", series, "--manufacturer", "Arrow",
                           "--faces", faces, "--first", first, "--last", last, "--invoice",
                           "INV-1", *progressive)  # fmt: skip
        ok(received)
    ok(manager("paper", "pack", "Door", "--price", "20.00", "--item", "R6:2", "--item", "SP:1"))
    ok(manager("device", "add", "D1", "D2", "D3"))
    ok(manager("device", "package", "Basic", "--faces", "12", "--games", "10", "--price",
               "15.00"))  # fmt: skip
    program = files / "program.json"
    program.write_text(json.dumps(PROGRAM))
    ok(manager("program", "create", "--file", str(program)))
    ok(manager("station", "add", BOOTH, "--role", "booth", "--out", str(files / "b.json")))
    for series, first, last in (("R6", "1101", "1200"), ("SP", "5051", "5100"),
                                ("PROG", "51", "100")):  # fmt: skip
        ok(manager("paper", "issue", series, "--first", first, "--last", last, "--to", BOOTH))
    ok(manager("session", "open"))
    booth = Hall(root / BOOTH_DIR, files)
    ok(booth("join", str(files / "b.json")))
    sync(root)
    for serial, bin_name in (("A123456", "drawer-1"), ("S777", "drawer-2"), ("E100", "drawer-3")):
        ok(booth("deal", "open", serial, "--bin", bin_name))
    ok(booth("raffle", "create", RAFFLE, "--name", "Contract raffle", "--drawing", "2026-11-28",
             "--price", "5.00", "--prize", "Quilt;250.00;appraisal", "--prize",
             "Gift card;50.00;face value"))  # fmt: skip


def sync(root: Path) -> None:
    """booth-1 pulls what the manager holds, and the manager what booth-1 holds."""
    with (
        Station(root / MANAGER_DIR, environ=ENVIRON) as m,
        Station(root / BOOTH_DIR, environ=ENVIRON) as b,
    ):
        pull(m.ledger, b.ledger)
        pull(b.ledger, m.ledger)
