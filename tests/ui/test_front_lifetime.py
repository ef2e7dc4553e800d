"""A front end that stops is freed with its screens. The theme lives as long as the process, so
a widget bound to it by a closure lived as long too, and its screen with it through its
parents: after 11 UI tests in one process 20 fronts and 11,700 widgets were alive, and each
later screen test ran 3 to 5 times slower (make test's UI tests took up to 90 s each)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from kivy.uix.label import Label

from kiosk.ui.theme import theme
from kiosk.ui.widgets import fixed
from pos.clock import FixedClock
from tests.ui.conftest import NOW
from tests.ui.driver import Driver

pytestmark = pytest.mark.slow  # Kivy front ends


def test_a_widget_made_fixed_is_freed_with_its_owner() -> None:
    label = fixed(Label(text="x"), 30)
    theme.scale = 2.0
    assert label.height == 60
    freed = weakref.ref(label)
    del label
    gc.collect()
    theme.scale = 1.0  # the theme's dispatch meets only a dead reference
    assert freed() is None


def test_stopped_fronts_are_freed(demo_hall: Path, screenshot_dir: Path) -> None:
    """Kivy's TextInput keeps the arguments of its last viewport adjustment (a trigger in
    kivy.clock.triggered), so the last field typed into, and its front, stay until another
    field is: at most one stopped front lives on, never one per front."""
    fronts, screens = [], []
    for role in ("kiosk-1", "booth-1", "manager", "kiosk-1", "booth-1", "manager"):
        # not open_front's drivers: it keeps them to the end of the test
        ui = Driver(demo_hall / role, FixedClock(NOW), screenshot_dir)
        try:
            ui.scan("C-1001" if role == "kiosk-1" else "S200")  # past the first screen
            fronts.append(weakref.ref(ui.front))
            screens += [weakref.ref(screen) for screen in ui.front.screens.screens]
        finally:
            ui.close()
        del ui
    gc.collect()
    alive = [front for front in fronts if front() is not None]
    assert len(alive) <= 1, f"{len(alive)} of {len(fronts)} stopped fronts are alive"
    alive_screens = [screen for screen in screens if screen() is not None]
    assert len(alive_screens) <= 20, f"{len(alive_screens)} of {len(screens)} screens are alive"
