"""Sizes and colours for touch: everything is laid out for 800x480 (a 7-inch screen, ~133 dpi,
where 48 px is 9 mm) and scaled with the window, so 1920x1080 shows the same layout larger."""

from __future__ import annotations

from kivy.core.window import Window
from kivy.event import EventDispatcher
from kivy.properties import NumericProperty

from kiosk.viewmodels import common

BASE_WIDTH, BASE_HEIGHT = 800, 480
MIN_TARGET = 48  # px at 800x480: 9 mm on a 7-inch 800x480 screen

# font sizes at 800x480
SMALL, BODY, LARGE, TITLE, BIG, HUGE = 15, 18, 22, 28, 44, 64
BUTTON = 52  # button height at 800x480 (>= MIN_TARGET)
GAP = 6
LARGE_TEXT = 1.3  # the kiosk's large-text, high-contrast mode


def rgba(hex_colour: str, alpha: float = 1.0) -> tuple[float, float, float, float]:
    text = hex_colour.lstrip("#")
    r, g, b = (int(text[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return (r, g, b, alpha)


def text_on(hex_colour: str) -> tuple[float, float, float, float]:
    """White on dark colours, near-black on the warning yellow."""
    return rgba("#111111") if hex_colour == common.WARN else rgba(common.TEXT)


class Theme(EventDispatcher):  # type: ignore[misc]
    scale = NumericProperty(1.0)
    text_scale = NumericProperty(1.0)  # the kiosk's large-text mode makes it LARGE_TEXT

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        Window.bind(size=self._resized)
        self._resized(Window, Window.size)

    def _resized(self, _window: object, size: tuple[int, int]) -> None:
        width, height = size
        self.scale = max(0.5, min(width / BASE_WIDTH, height / BASE_HEIGHT))

    def px(self, value: float) -> float:
        return value * float(self.scale)

    def font(self, value: float) -> float:
        """A font size: scaled with the window, and larger in large-text mode."""
        return value * float(self.scale) * float(self.text_scale)


theme = Theme()
