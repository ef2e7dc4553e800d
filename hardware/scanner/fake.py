"""A recording fake scanner for tests of what listens to scans: no thread, no device.

`scan(text)` and `fail(message)` call the callbacks at once, on the caller's thread, as a real
scanner would from its own thread.
"""

from __future__ import annotations

from hardware.scanner.base import ErrorCallback, ScanCallback


class FakeScanner:
    def __init__(self) -> None:
        self.started = 0
        self.stopped = 0
        self.delivered: list[str] = []
        self.errors: list[str] = []
        self._on_scan: ScanCallback | None = None
        self._on_error: ErrorCallback | None = None

    @property
    def running(self) -> bool:
        return self._on_scan is not None

    def start(self, on_scan: ScanCallback, on_error: ErrorCallback) -> None:
        if self.running:
            raise RuntimeError("fake scanner is already started")
        self.started += 1
        self._on_scan, self._on_error = on_scan, on_error

    def stop(self) -> None:
        if self.running:
            self.stopped += 1
        self._on_scan = self._on_error = None

    def scan(self, text: str) -> None:
        if self._on_scan is None:
            raise RuntimeError(f"scan {text!r} while the fake scanner is stopped")
        self.delivered.append(text)
        self._on_scan(text)

    def fail(self, message: str) -> None:
        if self._on_error is None:
            raise RuntimeError(f"error {message!r} while the fake scanner is stopped")
        self.errors.append(message)
        self._on_error(message)
