"""The single-instance lock: one process per station directory, or two would reuse a seq."""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path
from types import TracebackType

from pos.errors import StationBusy


class StationLock:
    def __init__(self, directory: Path) -> None:
        self.path = directory / "station.lock"
        self._fd: int | None = None

    def acquire(self) -> StationLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise StationBusy(
                f"station {self.path.parent} is in use by {holder}; "
                "stop it first (one process per station)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} ({' '.join(sys.argv[:3])})\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> StationLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
