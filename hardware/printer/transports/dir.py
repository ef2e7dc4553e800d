"""`dir:DIR`: each job its own file and a picture of it, for tests and the demo."""

from __future__ import annotations

import errno
import logging
import os
import re
from pathlib import Path
from typing import Any

from hardware.printer.errors import (
    CONDITIONS,
    CoverOpen,
    PaperOut,
    PrinterError,
    PrinterOffline,
    UnsupportedEscPos,
)
from hardware.printer.profiles import PrinterProfile, get_profile
from hardware.printer.transports.base import station_path, status_report

logger = logging.getLogger(__name__)

JOB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
FAIL_FILE = ".fail"


class DirPrinter:
    """`dir:DIR`: each job its own file `DIR/{name}.bin` and a picture of it, `DIR/{name}.png`,
    drawn from the bytes by escpos_image (the same drawing as png.py). For tests and the demo.

    A job name already used gets `~2`, `~3`... rather than replacing the earlier file, so a job
    printed twice shows. A file `DIR/.fail` holding a condition (offline, paper-out, cover-open,
    unplugged) makes every job fail that way until it is removed: a scripted printer fault.
    """

    kind = "dir"

    def __init__(
        self, directory: Path, profile: PrinterProfile | str | None = None, *, png: bool = True
    ) -> None:
        self.directory = Path(directory)
        self.profile = get_profile(profile)
        self.png = png
        self.sent = 0

    def describe(self) -> str:
        return f"printer dir:{self.directory}"

    def send(self, job_bytes: bytes, name: str) -> None:
        if not JOB_NAME.fullmatch(name):
            raise ValueError(f"job name {name!r} is not a plain file name")
        fault = self._fault()
        if fault is not None:
            raise fault
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            stem = self._free_stem(name)
            _write_atomically(self.directory / f"{stem}.bin", job_bytes)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise PrinterOffline(f"{self.describe()}: the disk is full") from exc
            raise PrinterOffline(f"{self.describe()} cannot take job {name}: {exc}") from exc
        self.sent += 1
        if self.png:
            self._picture(stem, job_bytes)

    def _picture(self, stem: str, job_bytes: bytes) -> None:
        from hardware.printer.escpos_image import interpret
        from hardware.printer.png import to_png

        try:
            printout = interpret(job_bytes, self.profile)
        except UnsupportedEscPos as exc:
            logger.warning("%s: no picture of %s: %s", self.describe(), stem, exc)
            return
        if not (printout.lines or printout.images or printout.qr_codes):
            return  # nothing on paper (a drawer kick)
        picture = to_png(printout.image)
        try:
            _write_atomically(self.directory / f"{stem}.png", picture)
        except OSError as exc:
            logger.warning("%s: no picture of %s: %s", self.describe(), stem, exc)

    def _free_stem(self, name: str) -> str:
        stem, copy = name, 1
        while (self.directory / f"{stem}.bin").exists():
            copy += 1
            stem = f"{name}~{copy}"
        if copy > 1:
            logger.warning("%s: job %s printed again, as %s", self.describe(), name, stem)
        return stem

    def _fault(self) -> PrinterError | None:
        try:
            condition = (self.directory / FAIL_FILE).read_text().strip().lower()
        except OSError:
            return None
        error = CONDITIONS.get(condition or "offline", PrinterOffline)
        return error(f"{self.describe()}: {condition or 'offline'} (simulated by {FAIL_FILE})")

    def jobs(self) -> list[Path]:
        """The job files, in name order."""
        return sorted(self.directory.glob("*.bin"))

    def status(self) -> dict[str, Any]:
        fault = self._fault()
        target = self.directory
        while not target.exists() and target != target.parent:
            target = target.parent
        writable = target.is_dir() and os.access(target, os.W_OK)
        problem = (
            str(fault) if fault else (None if writable else f"{self.describe()} is not writable")
        )
        return status_report(
            online=writable and fault is None,
            paper="out" if isinstance(fault, PaperOut) else "ok",
            cover="open" if isinstance(fault, CoverOpen) else "closed",
            writable=writable,
            problem=problem,
        )


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def dir_printer(options: str, station_dir: Path) -> DirPrinter:
    """Entry point `booth.printers` `dir`: `dir:DIR` (relative to the station directory)."""
    return DirPrinter(station_path(options, station_dir, "dir"))
