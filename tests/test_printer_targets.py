"""Printer targets are allowed, not arbitrary (issue #16, item 9): `file:` and `dir:` only
under the station directory or a spool directory; device nodes only of the printer and serial
classes; anything else, and an over-long path, exits 2 and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.printer import open_printer
from hardware.printer.errors import BadPrinterSpec
from tests.halls import Hall


def _settings(hall: Hall) -> str | None:
    path = hall.directory / "devices.json"
    return path.read_text() if path.exists() else None


@pytest.mark.parametrize(
    "spec",
    [
        "dir:/",
        "file:/etc/passwd",
        "file:../outside.bin",
        "dir:/tmp",
        "file:/dev/null",  # a device, but not a printer's
        "file:/dev/sda",
        "serial:/dev/sda",
        "serial:/etc/passwd",
        "file:" + "x" * 300,
        "dir:/" + "a/" * 3000,
        "file:\x1b[2J",  # a terminal escape in a file name (issue #29, item 12)
        "dir:receipts\x07",
        "file:out\u009b2J",  # the one-character CSI
    ],
)
def test_a_target_outside_what_is_allowed_exits_2_and_changes_nothing(
    hall: Hall, spec: str
) -> None:
    before, count = _settings(hall), hall.count()
    result = hall("printer", "set", spec)
    assert result.exit_code == 2, (spec, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert _settings(hall) == before and hall.count() == count
    assert not any(ord(c) < 0x20 and c != "\n" for c in result.stderr), repr(result.stderr)


def test_a_symbolic_link_out_of_the_station_directory_is_refused(hall: Hall) -> None:
    (hall.directory / "escape").symlink_to("/")
    result = hall("printer", "set", "dir:escape/etc")
    assert result.exit_code == 2 and "not under" in result.stderr, result.stderr


def test_what_is_allowed_is_still_taken(
    hall: Hall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for spec in ("dir:receipts", f"file:{hall.directory}/out.bin", "file:/dev/usb/lp0"):
        result = hall("printer", "set", spec)
        assert result.exit_code == 0, (spec, result.stderr)
    spool = tmp_path / "spool"
    monkeypatch.setenv("BOOTH_PRINTER_SPOOL", str(spool))
    assert hall("printer", "set", f"dir:{spool}/booth-1").exit_code == 0
    assert open_printer("serial:/dev/ttyUSB0@9600", hall.directory) is not None
    assert open_printer("serial:/dev/serial/by-id/usb-Epson_TM-T20-if00", hall.directory)
    with pytest.raises(BadPrinterSpec, match="not a serial device"):
        open_printer("serial:/dev/usb/lp0", hall.directory)
