"""Every module of Booth imports on its own, first, in a fresh interpreter: a cycle the static
scan (test_import_cycles) cannot see, such as one through a package's __init__, fails here
with Python's own ImportError. One subprocess per module, as python-zeroconf's
test_circular_imports does, run a few at a time; none is skipped.

Kivy is told what the UI tests tell it (tests/ui/conftest.py, kiosk.env): no command-line
parsing, no log files, its home in a temporary directory, and SDL's offscreen video driver, so
the modules that open Kivy's window import without a display."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.test_import_cycles import ROOT, module_files

pytestmark = pytest.mark.slow  # a fresh interpreter for each of Booth's 300-odd modules

KIVY_ENVIRONMENT = {
    "KIVY_NO_ARGS": "1",
    "KIVY_NO_FILELOG": "1",
    "KIVY_NO_CONSOLELOG": "1",
    "SDL_VIDEODRIVER": "offscreen",
    "KIVY_WINDOW": "sdl2",
}


def import_alone(module: str, environ: dict[str, str]) -> str | None:
    """None when `module` imports in a fresh interpreter; otherwise what went wrong."""
    code = f"import {module}"
    if module.rpartition(".")[2] == "__main__":  # runs its program: ask it only for --help
        code = f"import sys\nsys.argv = [{module!r}, '--help']\ntry:\n    {code}\n"
        code += "except SystemExit as exc:\n    sys.exit(exc.code)\n"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode == 0:
        return None
    return f"{module} (exit {result.returncode}):\n{result.stderr.strip()[-1500:]}"


def test_every_module_imports_on_its_own(tmp_path: Path) -> None:
    modules = sorted(module_files())
    assert len(modules) > 100 and "kiosk.ui.front" in modules and "pos.__main__" in modules
    environ = {**os.environ, **KIVY_ENVIRONMENT, "KIVY_HOME": str(tmp_path / "kivy")}
    environ.pop("BOOTH_UI_STRICT", None)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as pool:
        failures = [f for f in pool.map(lambda m: import_alone(m, environ), modules) if f]
    assert not failures, f"{len(failures)} modules do not import on their own:\n\n" + (
        "\n\n".join(failures)
    )
