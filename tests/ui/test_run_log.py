"""`booth run`'s log shows what a technician should act on, and only that: no CRITICAL line and
no traceback for Kivy looking for X clipboard tools (xclip, xsel) a hall's station does not
have; a real fault (here the kiosk's bill acceptor not plugged in) is still in it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk import env
from pos.services import devices
from pos.services.station import Station
from tests.ui.test_run import REGISTER


def _kivy_log(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run `code` in a process of its own with Kivy's console log on (as `booth run` has it)."""
    environ = {k: v for k, v in os.environ.items() if k != "KIVY_NO_CONSOLELOG"}
    environ["KIVY_HOME"] = str(tmp_path / "kivy")
    return subprocess.run(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )


def _clean(log: str) -> None:
    assert "CRITICAL" not in log, log[-3000:]
    assert "Traceback" not in log, log[-3000:]
    assert "xclip" not in log and "xsel" not in log, log[-3000:]


@pytest.mark.slow  # `booth run` in a process of its own
def test_booth_run_logs_a_real_fault_and_nothing_else_alarming(
    demo_hall: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "ttyUSB-not-plugged-in"
    with Station(demo_hall / "kiosk-1") as st:
        devices.set_device(st, "acceptor", f"ssp:{missing}", operator="M100")
    argv = ["--hall", str(demo_hall / "kiosk-1"), "run", "--headless", "--exit-after", "1"]
    done = _kivy_log(REGISTER + f"main({argv!r})", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stderr
    assert "[Window      ] Provider: sdl2" in log  # the log is on, and Kivy's lines are in it
    assert "[Clipboard   ] Provider: sdl2" in log
    assert "WARNING" in log and f"{missing} is not there" in log  # the fault, in a line
    _clean(log)


@pytest.mark.slow  # Kivy's logging in a process of its own
def test_kivy_still_logs_a_real_critical_error(tmp_path: Path) -> None:
    """The clipboard is set up quietly, and Kivy's logger still says what is wrong."""
    code = (
        "from kiosk import env\n"
        "env.prepare(headless=True)\n"
        "from kivy.logger import Logger\n"
        "from kivy.core.clipboard import Clipboard, CutBuffer\n"
        "assert CutBuffer is None and type(Clipboard).__name__ == 'ClipboardSDL2', Clipboard\n"
        "Logger.critical('Window: the screen could not be opened (a real fault)')\n"
        "try:\n"
        "    raise OSError('the printer went away')\n"
        "except OSError:\n"
        "    Logger.exception('Printer: it stopped')\n"
    )
    done = _kivy_log(code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stderr
    assert "CRITICAL" in log and "the screen could not be opened (a real fault)" in log
    assert "Traceback" in log and "OSError: the printer went away" in log
    assert "Cutbuffer" not in log and "xclip" not in log and "xsel" not in log, log


def test_only_the_cut_buffer_line_is_left_out() -> None:
    quiet = env.QuietClipboard()

    def record(level: int, message: str) -> logging.LogRecord:
        return logging.LogRecord("kivy", level, __file__, 1, message, None, None)

    cut = "Cutbuffer: Unable to find any valuable Cutbuffer provider. Please enable debug logging\n"
    assert not quiet.filter(record(logging.CRITICAL, cut))
    assert quiet.filter(record(logging.CRITICAL, "Window: Unable to find any valuable Window"))
    assert quiet.filter(record(logging.ERROR, "Clipboard: Unable to use sdl2"))
    assert quiet.filter(record(logging.INFO, "Cutbuffer: cut buffer support enabled"))
    chosen = record(logging.INFO, "Clipboard: Provider: sdl2(['clipboard_xclip'] ignored)")
    assert quiet.filter(chosen) and chosen.getMessage() == "Clipboard: Provider: sdl2"
