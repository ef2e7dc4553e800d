"""Collecting what a scanner delivers, and waiting for it without sleeping blindly."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

WAIT = 5.0  # generous: a passing test waits only as long as the scanner takes


class Collector:
    """The two callbacks of a scanner, recording scans and errors (and the delivering thread)."""

    def __init__(self) -> None:
        self.scans: list[str] = []
        self.errors: list[str] = []
        self.threads: set[str] = set()
        self._changed = threading.Condition()

    def on_scan(self, text: str) -> None:
        with self._changed:
            self.scans.append(text)
            self.threads.add(threading.current_thread().name)
            self._changed.notify_all()

    def on_error(self, message: str) -> None:
        with self._changed:
            self.errors.append(message)
            self._changed.notify_all()

    def wait_for(self, condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"timed out waiting for {what}: scans={self.scans} errors={self.errors}"
                    )
                self._changed.wait(left)

    def wait_scans(self, count: int) -> list[str]:
        self.wait_for(lambda: len(self.scans) >= count, f"{count} scan(s)")
        return list(self.scans)

    def wait_error(self, fragment: str) -> str:
        self.wait_for(
            lambda: any(fragment in e for e in self.errors), f"an error with {fragment!r}"
        )
        return next(e for e in self.errors if fragment in e)


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)
