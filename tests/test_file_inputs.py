"""Files named on the command line are regular files of bounded size (issue #16, item 11):
`--flare /dev/zero` hung; a FIFO, a directory or an oversized file is now refused, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pos.errors import BadInput
from pos.services import inputs
from tests.conftest import TRAINING_NOW
from tests.halls import Hall


def test_the_helper_reads_only_regular_files_within_the_cap(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text("{}")
    assert inputs.read_input_text(good, "flare", limit=10) == "{}"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 11)
    for path, said in (
        (Path("/dev/zero"), "a character device"),
        (fifo, "a pipe"),
        (tmp_path, "a directory"),
        (big, "at most 10"),
        (tmp_path / "missing", "no such file"),
    ):
        with pytest.raises(BadInput, match=said):
            inputs.read_input_file(path, "flare", limit=10)


def test_a_flare_from_dev_zero_is_refused_at_once(hall: Hall) -> None:
    """Run as a process with a deadline: the old code read /dev/zero until memory ran out."""
    before = hall.count()
    env = {**os.environ, "BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "M1"}
    done = subprocess.run(
        [sys.executable, "-m", "pos", "--hall", str(hall.directory), "deal", "receive",
         "--flare", "/dev/zero"],
        capture_output=True, text=True, timeout=60, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "character device" in done.stderr and "regular file" in done.stderr
    assert hall.count() == before


@pytest.mark.parametrize(
    "command", [("roster", "import", "{path}"), ("deal", "receive", "--flare", "{path}")]
)
def test_pipes_and_directories_are_refused_naming_the_input(
    hall: Hall, tmp_path: Path, command: tuple[str, ...]
) -> None:
    fifo = tmp_path / "named-pipe"
    os.mkfifo(fifo)
    before = hall.count()
    for path, said in ((fifo, "a pipe"), (tmp_path, "a directory")):
        result = hall(*(part.format(path=path) for part in command))
        assert result.exit_code == 2, result.stderr
        assert said in result.stderr, result.stderr
    assert hall.count() == before


def test_an_oversized_flare_is_refused(hall: Hall, tmp_path: Path) -> None:
    big = tmp_path / "huge.json"
    with big.open("wb") as handle:
        handle.truncate(inputs.FLARE_MAX + 1)  # sparse: costs no disk
    result = hall("deal", "receive", "--flare", str(big))
    assert result.exit_code == 2 and "at most" in result.stderr, result.stderr
