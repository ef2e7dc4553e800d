"""StationWorker: the one thread that owns the Station.

The station's SQLite connection may be used from another thread (check_same_thread=False) but
is not thread-safe, so every service call goes through one worker thread, in the order it was
submitted. The UI thread never touches the Station: it submits work and gets a Future back.
No Kivy here: the touch screens and `booth serve` both run their station on one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from pos.services.station import Station

T = TypeVar("T")

#: How long stop() waits for the work already queued (a printer timing out, say).
STOP_TIMEOUT = 30.0


class WorkerStopped(RuntimeError):
    """Work submitted after stop()."""


class StationWorker:
    """Opens the station on its own thread and runs `fn(station)` jobs there, one at a time."""

    def __init__(self, open_station: Callable[[], Station], *, name: str = "booth-station"):
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._station: Station | None = None
        self._lock = threading.Lock()
        self._pending = 0
        self._idle = threading.Condition(self._lock)
        self._stopped = False
        #: Held around every job when set: LAN sync's write lock, so that its replicator's
        #: writes through the station's connection never interleave with a command.
        self.job_lock: threading.Lock | None = None
        self._opened = self._submit_raw(lambda: self._open(open_station))

    def _open(self, open_station: Callable[[], Station]) -> Station:
        self._station = open_station()
        return self._station

    def wait_open(self, timeout: float | None = 30.0) -> Station:
        """The open station (raises what opening it raised: StationBusy, NotFound...)."""
        return self._opened.result(timeout)

    # -- work -------------------------------------------------------------------------------

    def _submit_raw(self, job: Callable[[], T]) -> Future[T]:
        with self._lock:
            if self._stopped:
                raise WorkerStopped("the station worker is stopped")
            self._pending += 1
        try:
            future = self._executor.submit(job)
        except RuntimeError:
            self._done(None)
            raise WorkerStopped("the station worker is stopped") from None
        future.add_done_callback(self._done)
        return future

    def _done(self, _future: object) -> None:
        with self._lock:
            self._pending -= 1
            if self._pending == 0:
                self._idle.notify_all()

    def submit(self, fn: Callable[[Station], T]) -> Future[T]:
        """Run `fn(station)` on the worker thread, after everything submitted before."""

        def job() -> T:
            station = self._station
            if station is None:  # opening failed: say so to every caller
                self._opened.result()
                raise WorkerStopped("the station is not open")
            lock = self.job_lock
            if lock is None:
                return fn(station)
            with lock:
                return fn(station)

        return self._submit_raw(job)

    def call(self, fn: Callable[[Station], T], timeout: float | None = 30.0) -> T:
        """Submit and wait: for tests, benchmarks and start-up, never from the UI thread."""
        return self.submit(fn).result(timeout)

    @property
    def pending(self) -> int:
        with self._lock:
            return self._pending

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until no job is queued or running (tests); False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    # -- lifetime ---------------------------------------------------------------------------

    def stop(self) -> None:
        """Finish the queued work, close the station, join the thread. Idempotent."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            self._pending += 1
        try:
            closing = self._executor.submit(self._close)
            closing.add_done_callback(self._done)
        except RuntimeError:  # already shut down
            self._done(None)
        self._executor.shutdown(wait=True)

    def _close(self) -> None:
        station, self._station = self._station, None
        if station is not None:
            station.close()

    @property
    def stopped(self) -> bool:
        return self._stopped
