"""The single-instance lock: one process per station directory, or two would reuse a seq."""

from __future__ import annotations

import errno
import fcntl
import os
import sys
import time
from pathlib import Path
from types import TracebackType

from pos.errors import StationBusy, StorageFailure


class StationLock:
    def __init__(self, directory: Path) -> None:
        self.path = directory / "station.lock"
        self._fd: int | None = None

    def acquire(self, wait: float = 0.0) -> StationLock:
        """Take the lock, waiting up to `wait` seconds for another writer to finish."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise StorageFailure(
                    f"station {self.path.parent} cannot be written here "
                    f"({os.strerror(exc.errno).lower()}): only reading commands work on it"
                ) from None
            raise StorageFailure(f"cannot open {self.path}: {exc.strerror}") from None
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                holder = os.pread(fd, 512, 0).decode(errors="replace").strip()
                os.close(fd)
                raise StationBusy(
                    f"station {self.path.parent} is in use by {holder or 'another process'}; "
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
