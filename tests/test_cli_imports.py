"""`booth sell` imports what a sale needs, not every command's modules (issue #31: a command
line is a new process each time; the bingo printer's, the reports', the phone's and the
hardware's imports are paid by the commands that use them).

Each check runs a fresh interpreter and reads sys.modules at its exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What no sale needs: documents (PDF, spreadsheets, QR images), the touch screens, the phone's
# web app, LAN sync, hardware drivers, the plugins' entry points, the reads' access rules.
HEAVY = (
    "reportlab",
    "openpyxl",
    "kivy",
    "qrcode",
    "PIL",
    "web",
    "sync",
    "kiosk",
    "hardware",
    "escpos",
    "usb",
    "serial",
    "zeroconf",
    "holidays",  # the business-day calendar: deposits and forms, not sales
    "nicknames",  # a buyer's name against the roster's, not a sale with no buyer
    "sqlite_utils",  # migrating an older release's file; a migrated file is opened without it
    "cryptography.x509",
    "pos.cli.bingo",
    "pos.cli.reports",
    "pos.cli.raffle",
    "pos.cli.receipts",
    "pos.cli.backup",
    "pos.services.read_access",
    "pos.services.reports",
    "pos.services.bingo_print",
    "pos.services.receipts",  # what a receipt says: only once one prints (no printer here)
    "pos.domain.receipt",
    "pos.domain.raffle",
    "pos.ledger.projections.bingo_games",  # projections a sale neither feeds nor reads
    "pos.ledger.projections.bingo_paper",
    "pos.ledger.projections.raffle",
    "pos.ledger.projections.devices",
    "pos.services.players",  # who a buyer is: only a sale that names one
    "pos.domain.aamva",
    "tempfile",  # the client's file transfers: a command line carrying no file
    "shutil",
)

_DUMP = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: print('MODULES=' + json.dumps(sorted(sys.modules))))\n"
)


def _imported(code: str, env: dict[str, str] | None = None) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _DUMP + code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("MODULES=")]
    assert lines, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return set(json.loads(lines[-1].removeprefix("MODULES=")))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(
        name for name in modules for heavy in HEAVY if name == heavy or name.startswith(heavy + ".")
    )


def test_the_entry_and_the_group_import_no_command_module() -> None:
    modules = _imported("import pos.cli.entry, pos.cli.main")
    assert _heavy(modules) == []
    assert "pos.cli.sales" not in modules, "a command's module is imported when it is named"


def test_booth_sell_with_no_owner_imports_no_heavy_module(tmp_path: Path) -> None:
    """The real `booth sell` path (pos.cli.entry: no owner runs, so it runs here) on a hall
    holding no deal: the sale is refused, after the station opened and the sale's modules ran."""
    from pos.services import hall

    hall.init_hall(
        tmp_path / "hall",
        organisation="Import Test Post",
        location="1 Test Road",
        time_zone="America/New_York",
        training=True,
        environ={"BOOTH_NOW": "2026-11-28T23:00:00+00:00"},
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith("BOOTH_")}
    env["BOOTH_NOW"] = "2026-11-28T23:30:00+00:00"
    argv = ["booth", "--hall", str(tmp_path / "hall"), "sell", "A1", "--qty", "1", "--as", "M1"]
    code = (
        f"sys.argv = {argv!r}\n"
        "from pos.cli.entry import main\n"
        "try:\n    main()\nexcept SystemExit as done:\n    print('EXIT', done.code)\n"
    )
    modules = _imported(code, env)
    assert "pos.cli.sales" in modules and "pos.services.sales" in modules, "the sale ran"
    assert _heavy(modules) == []


def test_booth_help_still_lists_every_command() -> None:
    """The help reads every command (lazily imported), and the plugins' (sync, web)."""
    done = subprocess.run(
        [sys.executable, "-m", "pos", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("Commands:")[1]
    for name in ("sell", "report", "bingo", "voucher", "check-buyer", "sync", "web"):
        assert f"\n  {name} " in listed, name


_TREE = (
    "import json, sys, click\n"
    "from pos.cli.main import cli\n"
    "def tree(command):\n"
    "    if not isinstance(command, click.Group):\n"
    "        return None\n"
    "    ctx = click.Context(command)\n"
    "    return {n: tree(command.get_command(ctx, n)) for n in command.list_commands(ctx)}\n"
    "names = sys.argv[1:] or sorted(cli.commands)\n"
    "print(json.dumps({n: tree(cli.get_command(click.Context(cli), n)) for n in names}))\n"
)


def _tree(names: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _TREE, *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    tree: dict[str, object] = json.loads(done.stdout)
    return tree


def test_each_command_named_alone_has_every_subcommand() -> None:
    """A module may add subcommands to another module's group (pos.cli.books adds `report
    quarter`): naming one command in a fresh process must give it all of them."""
    from pos.cli.main import COMMANDS

    everything = _tree([])
    by_loader: dict[object, list[str]] = {}
    for name, loader in COMMANDS.items():
        by_loader.setdefault(loader, []).append(name)
    for names in by_loader.values():
        alone = _tree(names)
        assert alone == {name: everything[name] for name in names}, names
