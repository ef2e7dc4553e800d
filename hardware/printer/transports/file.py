"""`file:PATH`: each job's bytes appended to a file or written to a device node such as
/dev/usb/lp0, through python-escpos `File`."""

from __future__ import annotations

import errno
import logging
import os
import stat
from pathlib import Path
from typing import Any

from escpos.printer import File

from hardware.printer.errors import (
    PaperOut,
    PrinterAccessDenied,
    PrinterError,
    PrinterOffline,
    PrinterUnplugged,
)
from hardware.printer.profiles import PrinterProfile, get_profile
from hardware.printer.transports.base import (
    GONE_ERRNOS,
    UDEV_HINT,
    station_path,
    status_report,
)

logger = logging.getLogger(__name__)


class _AppendingFile(File):  # type: ignore[misc]
    """python-escpos `File`, opened without truncating: a regular file gets each job appended;
    a device node (/dev/usb/lp0) is written as it is and never created when it is missing."""

    _device: Any

    def open(self, raise_not_found: bool = True) -> None:
        if self._device:
            self.close()
        path = Path(self.devfile)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            mode = None
        try:
            if mode is not None and stat.S_ISCHR(mode):
                fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
            elif mode is None and _is_device_path(path):
                raise FileNotFoundError(errno.ENOENT, "no such device node", str(path))
            else:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError:
            self.device = None
            raise
        self.device = os.fdopen(fd, "wb", buffering=0)  # errors surface at write, not at close

    def _raw(self, msg: bytes) -> None:
        """Write it all: an unbuffered write to a device may take part of it."""
        assert self.device
        view = memoryview(msg)
        while view:
            written = self.device.write(view)
            if not written:
                raise OSError(errno.EIO, "the device took no data")
            view = view[written:]

    def close(self) -> None:
        device, self._device = self._device, False
        if device:
            device.close()


def _is_device_path(path: Path) -> bool:
    return path.is_absolute() and len(path.parts) > 1 and path.parts[1] == "dev"


class FilePrinter:
    """`file:PATH`: each job's bytes appended to PATH, through python-escpos `File`. PATH may be
    a device node such as /dev/usb/lp0 (the kernel's usblp driver), which is never created."""

    kind = "file"

    def __init__(self, path: Path, profile: PrinterProfile | str | None = None) -> None:
        self.path = Path(path)
        self.profile = get_profile(profile)
        self.sent = 0

    def describe(self) -> str:
        return f"printer file:{self.path}"

    def send(self, job_bytes: bytes, name: str) -> None:
        printer = _AppendingFile(str(self.path), profile=self.profile.escpos_profile)
        try:
            printer.open()
        except OSError as exc:
            raise self._error(exc, "cannot be opened") from exc
        try:
            printer._raw(job_bytes)
        except OSError as exc:
            raise self._error(exc, f"failed during job {name}") from exc
        finally:
            try:
                printer.close()
            except OSError as exc:
                logger.debug("%s: close: %s", self.describe(), exc)
        self.sent += 1

    def _error(self, exc: OSError, what: str) -> PrinterError:
        device = self._is_device()
        code = exc.errno
        if code in GONE_ERRNOS and (device or _is_device_path(self.path)):
            return PrinterUnplugged(f"{self.describe()} {what}: no such device: is it plugged in?")
        if code == errno.ENOSPC and device:
            return PaperOut(f"{self.describe()} {what}: the printer reports out of paper")
        if code == errno.EACCES:
            return PrinterAccessDenied(f"{self.describe()} {what}: permission denied {UDEV_HINT}")
        if code == errno.ENOSPC:
            return PrinterOffline(f"{self.describe()} {what}: the disk is full")
        return PrinterOffline(f"{self.describe()} {what}: {exc.strerror or exc}")

    def _is_device(self) -> bool:
        try:
            return stat.S_ISCHR(self.path.stat().st_mode)
        except OSError:
            return False

    def status(self) -> dict[str, Any]:
        exists = self.path.exists()
        target = self.path if exists else self.path.parent
        writable = target.is_dir() if not exists else self.path.is_file() or self._is_device()
        writable = writable and os.access(target, os.W_OK)
        problem = None
        if not exists and _is_device_path(self.path):
            writable = False
            problem = f"{self.describe()}: no such device: is it plugged in?"
        elif not writable:
            problem = f"{self.describe()} is not writable"
        return status_report(online=writable, writable=writable, problem=problem)


def file_printer(options: str, station_dir: Path) -> FilePrinter:
    """Entry point `booth.printers` `file`: `file:PATH` (relative to the station directory)."""
    return FilePrinter(station_path(options, station_dir, "file"))
