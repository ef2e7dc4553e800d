"""The first-evening checklist in docs/hall-setup.md works, command by command, in its order
(issue 20): its practice round is run as written, each `booth` line as its own process, the
line ending in `&` as the station's owner (a process beside the rest), PINs fed on stdin."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest

from pos.domain.roster import parse_roster
from tests.live.owners import BOOTH, NOW, ROOT, owner

pytestmark = pytest.mark.slow

DOC = ROOT / "docs" / "hall-setup.md"
SECTION = "## A volunteer's first evening: the checklist"


def _blocks() -> tuple[list[str], list[str]]:
    """(the variable lines, the checklist lines) of the section's two code blocks."""
    text = DOC.read_text()
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "the checklist has its settings block and its commands block"
    return blocks[0].strip().splitlines(), blocks[1].strip().splitlines()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_example_roster_imports_as_people_wrote_it() -> None:
    from datetime import date

    shifts = parse_roster((ROOT / "docs" / "example-roster.csv").read_text(), date(2026, 11, 1))
    assert [s.badge for s in shifts] == ["S1", "R1", "B1"]
    assert shifts[0].start.isoformat("minutes") == "17:30" and shifts[0].duty == "sell"


def test_the_checklist_runs_start_to_finish(tmp_path: Path) -> None:
    settings, steps = _blocks()
    assert next(s for s in steps if s.startswith("# ")).startswith("# 1. ")
    numbers = [int(s[2]) for s in steps if re.match(r"# [0-9]\.", s)]
    assert numbers == [1, 2, 3, 4, 5, 6, 7]
    assert "managers-day.md" in DOC.read_text()
    for name in ("example-roster.csv", "example-flare.json"):
        shutil.copy(ROOT / "docs" / name, tmp_path / name)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    env.update({"HOME": str(tmp_path), "BOOTH_NOW": NOW})
    for line in settings:  # HALL=$HOME/practice-hall ...
        name, _, value = line.partition("=")
        env[name] = os.path.expandvars(
            value.replace("$HOME", env["HOME"]).replace("$HALL", env.get("HALL", ""))
        )
    hall = Path(env["HALL"])
    ran = []
    with ExitStack() as owners:
        for line in steps:
            if not line or line.startswith("#"):
                continue
            if line.startswith("export "):
                name, _, value = line.removeprefix("export ").partition("=")
                env[name] = value
                continue
            words = [
                os.path.expandvars(w) if "$" in w else w
                for w in shlex.split(line.replace("8701", str(port)))
            ]
            words = [re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), ""), w) for w in words]
            words = [w for w in words if w]  # $PRACTICE is one word, or none
            assert words[0] == "booth", line
            if words[-1] == "&":
                station = Path(words[2])
                owners.enter_context(owner(station, *words[3:-1], env={"BOOTH_NOW": NOW}))
                ran.append(line)
                continue
            stdin = ""
            if words[3:5] == ["staff", "pin"]:
                words.append("--pin-stdin")  # the PIN a person types twice, without echo
                stdin = "4826\n"
            done = subprocess.run(
                [BOOTH, *words[1:]], capture_output=True, text=True, env=env, cwd=tmp_path,
                input=stdin, timeout=120,
            )  # fmt: skip
            assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
            ran.append(line)
    assert any("sell A123456" in line for line in ran)
    assert list((hall / "booth-1" / "spool").iterdir()), "the test page and the receipt printed"
    shown = subprocess.run(
        [BOOTH, "--hall", str(hall / "booth-1"), "deal", "show", "A123456", "--json",
         "--as", "M1"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert '"tickets_sold": 1' in shown.stdout, shown.stdout
