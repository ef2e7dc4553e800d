"""A quantity set by touch: − and + keys (48 px targets and more) either side of the number, so a
busy volunteer never needs the keyboard to sell 3 packs or split a prize 2 ways."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kiosk.ui import theme as t
from kiosk.ui.widgets import Box, Text, TouchButton
from kiosk.viewmodels import common


class Stepper(Box):
    """− value +, from `low` to `high`; `said(value)` is how the number reads ("Qty 2")."""

    def __init__(
        self,
        said: Callable[[int], str],
        *,
        ident: str,
        low: int = 1,
        high: int = 500,
        size: float = t.BODY,
        **kwargs: Any,
    ) -> None:
        super().__init__("horizontal", **kwargs)
        self.ident = f"{ident}-stepper"  # the number itself is `ident`
        self._said = said
        self.low, self.high = low, high
        self.value = low
        self.minus = TouchButton(
            "−",
            on_press=lambda: self.set(self.value - 1),
            colour=common.OFF,
            ident=f"{ident}-minus",
        )
        self.plus = TouchButton(
            "+", on_press=lambda: self.set(self.value + 1), colour=common.OFF, ident=f"{ident}-plus"
        )
        for key in (self.minus, self.plus):
            key.size_hint_x = None
            key.bind(height=lambda key, height: setattr(key, "width", height))
            key.width = key.height
        self.label = Text(size=size, bold=True, halign="center", ident=ident)
        self.add_widget(self.minus)
        self.add_widget(self.label)
        self.add_widget(self.plus)
        self.set(low)

    def set(self, value: int) -> None:
        self.value = max(self.low, min(self.high, value))
        self.label.text = self._said(self.value)
        self.minus.disabled = self.value <= self.low
        self.plus.disabled = self.value >= self.high

    def reset(self) -> None:
        self.set(self.low)

    @property
    def text(self) -> str:
        """The value as the view-model reads a typed quantity."""
        return str(self.value)
