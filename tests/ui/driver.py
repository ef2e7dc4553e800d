"""Drive a role's front end the way a person does: touches on widgets, scans from the scanner,
typing into fields; read back what the screen shows; take screenshots at two sizes and check
every one for targets smaller than 9 mm and text that does not fit."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.base import EventLoop
from kivy.core.text import Label as CoreLabel
from kivy.core.window import Window
from kivy.tests.common import UnitTestTouch
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

from hardware.printer.adapter import EscPosReceiptPrinter
from hardware.printer.fake import FakePrinter
from hardware.scanner.fake import FakeScanner
from kiosk.runtime import AUTO, StationRuntime
from kiosk.ui.capture import save_window
from kiosk.ui.front import Front
from pos.clock import FixedClock

SIZES = {"800x480": (800, 480), "1920x1080": (1920, 1080)}
MIN_TARGET = 48


class Driver:
    def __init__(
        self,
        directory: Path,
        clock: FixedClock,
        screenshots: Path,
        *,
        printer: Any = None,
        dispenser: Any = AUTO,
        idle_timeout: float | None = None,
        wait_started: bool = True,
    ) -> None:
        """`wait_started=False`: back at once, the start-up screen showing while the station
        opens (`until_started()` waits for the role's screens)."""
        EventLoop.ensure_window()
        Window.size = SIZES["800x480"]
        self.fake_printer = FakePrinter(directory.name)
        chosen = EscPosReceiptPrinter(self.fake_printer) if printer is None else printer
        self.scanner = FakeScanner()
        self.runtime = StationRuntime(
            directory, clock=clock, printer=chosen, scanner=self.scanner, dispenser=dispenser
        )
        self.front = Front(self.runtime, idle_timeout=idle_timeout)
        self.front.start()
        Window.add_widget(self.front.root)
        self.screenshots = screenshots
        self.closed = False
        if wait_started:
            self.until_started()

    def until_started(self, timeout: float = 60.0) -> None:
        """Until the station is open and its role's first screen is drawn (frames drawn
        meanwhile, as a window would); raises what opening the station raised."""
        self.until(lambda: self.front.started or self.front.error is not None, timeout)
        if self.front.error is not None:
            raise self.front.error
        self.settle()

    def until(self, condition: Callable[[], bool], timeout: float = 30.0) -> None:
        """Draw frames until `condition()` holds (posts from other threads run meanwhile)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen did not get there: {self.text()!r}")
            EventLoop.idle()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.front.stop()
        Window.remove_widget(self.front.root)
        EventLoop.idle()

    # -- waiting --------------------------------------------------------------------------------

    def settle(self, timeout: float = 60.0) -> None:
        """Until the worker and the printer thread are idle, every result is posted back and
        the frame is drawn. The timeout is a hang guard only: beside other tests' workers
        (make test's -n 3 on two cores) a screen's work took over 10 s."""
        deadline = time.monotonic() + timeout
        worker = self.runtime.worker
        assert worker is not None
        while True:
            worker.wait_idle(max(0.1, deadline - time.monotonic()))
            for _ in range(3):
                EventLoop.idle()
            if not self.runtime.busy and self.front.poster.pending == 0:
                EventLoop.idle()
                return
            if time.monotonic() > deadline:
                raise AssertionError("the UI did not settle")
            time.sleep(0.01)  # the printer thread's work: not the worker's to wait for

    def frames(self, count: int) -> None:
        for _ in range(count):
            EventLoop.idle()

    # -- finding --------------------------------------------------------------------------------

    @property
    def screen(self) -> str:
        return str(self.front.screens.current)

    def visible(self) -> list[Widget]:
        return list(self.front.root.walk(restrict=True))

    def find(self, ident: str) -> Widget:
        for widget in self.visible():
            if getattr(widget, "ident", None) == ident:
                return widget
        raise AssertionError(f"no widget {ident!r} on screen {self.screen}: {self.idents()}")

    def idents(self) -> list[str]:
        return [w.ident for w in self.visible() if getattr(w, "ident", "")]

    def text(self) -> str:
        """Everything the screen says, in one string (labels, buttons, field contents)."""
        parts = []
        for widget in self.visible():
            if (isinstance(widget, Label) and widget.text) or (
                isinstance(widget, TextInput) and widget.text
            ):
                parts.append(widget.text)
        return "\n".join(parts)

    # -- acting ---------------------------------------------------------------------------------

    def tap(self, ident: str) -> None:
        """Touch a widget at its centre, as a finger would (down, up), then settle."""
        self.tap_now(ident)
        self.settle()

    def tap_now(self, ident: str) -> None:
        """Touch a widget and draw one frame, without waiting for the station."""
        widget = self.find(ident)
        self._bring_into_view(widget)
        x, y = widget.to_window(*widget.center)
        assert 0 <= x < Window.width and 0 <= y < Window.height, f"{ident} is off screen"
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.frames(1)

    def _bring_into_view(self, widget: Widget) -> None:
        parent = widget.parent
        while parent is not None and parent is not Window:
            if isinstance(parent, ScrollView):
                y = widget.to_window(*widget.pos)[1]
                bottom = parent.to_window(*parent.pos)[1]
                inside = bottom <= y and y + widget.height <= bottom + parent.height
                if not inside:  # a finger scrolls the list first
                    parent.scroll_to(widget, padding=10, animate=False)
                    self.frames(2)
                return
            parent = parent.parent

    def type(self, ident: str, text: str, *, enter: bool = False) -> None:
        field = self.find(ident)
        assert isinstance(field, TextInput)
        field.text = text
        if enter:
            field.dispatch("on_text_validate")
        self.settle()

    def scan(self, text: str) -> None:
        """A whole scan from the scanner (its own thread in real life: posted to the UI)."""
        self.scanner.scan(text)
        self.settle()

    # -- looking --------------------------------------------------------------------------------

    def shot(self, name: str, *, both: bool = True, settle: bool = True) -> list[Path]:
        """Screenshots at 800x480 and 1920x1080 (`both=False`: 800x480 only, for a second
        state of a screen already shot at both); each is checked for small targets, text that
        does not fit and widgets sticking out of their box. Returns the files. `settle=False`:
        as the screen is, while the station is busy (the start-up screen during a rebuild)."""
        files = []
        for label, size in SIZES.items() if both else [("800x480", SIZES["800x480"])]:
            Window.size = size
            if settle:
                self.settle()
            self.frames(2)
            problems = self.small_targets() + self.clipped_text() + self.outside()
            assert not problems, f"{name} at {label}: " + "; ".join(problems)
            final = self.screenshots / f"{name}-{label}.png"
            save_window(final)
            files.append(final)
        Window.size = SIZES["800x480"]
        if settle:
            self.settle()
        self.frames(2)
        return files

    def small_targets(self) -> list[str]:
        found = []
        for widget in self.visible():
            if not isinstance(widget, Button | TextInput) or widget.opacity == 0:
                continue
            if widget.width < MIN_TARGET or widget.height < MIN_TARGET:
                name = getattr(widget, "ident", "") or repr(widget.text)[:30]
                found.append(f"target {name} is {widget.width:.0f}x{widget.height:.0f}")
        return found

    def outside(self) -> list[str]:
        """Labels and buttons that stick out of the box holding them (a column too full)."""
        found = []
        for widget in self.visible():
            parent = widget.parent
            if not isinstance(widget, Label | TextInput) or parent is None or parent is Window:
                continue
            if not widget.text or widget.opacity == 0 or _in_scroll(widget):
                continue
            if (
                widget.x < parent.x - 2
                or widget.y < parent.y - 2
                or widget.right > parent.right + 2
                or widget.top > parent.top + 2
            ):
                found.append(
                    f"{getattr(widget, 'ident', '') or widget.text[:30]!r} sticks out of its box"
                )
        return found

    def clipped_text(self) -> list[str]:
        """Labels whose text, laid out at their width, is taller than they are, or that had to
        be shortened with an ellipsis."""
        found = []
        for widget in self.visible():
            if not isinstance(widget, Label) or not widget.text or widget.opacity == 0:
                continue
            width, height = natural_size(widget)
            shortened = widget.shorten and getattr(widget._label, "is_shortened", False)
            if shortened or height > widget.height + 2 or width > widget.width + 2:
                found.append(
                    f"text {widget.text[:50]!r} needs {width:.0f}x{height:.0f}, "
                    f"has {widget.width:.0f}x{widget.height:.0f}"
                    + (" (shortened)" if shortened else "")
                )
        return found


def _in_scroll(widget: Widget) -> bool:
    parent = widget.parent
    while parent is not None and parent is not Window:
        if isinstance(parent, ScrollView):
            return True
        parent = parent.parent
    return False


def natural_size(label: Label) -> tuple[float, float]:
    """The size `label`'s text takes laid out at the label's wrapping width, unclipped."""
    wrap = label.text_size[0]
    core = CoreLabel(
        text=label.text,
        font_size=label.font_size,
        font_name=label.font_name,
        bold=label.bold,
        halign=label.halign,
        padding=label.padding,
        text_size=(wrap, None),
        markup=label.markup,
    )
    core.render()  # lays the text out without drawing it
    width, height = core._internal_size
    return (min(width, label.width) if wrap else width), height
