"""Kivy's environment and configuration, set before Kivy is first imported. No Kivy import at
module level: `booth run` imports this to decide whether there is a display at all.

- Input providers are pinned (DESIGN, Kivy pitfalls): Kivy's default `probesysfs` would probe
  every /dev/input device, double touches through mtdev and hidinput, and could take a barcode
  scanner for a touch device. Only the mouse (and SDL's own touch events) is used, plus the one
  touch screen named by BOOTH_TOUCH (e.g. `mtdev:/dev/input/event3`), if any.
- Headless (no display, tests, `booth run --headless`): SDL's offscreen video driver renders
  through Mesa's EGL, no X server needed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

BASE_SIZE = (800, 480)
TOUCH_VARIABLE = "BOOTH_TOUCH"


def display_available(environ: Mapping[str, str] | None = None) -> bool:
    """An X or Wayland display, or an SDL driver chosen on purpose (kmsdrm on a Pi)."""
    env = os.environ if environ is None else environ
    return any(env.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"))


def prepare(
    *,
    headless: bool = False,
    size: tuple[int, int] = BASE_SIZE,
    fullscreen: bool = False,
    home: Path | None = None,
    quiet: bool = False,
    max_fps: int | None = None,
) -> None:
    """Set Kivy's environment and Config. Call once, before anything imports kivy.core."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    if quiet:
        os.environ["KIVY_NO_CONSOLELOG"] = "1"
    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
        os.environ["KIVY_HOME"] = str(home)
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "offscreen"
        os.environ.setdefault("KIVY_WINDOW", "sdl2")
    from kivy.config import Config

    for option in list(Config.options("input")):
        Config.remove_option("input", option)
    Config.set("input", "mouse", "mouse,disable_multitouch")
    touch = os.environ.get(TOUCH_VARIABLE, "")
    if touch:
        provider, _, device = touch.partition(":")
        Config.set("input", "touchscreen", f"{provider},{device}")
    Config.set("kivy", "exit_on_escape", "0")
    Config.set("kivy", "keyboard_mode", "system")
    Config.set("kivy", "log_level", "warning" if quiet else "info")
    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "1")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    if max_fps is not None:
        Config.set("graphics", "maxfps", str(max_fps))
