"""Files written where a person asked (a PDF, a CSV, a workbook, a PNG): whole or not at all.

The writer fills a temporary file beside the target, which replaces the target only once it is
complete, so a full disk never leaves a truncated report in place of yesterday's good one. A
target that is not a regular file (/dev/stdout, a pipe) is written directly: never replaced."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from pos.errors import StorageFailure


@contextlib.contextmanager
def replacing(path: Path | str) -> Iterator[Path]:
    """Yields the path to write; raises StorageFailure naming `path` when it cannot be written
    (full disk, no such directory, no permission), leaving what was there before."""
    target = Path(path)
    direct = target.exists() and not target.is_file()
    partial = target if direct else target.with_name(f".{target.stem}.partial{target.suffix}")
    try:
        yield partial
        if not direct:
            os.replace(partial, target)
    except OSError as exc:
        raise StorageFailure(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if not direct:
            with contextlib.suppress(OSError):
                partial.unlink()
