"""One role's front end over one StationRuntime: the root widget (navigation, screens, status
bar), who is logged in, and the path every service call takes (worker -> UI thread)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from kivy.graphics import Color, Rectangle
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from kiosk.runtime import DeviceState, StationRuntime
from kiosk.ui.bridge import UiPoster
from kiosk.ui.roles import IdleWatch, Tab, build_role
from kiosk.ui.theme import rgba, theme
from kiosk.ui.widgets import Row, TouchButton
from kiosk.viewmodels import common
from kiosk.viewmodels.booth import LoginResult
from pos.errors import BoothError
from pos.services.station import Station

T = TypeVar("T")
log = logging.getLogger(__name__)


class NavBar(Row):
    def __init__(self, tabs: list[Tab], go: Callable[[str], None], log_out: Callable[[], None]):
        super().__init__()
        self.buttons: dict[str, TouchButton] = {}
        for tab in tabs:
            button = TouchButton(
                tab.label,
                on_press=partial(go, tab.screen),
                colour=common.PANEL_HI,
                ident=f"tab-{tab.screen}",
            )
            button.size_hint_x = 1 + 0.08 * len(tab.label)  # a long label, a wider tab
            self.buttons[tab.screen] = button
            self.add_widget(button)
        log_out_button = TouchButton("Log out", on_press=log_out, colour=common.OFF, ident="logout")
        log_out_button.size_hint_x = 1 + 0.08 * len("Log out")
        self.add_widget(log_out_button)

    def highlight(self, name: str) -> None:
        for screen, button in self.buttons.items():
            button.set_colour(common.INFO if screen == name else common.PANEL_HI)


class Front:
    """Build with a runtime, `start()` (opens the station), put `root` in a window, `stop()`."""

    def __init__(self, runtime: StationRuntime, *, idle_timeout: float | None = None) -> None:
        self.runtime = runtime
        self.idle_timeout = idle_timeout or runtime.local.idle_timeout
        self.idle_watch: Any = None
        self.poster = UiPoster()
        runtime.post = self.poster.post
        self.operator: LoginResult | None = None
        self.player: Any = None  # the kiosk's identified player, forgotten at idle
        self.root = BoxLayout(orientation="vertical")
        with self.root.canvas.before:
            Color(*rgba(common.BACKGROUND))
            self._bg = Rectangle()
        self.root.bind(pos=self._paint, size=self._paint)
        self.screens = ScreenManager(transition=NoTransition())
        self.nav: NavBar | None = None
        self.role = ""
        self.home = ""
        from kiosk.ui.widgets import StatusBar

        self.status = StatusBar()

    def _paint(self, *_: object) -> None:
        self._bg.pos, self._bg.size = self.root.pos, self.root.size

    # -- lifetime -----------------------------------------------------------------------------

    def start(self) -> None:
        info = self.runtime.start()
        self.role = info.role
        try:
            tabs, self.home = build_role(self)
        except BaseException:
            self.runtime.stop()
            raise
        if tabs:
            self.nav = NavBar(tabs, self.go, self.log_out)
        self.root.add_widget(self.screens)
        self.root.add_widget(self.status)
        self.runtime.status_listeners.append(self._show_status)
        self.runtime.change_listeners.append(self._ledger_changed)
        self.runtime.scan_handler = self._scanned
        self._show_status(self.runtime.state)
        if self.role == "kiosk":
            self.idle_watch = IdleWatch(self, self.idle_timeout)
        first = self.screens.get_screen(self.screens.screen_names[0])
        first.vm = self.runtime.worker_call(first.load)  # the first frame shows content
        first.render(first.vm)
        self.go(first.name)

    def _ledger_changed(self) -> None:
        """On the UI thread: a command from the CLI or another process wrote to the station; the
        screen showing reloads its view (a deal received shows without a restart)."""
        screen = self.screens.current_screen
        refresh = getattr(screen, "refresh", None)
        if callable(refresh):
            refresh()

    def stop(self) -> None:
        self.runtime.scan_handler = None
        if self.idle_watch is not None:
            self.idle_watch.cancel()
        self.runtime.stop()

    # -- navigation and login -----------------------------------------------------------------

    def go(self, name: str, vm: Any = None) -> None:
        """Show screen `name`; with `vm` (computed already), it shows that at once."""
        if vm is not None:
            self.screens.get_screen(name).preload(vm)
        self.screens.current = name
        if self.nav is not None:
            self.nav.highlight(name)

    def log_in(self, who: LoginResult) -> None:
        self.operator = who
        if self.nav is not None and self.nav.parent is None:
            self.root.add_widget(self.nav, index=len(self.root.children))
        self._show_status(self.runtime.state)
        self.go(self.home)

    def log_out(self) -> None:
        self.operator = None
        if self.nav is not None and self.nav.parent is not None:
            self.root.remove_widget(self.nav)
        self._show_status(self.runtime.state)
        self.go(self.screens.screen_names[0])

    # -- the kiosk's player -------------------------------------------------------------------

    def forget_player(self) -> None:
        """Back at idle: nothing of the last player stays on screen or in memory."""
        self.player = None
        for screen in self.screens.screens:
            if hasattr(screen, "forget"):
                screen.forget()

    def refuse(self, refusal: Any) -> None:
        self.player = None
        screen = self.screens.get_screen("refusal")
        screen.tell(refusal)
        self.go("refusal")

    def show_result(self, outcome: common.Outcome) -> None:
        self.screens.get_screen("result").show(outcome)
        self.go("result")

    @property
    def badge(self) -> str:
        return self.operator.badge if self.operator else ""

    # -- work ---------------------------------------------------------------------------------

    def call(
        self, fn: Callable[[Station], T], done: Callable[[T], None], *, prints: bool = False
    ) -> None:
        """Run `fn(station)` on the worker; `done(result)` on the UI thread."""
        self.poster.when_done(self.runtime.run(fn, prints=prints), done, self._failed)

    def _failed(self, error: BaseException) -> None:
        screen = self.screens.current_screen
        message = error.message if isinstance(error, BoothError) else f"{type(error).__name__}"
        log.error("a station job failed: %s", message, exc_info=error)
        if hasattr(screen, "failed"):
            screen.failed(message)

    def kick_drawer(self, done: Callable[[str], None]) -> None:
        self.poster.when_done(self.runtime.kick_drawer(), done, self._failed)

    # -- scanner and status -------------------------------------------------------------------

    def _scanned(self, text: str) -> None:
        if self.idle_watch is not None:
            self.idle_watch.activity()
        screen = self.screens.current_screen
        if hasattr(screen, "on_scan"):
            screen.on_scan(text)

    def _show_status(self, state: DeviceState) -> None:
        who = self.operator.name if self.operator else None
        if self.role == "kiosk":
            who = "self-service"
        self.status.show(common.status_bar(state, self.runtime.info, who))


__all__ = ["Front", "Tab", "theme"]
