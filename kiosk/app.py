"""The Kivy front end as `booth run` starts it (entry point `booth.frontends` `kivy`).

`run()` imports Kivy only once it knows there is a display (or was asked to run headless):
`booth --help` and `booth run` on a machine with no display never load it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kiosk import env
from pos.errors import BadInput, HardwareFailure

log = logging.getLogger(__name__)


def run(
    hall: Path,
    *,
    headless: bool = False,
    size: tuple[int, int] = env.BASE_SIZE,
    fullscreen: bool = False,
    idle_timeout: float | None = None,
    exit_after: float | None = None,
    screenshot: Path | None = None,
    serve: str | None = None,
    peers: tuple[str, ...] = (),
    discover: bool = True,
    on_first_frame: Callable[[], None] | None = None,
    web: str | None = None,
) -> int:
    """Run this station's role until the window closes (or `exit_after` seconds). Returns the
    exit code; raises HardwareFailure (exit 3) when there is no display and not headless."""
    if not headless and not env.display_available():
        raise HardwareFailure(
            "no display: set DISPLAY (X11), WAYLAND_DISPLAY or SDL_VIDEODRIVER=kmsdrm (a Pi "
            "without a desktop), or run headless with --headless"
        )
    env.prepare(headless=headless, size=size, fullscreen=fullscreen)
    from kiosk.runtime import StationRuntime

    sync: Any = None
    if serve:
        from kiosk.sync_hook import ServeSync

        address, _, port = serve.rpartition(":")
        if not address or not port.isdigit():
            raise BadInput("serve", f"{serve!r} is not ADDRESS:PORT (e.g. 127.0.0.1:8701)")
        sync = ServeSync(address=address, port=int(port), peers=peers, discover=discover)
    if web:
        from kiosk.runtime import NoLanSync
        from kiosk.sync_hook import WithWeb

        sync = WithWeb(sync or NoLanSync(), web)
    runtime = StationRuntime(hall, sync=sync)
    app = make_app(
        runtime,
        idle_timeout=idle_timeout,
        exit_after=exit_after,
        screenshot=screenshot,
        on_first_frame=on_first_frame,
    )
    app.run()
    if app.error is not None:
        raise app.error
    return 0


def make_app(
    runtime: Any,
    *,
    idle_timeout: float | None = None,
    exit_after: float | None = None,
    screenshot: Path | None = None,
    on_first_frame: Callable[[], None] | None = None,
) -> Any:
    from kivy.app import App
    from kivy.clock import Clock
    from kivy.core.window import Window

    from kiosk.ui.front import Front

    class BoothApp(App):  # type: ignore[misc]
        """Small on purpose: the Front holds the screens (the start-up screen first), the
        runtime holds the station."""

        def __init__(self) -> None:
            super().__init__()
            self.front = Front(runtime, idle_timeout=idle_timeout)
            self.error: BaseException | None = None

        def build(self) -> Any:
            self.title = "Booth · starting"
            self.front.start(ready=self._ready, failed=self._failed)
            return self.front.root

        def _ready(self, info: Any) -> None:
            self.title = f"Booth · {info.station} ({info.role})"
            Window.bind(on_flip=self._flipped)

        def _failed(self, error: BaseException) -> None:
            self.error = error
            self.stop()

        def _flipped(self, *_: object) -> None:
            Window.unbind(on_flip=self._flipped)
            if exit_after is not None:  # counted from the station's first frame
                Clock.schedule_once(lambda _dt: self.stop(), exit_after)
            if screenshot is not None:
                from kiosk.ui.capture import save_window

                save_window(screenshot)
            if on_first_frame is not None:
                on_first_frame()

        def on_stop(self) -> None:
            started = time.monotonic()
            self.front.stop()
            log.info("station stopped in %.2f s", time.monotonic() - started)

    return BoothApp()
