"""Every screen of every role, in every language and text size it comes in, at 800x480 and
1920x1080: no text clipped or shortened, no target under 48 px, nothing sticking out of its
box. The checks are the screenshots' own (tests/ui/driver.py).

The player's screens (the kiosk) come in English and Spanish, normal and large text: every
screen is walked in all four, reached by touches where a player reaches it. The staff's
screens (booth, manager) come in English at one text size (the switches sit on the kiosk's idle
screen and go back when a player leaves): every one is walked signed on, as its tab shows it.
The states only a longer flow reaches (a result, a basket in the voucher screen) are checked by
those flows' screenshots in the other UI tests, with the same checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.core.window import Window
from kivy.uix.label import Label

from kiosk import i18n
from kiosk.ui import theme as t
from kiosk.ui.capture import save_window
from kiosk.ui.theme import theme
from tests.ui.conftest import SELLER_PIN
from tests.ui.driver import SIZES, Driver

pytestmark = pytest.mark.slow  # Kivy renders every screen

PLAYER = "C-1001"  # the demo hall's player card
COMBINATIONS = [(language, large) for language in i18n.LANGUAGES for large in (False, True)]


def _signed_on(ui: Driver, role: str) -> None:
    if role == "booth-1":
        for key in SELLER_PIN:
            ui.tap(f"key-{key}")
        ui.tap("login")
    elif role == "manager":
        ui.type("login-entry", "M100", enter=True)


def _problems(ui: Driver, shot: str) -> list[str]:
    """What the checks find at both sizes; a screenshot of each goes beside the others."""
    found = []
    for label, size in SIZES.items():
        Window.size = size
        ui.settle()
        ui.frames(2)
        found += [f"{label}: {p}" for p in ui.small_targets() + ui.clipped_text() + ui.outside()]
        save_window(ui.screenshots / f"{shot}-{label}.png")
    Window.size = SIZES["800x480"]
    ui.settle()
    return found


@pytest.fixture
def every_language_back() -> Iterator[None]:
    yield
    i18n.set_language(i18n.DEFAULT)
    theme.text_scale = 1.0


def _check(ui: Driver, cell: str, problems: dict[str, list[str]]) -> None:
    found = _problems(ui, f"every-{cell.replace(' ', '-')}")
    if found:
        problems[cell] = found


def _english_left(ui: Driver) -> list[str]:
    """Texts on a Spanish screen that the catalogue translates but that show in English."""
    spanish = i18n.parse_po((i18n.LOCALE_DIR / "es/LC_MESSAGES/booth.po").read_text("utf-8"))
    english = {text for text, translated in spanish.items() if translated != text}
    shown = [w.text for w in ui.visible() if isinstance(w, Label) and w.text]
    return [f"{text!r} is in English" for text in shown if text in english]


def _english(ui: Driver, language: str, name: str, english: dict[str, list[str]]) -> None:
    if language != i18n.DEFAULT and (left := _english_left(ui)):
        english[name] = left


def _report(problems: dict[str, list[str]]) -> str:
    return "\n".join(f"{cell}: {'; '.join(found)}" for cell, found in problems.items())


@pytest.mark.parametrize("role", ["booth-1", "manager"])
def test_every_staff_screen_fits(role: str, demo_hall: Path, open_front: Any) -> None:
    """Staff screens come in English at normal size only (the kiosk's switches are the
    player's): each is shown as its tab shows it, signed on."""
    ui: Driver = open_front(demo_hall / role)
    _signed_on(ui, role)
    problems: dict[str, list[str]] = {}
    for name in ui.front.screens.screen_names:
        if name == "locked":
            continue
        ui.front.go(name)
        ui.settle()
        assert ui.screen == name
        _check(ui, f"{role} {name}", problems)
    assert not problems, _report(problems)


def _switch(ui: Driver, language: str, large: bool) -> None:
    """As a player does at the idle screen: the language button, then the large-text one."""
    while i18n.language() != language:
        ui.tap("idle-language")
    while (float(theme.text_scale) != 1.0) != large:
        ui.tap("idle-large")


@pytest.mark.parametrize(("language", "large"), COMBINATIONS)
def test_every_kiosk_screen_fits(
    language: str, large: bool, demo_hall: Path, open_front: Any, every_language_back: None
) -> None:
    """Each of the kiosk's screens, reached by touches where a player reaches it (the games by
    the player's card, paying by a game's buy button, the voucher screen by its button)."""
    ui: Driver = open_front(demo_hall / "kiosk-1")
    problems: dict[str, list[str]] = {}
    mode = f"{language}{' large' if large else ''}"
    ui.front.go("idle")
    ui.settle()
    english: dict[str, list[str]] = {}
    _switch(ui, language, large)
    _check(ui, f"kiosk idle {mode}", problems)
    _english(ui, language, "idle", english)
    ui.scan(PLAYER)
    assert ui.screen == "games"
    _check(ui, f"kiosk games {mode}", problems)
    _english(ui, language, "games", english)
    buy = next(i for i in ui.idents() if i.startswith("buy-"))
    ui.tap(buy)
    assert ui.screen == "pay"
    _check(ui, f"kiosk pay {mode}", problems)
    _english(ui, language, "pay", english)
    ui.front.go("games")
    ui.settle()
    ui.tap("go-kiosk-voucher")
    assert ui.screen == "kiosk-voucher"
    _check(ui, f"kiosk kiosk-voucher {mode}", problems)
    _english(ui, language, "kiosk-voucher", english)
    walked = {"idle", "games", "pay", "kiosk-voucher"}
    for name in ui.front.screens.screen_names:
        if name in walked:
            continue
        ui.front.go(name)
        ui.settle()
        assert ui.screen == name
        _check(ui, f"kiosk {name} {mode}", problems)
        if name != "kiosk-manager":  # the staff's screen, in English
            _english(ui, language, name, english)
    assert not english, f"{mode}: {english}"
    assert i18n.language() == language
    assert float(theme.text_scale) == (t.LARGE_TEXT if large else 1.0)
    assert not problems, _report(problems)
