"""Files a command writes, and what it would ask for, when a running owner runs it (#29).

Outputs come back from the owner and are written by the client, over a file already there;
only inputs are sent along. A forwarded command never prompts on the owner's side: the
client's secret travels as a file it sends along."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
import pytest

from tests.live.owners import booth, make_demo_hall, owner

pytestmark = pytest.mark.slow
SERVE = ("serve", "--port", "0", "--no-discovery")
OLD = b"yesterday's file, before the correction\n"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_hall(tmp_path_factory.mktemp("demo") / "hall")


def _station(demo: Path, tmp: Path, name: str) -> Path:
    copy = tmp / name
    shutil.copytree(demo / name, copy)
    return copy


def test_outputs_over_existing_files_are_rewritten_by_the_client(
    demo: Path, tmp_path: Path
) -> None:
    hall = _station(demo, tmp_path, "manager")
    out = tmp_path / "out"  # the client's cwd is the station's parent: tmp_path
    out.mkdir()
    names = ["day.pdf", "form.pdf", "q4.pdf", "q4.xlsx", "q4.csv", "b3.json"]
    for name in names:
        (out / name).write_bytes(OLD)
    (out / "day-csv").mkdir()
    (out / "day-csv" / "stale.txt").write_bytes(OLD)
    with owner(hall, *SERVE):
        runs = [
            booth(hall, "report", "day", "--date", "2026-11-28", "--pdf", "out/day.pdf",
                  "--csv", "out/day-csv", "--as", "M100"),
            booth(hall, "report", "form", "--date", "2026-11-28", "--pdf", "out/form.pdf",
                  "--as", "M100"),
            booth(hall, "report", "quarter", "--year", "2026", "--quarter", "4",
                  "--pdf", "out/q4.pdf", "--xlsx", "out/q4.xlsx", "--csv", "out/q4.csv",
                  "--as", "M100"),
            booth(hall, "station", "add", "booth-3", "--role", "booth", "--out", "out/b3.json",
                  "--as", "M100"),
        ]  # fmt: skip
    for ran in runs:
        assert ran.exit_code == 0, (ran.stdout, ran.stderr)
    assert "Join bundle: out/b3.json" in runs[-1].stdout
    for name in names:
        assert (out / name).read_bytes() != OLD, f"{name} was not rewritten"
    assert (out / "day.pdf").read_bytes().startswith(b"%PDF")
    assert (out / "q4.xlsx").read_bytes().startswith(b"PK")
    assert json.loads((out / "b3.json").read_text())["station"] == "booth-3"
    assert (out / "b3.json").stat().st_mode & 0o777 == 0o600, "a join bundle is secret"
    assert {p.name for p in (out / "day-csv").iterdir()} > {"stale.txt"}
    assert not [p for p in out.rglob("*") if "partial" in p.name], "no partial file is left"


def test_only_inputs_are_sent_and_a_missing_input_is_named(demo: Path, tmp_path: Path) -> None:
    hall = _station(demo, tmp_path, "manager")
    (tmp_path / "rule.txt").write_text("No smoking in the hall.\n")
    with owner(hall, *SERVE):
        posted = booth(hall, "house", "post", "smoking", "--file", "rule.txt", "--as", "M100")
        missing = booth(hall, "house", "post", "smoking", "--file", "gone.txt", "--as", "M100")
        shown = booth(hall, "house", "posted")
    assert posted.exit_code == 0, posted.stderr
    assert "No smoking in the hall." in shown.stdout
    assert missing.exit_code == 2, (missing.stdout, missing.stderr)
    assert "gone.txt" in missing.stderr and "booth-command-" not in missing.stderr


@contextmanager
def _small_disk(directory: Path) -> Iterator[None]:
    directory.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(directory)], check=True)
    try:
        yield
    finally:
        subprocess.run(["umount", str(directory)], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a file system needs root (CI runs as root)")
def test_an_export_through_the_owner_on_a_full_disk_is_whole_or_not_at_all(
    demo: Path, tmp_path: Path
) -> None:
    hall = _station(demo, tmp_path, "booth-1")
    disk = tmp_path / "stick"
    with _small_disk(disk), owner(hall, *SERVE):
        given = disk / "given"
        given.mkdir()
        for directory in (given, disk / "new"):
            ran = booth(hall, "export", "--inspector", str(directory), "--as", "I300")
            assert ran.exit_code == 3, (ran.stdout, ran.stderr)
            assert "No space left" in ran.stderr and str(directory) in ran.stderr, ran.stderr
            assert "Exported" not in ran.stdout, ran.stdout
        assert list(given.iterdir()) == [] and not (disk / "new").exists()
        assert [p.name for p in disk.iterdir()] == ["given"], "no partial directory is left"
        # and on a disk with room, the export through the owner is whole
        whole = booth(hall, "export", "--inspector", "inspection", "--as", "I300")
    assert whole.exit_code == 0, whole.stderr
    exported = tmp_path / "inspection"
    assert {"events.jsonl", "keys.json", "verify.json", "README.txt", "tables"} <= {
        p.name for p in exported.iterdir()
    }


def test_an_export_into_a_directory_holding_files_is_refused_through_the_owner(
    demo: Path, tmp_path: Path
) -> None:
    hall = _station(demo, tmp_path, "booth-1")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("keep me\n")
    with owner(hall, *SERVE):
        ran = booth(hall, "export", "--inspector", "full", "--as", "I300")
    assert ran.exit_code == 2, (ran.stdout, ran.stderr)
    assert "full is not empty" in ran.stderr, ran.stderr
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["mine.txt"]


# -- nothing is asked for on the owner's side ---------------------------------------------------


def test_the_upstream_password_comes_from_the_clients_environment(
    demo: Path, tmp_path: Path
) -> None:
    hall = _station(demo, tmp_path, "manager")
    url = "https://head-office.example:6984/hall"
    with owner(hall, *SERVE):
        ran = booth(
            hall, "sync", "upstream", "set", url, "--user", "hall7", "--as", "M100",
            env={"BOOTH_UPSTREAM_PASSWORD": "from-the-client"},
        )  # fmt: skip
        asked = booth(hall, "sync", "upstream", "set", url, "--user", "hall7", "--as", "M100")
        still = booth(hall, "deal", "list")
    assert ran.exit_code == 0, (ran.stdout, ran.stderr)
    settings = next(hall.glob("upstream*"))
    assert "from-the-client" in settings.read_text()
    assert asked.exit_code == 2, (asked.stdout, asked.stderr)
    assert "cannot ask" in asked.stderr and "BOOTH_UPSTREAM_PASSWORD" in asked.stderr
    assert still.exit_code == 0, "the owner still serves"


def test_every_path_a_forwarded_command_names_is_an_input_or_an_output() -> None:
    from pos.cli.common import Access, command_access
    from pos.cli.file_params import is_path, path_role
    from pos.cli.main import cli

    def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from walk(sub, f"{path} {name}".strip())
        else:
            yield path, command

    undeclared = [
        f"{path} {param.name}"
        for path, command in walk(cli, "")
        if command_access(command) is not Access.LOCAL
        for param in command.params
        if is_path(param) and path_role(path, param) is None
    ]
    assert undeclared == []
