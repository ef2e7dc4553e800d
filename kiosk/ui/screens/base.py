"""What every screen does: load its view-model on the worker when shown, render it on the UI
thread (redraws batched with a Clock trigger), take scans, and say when something failed."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from kiosk.ui import theme as t
from kiosk.ui.theme import theme
from kiosk.viewmodels import common
from pos.services.station import Station

if TYPE_CHECKING:
    from kiosk.ui.front import Front

log = logging.getLogger(__name__)
STRICT = "BOOTH_UI_STRICT"  # tests: a screen that fails to render fails the test


class RoleScreen(Screen):  # type: ignore[misc]
    #: the screen's name in the ScreenManager
    screen_name = ""

    def __init__(self, front: Front, **kwargs: Any) -> None:
        super().__init__(name=self.screen_name, **kwargs)
        self.front = front
        self.vm: Any = None
        self.body = BoxLayout(orientation="vertical")
        self.add_widget(self.body)
        self._render_trigger = Clock.create_trigger(self._render_now)
        self._preloaded = False
        theme.bind(scale=self._respace)
        self._respace()
        self.build()

    def _respace(self, *_: object) -> None:
        self.body.padding = theme.px(t.GAP)
        self.body.spacing = theme.px(t.GAP)

    # -- for subclasses -------------------------------------------------------------------------

    def build(self) -> None:
        """Create the widgets (once)."""

    def load(self, st: Station) -> Any:
        """On the worker: the view-model to show (None: nothing to load)."""
        return None

    def render(self, vm: Any) -> None:
        """On the UI thread: show `vm`."""

    def on_scan(self, text: str) -> None:
        """A whole scan from the scanner while this screen shows."""

    def failed(self, message: str) -> None:
        """A job failed unexpectedly (not a refusal: those are outcomes)."""
        self.show(common.Outcome(False, "Something went wrong", message, common.ERROR))

    def show(self, outcome: common.Outcome) -> None:
        """Show a command's outcome (screens with an outcome area override)."""

    # -- plumbing -------------------------------------------------------------------------------

    def on_pre_enter(self, *_: object) -> None:
        if self._preloaded:
            self._preloaded = False
            return
        self.refresh()

    def preload(self, vm: Any) -> None:
        """The view-model was computed with the command that led here: no second trip."""
        self._preloaded = True
        self.vm = vm
        self.render(vm)

    def refresh(self) -> None:
        self.front.call(self.load, self._loaded)

    def _loaded(self, vm: Any) -> None:
        self.vm = vm
        self._render_trigger()

    def _render_now(self, *_: object) -> None:
        try:
            self.render(self.vm)
        except Exception as error:  # a bug: say so on screen, keep the station running
            log.exception("screen %s failed to render", self.name)
            if os.environ.get(STRICT):
                raise
            self.failed(f"{type(error).__name__}: {error}")

    @property
    def operator(self) -> str:
        return self.front.badge
