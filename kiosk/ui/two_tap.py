"""Two taps for what cannot be undone: the first tap on such a button arms it (it says "tap
again to record it" and turns red); the second tap on the same button records. Any other touch
on the screen, a Cancel, or leaving the screen takes the first tap back. No timers: an armed
button waits for the next touch."""

from __future__ import annotations

from typing import Any

from kivy.input.motionevent import MotionEvent
from kivy.uix.widget import Widget

from kiosk.ui.widgets import TouchButton
from kiosk.viewmodels import common


class TwoTaps:
    """The one armed button of a screen (if any). The screen calls `touched` from its
    on_touch_down and `cancel` from its on_leave."""

    def __init__(self) -> None:
        self.armed: TouchButton | None = None
        self.key = ""
        self._was: tuple[str, Any] = ("", common.INFO)
        self.listeners: list[Any] = []

    def confirmed(self, button: TouchButton, key: str, prompt: str) -> bool:
        """True on the second tap of `button` for `key` (the caller records); else arm it:
        its text becomes `prompt`, its colour red, and the caller does nothing yet."""
        if self.armed is button and self.key == key:
            self.cancel(quiet=True)
            return True
        self.cancel(quiet=True)
        self.armed, self.key = button, key
        self._was = (button.text, button._colour)
        button.shorten = False  # the prompt wraps on two lines (shortening keeps one)
        button.text = prompt
        button.set_colour(common.ERROR)
        self._told()
        return False

    def cancel(self, *, quiet: bool = False) -> None:
        """Take the first tap back: the button as it was (`quiet`: the listeners not told, the
        second tap records)."""
        button, self.armed, self.key = self.armed, None, ""
        if button is None:
            return
        text, colour = self._was
        button.text = text
        button.shorten = True
        button.set_colour(colour)
        if not quiet:
            self._told()

    def touched(self, window_pos: tuple[float, float]) -> None:
        """A touch anywhere on the screen: one off the armed button takes the first tap back."""
        button = self.armed
        if button is None:
            return
        if button.get_root_window() is None or not button.collide_point(
            *button.to_widget(*window_pos)
        ):
            self.cancel()

    def _told(self) -> None:
        for listener in self.listeners:
            listener(self.armed is not None)


def window_pos(widget: Widget, touch: MotionEvent) -> tuple[float, float]:
    """Where `touch` (in `widget`'s parent's coordinates, as on_touch_down gets it) is in the
    window."""
    parent = widget.parent
    if parent is None:
        return (float(touch.x), float(touch.y))
    x, y = parent.to_window(touch.x, touch.y)
    return (float(x), float(y))
