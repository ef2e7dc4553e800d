"""Between the worker and the UI thread: results are posted back with Clock.schedule_once, and
the count of posts not yet run lets tests wait until the screen has caught up."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from kivy.clock import Clock

T = TypeVar("T")
log = logging.getLogger(__name__)


class UiPoster:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending = 0

    def post(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the UI thread at the next frame (callable from any thread)."""
        with self._lock:
            self._pending += 1

        def run(_dt: float) -> None:
            try:
                fn()
            except Exception:
                log.exception("a UI callback failed")
            finally:
                with self._lock:
                    self._pending -= 1

        Clock.schedule_once(run, 0)

    @property
    def pending(self) -> int:
        with self._lock:
            return self._pending

    def when_done(
        self,
        future: Future[T],
        done: Callable[[T], None],
        failed: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Hand the future's result to `done` on the UI thread (its exception to `failed`)."""

        def settle(f: Future[Any]) -> None:
            error = f.exception()
            if error is None:
                self.post(lambda: done(f.result()))
            elif failed is not None:
                self.post(lambda: failed(error))
            else:
                log.error("a station job failed", exc_info=error)

        future.add_done_callback(settle)
