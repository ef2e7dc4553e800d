"""Files a person asks for (a PDF, a CSV, a workbook, a QR code as PNG) on a full disk, in a
directory that does not exist, or cut short by a file-size limit: exit 3 with the path and the
reason, never a traceback, and yesterday's good file at that path is kept, never replaced by a
truncated one."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.halls import Hall

OUTPUTS = [
    ("report", "day", "--pdf", "{}"),
    ("report", "form", "--pdf", "{}"),
    ("report", "quarter", "--year", "2026", "--quarter", "4", "--pdf", "{}"),
    ("report", "quarter", "--year", "2026", "--quarter", "4", "--xlsx", "{}"),
    ("report", "quarter", "--year", "2026", "--quarter", "4", "--csv", "{}"),
    ("report", "annual", "--year", "2026", "--pdf", "{}"),
    ("house", "sheet", "--pdf", "{}"),
    ("web", "pair", "--role", "manager", "--url", "https://127.0.0.1:8443", "--png", "{}"),
]


def _line(command: tuple[str, ...], path: Path | str) -> list[str]:
    return [str(path) if part == "{}" else part for part in command]


@pytest.mark.parametrize("command", OUTPUTS, ids=lambda c: " ".join(c[:2]) + " " + c[-2])
def test_a_full_disk_or_a_missing_directory_is_exit_3_naming_the_file(
    hall: Hall, command: tuple[str, ...], tmp_path: Path
) -> None:
    before = hall.count()
    for target, reason in (
        (Path("/dev/full"), "No space left on device"),
        (tmp_path / "no-such-directory" / "out", "No such file or directory"),
    ):
        result = hall(*_line(command, target))
        shown = (result.exit_code, result.stdout[:200], result.stderr)
        assert result.exit_code == 3, shown
        assert result.stderr.startswith(f"booth: cannot write {target}: {reason}"), shown
        assert "Traceback" not in result.stderr and "Exception" not in result.stderr, shown
    assert hall.count() - before <= 1, "at most the pairing itself is on the record"
    assert Path("/dev/full").is_char_device(), "the device itself is never replaced"


@contextlib.contextmanager
def _full_disk(directory: Path) -> Iterator[None]:
    """A small file system of its own at `directory`, filled to the last block."""
    directory.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(directory)], check=True)
    try:
        yield
    finally:
        subprocess.run(["umount", str(directory)], check=True)


@pytest.mark.skipif(
    os.geteuid() != 0, reason="mounting a small file system needs root (CI runs as root)"
)
@pytest.mark.parametrize("command", OUTPUTS, ids=lambda c: " ".join(c[:2]) + " " + c[-2])
def test_a_disk_filling_up_leaves_the_file_before_in_place(
    hall: Hall, command: tuple[str, ...], tmp_path: Path
) -> None:
    """The disk fills up while the file is written: the earlier file at the same path is still
    there, whole, and no partial file is left beside it."""
    directory = tmp_path / "out"
    target = directory / "yesterday.out"
    with _full_disk(directory):
        target.write_bytes(b"yesterday's good report\n")
        free = os.statvfs(directory)
        (directory / "filler").write_bytes(b"x" * (free.f_bavail * free.f_frsize))
        result = hall(*_line(command, target))
        assert result.exit_code == 3, (result.exit_code, result.stdout[:300], result.stderr)
        assert result.stderr.startswith(f"booth: cannot write {target}: No space left"), result
        assert target.read_bytes() == b"yesterday's good report\n"
        assert sorted(p.name for p in directory.iterdir()) == ["filler", "yesterday.out"]


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a file system needs root (CI runs as root)")
def test_an_export_that_fills_the_disk_leaves_no_half_export(hall: Hall, tmp_path: Path) -> None:
    """An inspector's export stopped by a full disk: exit 3, and neither the directory it was
    given nor one it made holds a part that could pass for the whole."""
    disk = tmp_path / "stick"
    with _full_disk(disk):
        given = disk / "given"
        given.mkdir()
        for directory in (given, disk / "new"):
            result = hall("export", "--inspector", str(directory))
            assert result.exit_code == 3, (result.stdout, result.stderr)
            assert f"cannot write the export to {directory}: No space left" in result.stderr
        assert list(given.iterdir()) == [] and not (disk / "new").exists()
