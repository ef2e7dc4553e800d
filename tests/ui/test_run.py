"""`booth run`: the front end found by entry point, no Kivy before it is needed, no display
means exit 3, and a headless run draws its first frame."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from pos.cli.main import cli
from pos.cli.run import load_frontend, run
from pos.errors import HardwareFailure
from tests.conftest import run_booth

# `booth run` as the CLI will have it once `run` is in pos.cli.main's COMMANDS.
REGISTER = (
    "from pos.cli.main import cli, main\n"
    "from pos.cli.run import run\n"
    "cli.commands.setdefault('run', run)\n"
)


@pytest.fixture(autouse=True)
def _registered() -> None:
    cli.commands.setdefault("run", run)


def test_the_kivy_front_end_is_an_entry_point() -> None:
    from kiosk.app import run as kivy_run

    assert load_frontend("kivy") is kivy_run
    with pytest.raises(HardwareFailure, match="no front end 'tk'"):
        load_frontend("tk")


def test_without_a_display_it_says_so_and_exits_3(
    demo_hall: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    result = run_booth("--hall", str(demo_hall / "booth-1"), "run")
    assert result.exit_code == 3, result.stderr
    assert "no display" in result.stderr and "--headless" in result.stderr
    bad = run_booth("--hall", str(demo_hall / "booth-1"), "run", "--size", "big")
    assert bad.exit_code == 2 and "WIDTHxHEIGHT" in bad.stderr


def test_run_help_imports_no_kivy() -> None:
    code = REGISTER + (
        "import sys\n"
        "try:\n"
        "    main(['run', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert not [m for m in sys.modules if m.startswith('kivy')], 'kivy imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--headless" in done.stdout


@pytest.mark.slow  # Kivy draws a frame in a process of its own
def test_a_headless_run_draws_its_first_frame(demo_hall: Path, tmp_path: Path) -> None:
    shot = tmp_path / "first.png"
    argv = [
        "--hall", str(demo_hall / "booth-1"), "run", "--headless",
        "--exit-after", "1", "--screenshot", str(shot),
    ]  # fmt: skip
    env = {**os.environ, "KIVY_HOME": str(tmp_path / "kivy"), "KIVY_NO_CONSOLELOG": "1"}
    done = subprocess.run(
        [sys.executable, "-c", REGISTER + f"main({argv!r})"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.exists(), "no first frame saved"
    with Image.open(shot) as image:
        assert image.size == (800, 480)
        assert len(image.convert("L").getcolors(256) or ()) > 10, "a blank frame"
