"""The start-up screen: shown from the first frame until the station is open, so that a long
first start after an upgrade (its records rebuilt for this version of Booth) shows how far it
has come instead of a dark screen."""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.widget import Widget

from kiosk.ui import theme as t
from kiosk.ui.theme import rgba, theme
from kiosk.ui.widgets import Box, Text, spacer
from kiosk.viewmodels import common
from kiosk.viewmodels.start_up import StartUpVM


class RebuildBar(Widget):  # type: ignore[misc]
    """A bar filled to `value` (0..1), in the theme's colours."""

    ident = StringProperty("")
    value = NumericProperty(0.0)

    def __init__(self, *, ident: str = "", **kwargs: Any) -> None:
        super().__init__(ident=ident, size_hint_y=None, **kwargs)
        with self.canvas:
            Color(*rgba(common.PANEL_HI))
            self._track = Rectangle()
            Color(*rgba(common.INFO))
            self._fill = Rectangle()
        theme.bind(scale=self._rescale)
        self.bind(pos=self._draw, size=self._draw, value=self._draw)
        self._rescale()

    def _rescale(self, *_: object) -> None:
        self.height = theme.px(28)

    def _draw(self, *_: object) -> None:
        self._track.pos, self._track.size = self.pos, self.size
        self._fill.pos = self.pos
        self._fill.size = (self.width * max(0.0, min(1.0, float(self.value))), self.height)


class StartUpView(Box):
    """Big words on the hall's dark background: "Starting booth-1", what it is doing, how
    far it has come and a bar."""

    def __init__(self) -> None:
        super().__init__(gap=t.GAP * 3)
        theme.bind(scale=self._rescale)
        self._rescale()
        self.headline = Text(size=t.BIG, bold=True, halign="center", fit=True, ident="start-up")
        self.detail = Text(size=t.TITLE, halign="center", fit=True, ident="start-up-detail")
        self.count = Text(
            size=t.TITLE, bold=True, halign="center", fit=True, ident="start-up-count"
        )
        self.bar = RebuildBar(ident="start-up-bar")
        for widget in (spacer(), self.headline, self.detail, self.count, self.bar, spacer()):
            self.add_widget(widget)

    def _rescale(self, *_: object) -> None:
        self.padding = (theme.px(24), theme.px(24))

    def show(self, vm: StartUpVM) -> None:
        self.headline.text = vm.headline
        self.detail.text = vm.detail
        self.count.text = vm.count
        self.bar.opacity = 0 if vm.fraction is None else 1
        self.bar.value = vm.fraction or 0.0
