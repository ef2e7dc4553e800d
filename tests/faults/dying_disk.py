"""A dying disk under one file, for a process of its own: `eio_shim.c` built once per session
and preloaded, so SQLite meets a real EIO from its reads (not a malformed page)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("eio_shim.c")


def build_shim(directory: Path) -> Path:
    """Compile the shim into `directory`; gcc is one of the test packages (Makefile)."""
    compiler = shutil.which("gcc")
    assert compiler is not None, "gcc is missing: run `make test`, which installs it"
    library = directory / "eio_shim.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-o", str(library), str(SOURCE), "-ldl"],
        check=True,
        capture_output=True,
    )
    return library


def failing_reads(shim: Path, file: Path, start: int, end: int) -> dict[str, str]:
    """The environment of a process whose reads of `file` in [start, end) fail with EIO."""
    env = dict(os.environ)
    env.update(
        LD_PRELOAD=str(shim),
        BOOTH_EIO_FILE=os.path.realpath(file),
        BOOTH_EIO_FROM=str(start),
        BOOTH_EIO_TO=str(end),
    )
    return env
