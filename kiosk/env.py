"""Kivy's environment and configuration, set before Kivy is first imported. No Kivy import at
module level: `booth run` imports this to decide whether there is a display at all.

- Input providers are pinned (DESIGN, Kivy pitfalls): Kivy's default `probesysfs` would probe
  every /dev/input device, double touches through mtdev and hidinput, and could take a barcode
  scanner for a touch device. Only the mouse (and SDL's own touch events) is used, plus the one
  touch screen named by BOOTH_TOUCH (e.g. `mtdev:/dev/input/event3`), if any.
- Headless (no display, tests, `booth run --headless`): SDL's offscreen video driver renders
  through Mesa's EGL, no X server needed.
- The clipboard is SDL's own. Kivy would also look for an X "cut buffer" (the middle-click
  selection) by running `xclip` and `xsel`, which a hall's station does not have and a touch
  screen has no use for: each miss put a traceback in the log, and finding neither a CRITICAL
  line. The cut buffer is turned off, and that one line, which then only says so, is left out
  of the log, as are the names of the clipboard tools not tried (`QuietClipboard`); every
  other line, a real fault's, is logged as before.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path

BASE_SIZE = (800, 480)
TOUCH_VARIABLE = "BOOTH_TOUCH"
CLIPBOARD_PROVIDERS = ("sdl2", "dummy")  # SDL's clipboard; no probing for X tools
#: Kivy's one line when no cut buffer provider is allowed (kivy.core.core_select_lib)
NO_CUT_BUFFER = "Cutbuffer: Unable to find any valuable Cutbuffer provider"
#: Kivy's line naming the clipboard chosen, and after it those not tried: "sdl2([...] ignored)"
CLIPBOARD_CHOSEN = "Clipboard: Provider: "


class QuietClipboard(logging.Filter):
    """Kivy's log without what Booth's clipboard setting makes noise of: the CRITICAL line
    saying no cut buffer was found (turned off on purpose: no fault, nothing to act on), and
    the list of clipboard tools not tried after the one chosen. Nothing else is touched."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else ""
        if record.levelno >= logging.CRITICAL and message.startswith(NO_CUT_BUFFER):
            return False
        if record.levelno == logging.INFO and message.startswith(CLIPBOARD_CHOSEN):
            record.msg = message.split("(", 1)[0]  # "Clipboard: Provider: sdl2"
        return True


def _quiet_clipboard() -> None:
    """SDL's clipboard only, and no cut buffer (see the module's note). Kivy reads its options
    when the clipboard is first used (a text field), so this holds if kivy was imported before."""
    import kivy
    from kivy.logger import Logger

    kivy.kivy_options["clipboard"] = CLIPBOARD_PROVIDERS
    kivy.kivy_options["cutbuffer"] = ()  # kivy.core.clipboard: every provider "ignored by config"
    if not any(isinstance(f, QuietClipboard) for f in Logger.filters):
        Logger.addFilter(QuietClipboard())


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

    _quiet_clipboard()
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
