"""A station's owner starting: the time between taking the station and answering on its control
socket (opening the ledger, which after an upgrade rebuilds its projections first).

The owner holds an exclusive lock on `control.starting` in the station directory through that
time, and the kernel lets it go when the owner answers or dies. A command that finds no socket
waits on that lock, then is sent to the owner, instead of running beside it and finding the
station taken. Standard library only: the command-line client imports it.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

STARTING_NAME = "control.starting"
#: The longest a command waits for an owner to start (a rebuild of a big ledger takes minutes).
START_WAIT = 600.0


def starting_path(directory: Path) -> Path:
    return directory / STARTING_NAME


@contextmanager
def starting(directory: Path) -> Iterator[None]:
    """Held by an owner from before it opens its station until its control socket listens.
    The file is 0640: the group that reaches control.sock may wait on it; it holds nothing."""
    try:
        fd = os.open(starting_path(directory), os.O_RDWR | os.O_CREAT, 0o640)
    except OSError:  # a station on a read-only copy: its opening says why
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # lets the lock go


def wait_started(directory: Path, bound: float = START_WAIT) -> bool | None:
    """Whether an owner was starting: False when none is (run the command here), True when it
    finished starting (or gave up) within `bound` seconds, None when it is still starting."""
    try:
        fd = os.open(starting_path(directory), os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            pass
        done = threading.Event()

        def wait(held: int = fd) -> None:
            with suppress(OSError):
                fcntl.flock(held, fcntl.LOCK_SH)
            done.set()

        # A thread, so that the wait has a bound: a lock still held after it is left behind
        # with the thread (a daemon), and the command says the owner is still starting.
        threading.Thread(target=wait, name="booth-owner-start", daemon=True).start()
        if not done.wait(bound):
            fd = -1  # the waiting thread still uses it; the process's end closes it
            return None
        return True
    finally:
        if fd >= 0:
            os.close(fd)
