"""Every kiosk player screen fits in every language at every text size, and every game in play
is buyable at 800x480 (a usability walk: a 70-year-old at a self-service kiosk, 800x480 touch
screen). Spanish in large text cut the buy buttons ("Compra... · $1.00"); with two games in play
the second game's buttons hid under the action row, and in large text they were gone.

Each screen is shot (ui.shot) at 800x480 and 1920x1080, which fails on clipped or shortened
text, targets under 48 px and widgets sticking out of their box."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kivy.core.window import Window
from kivy.tests.common import UnitTestTouch

from pos.clock import FixedClock
from pos.services import deals
from pos.services.demo import _flare
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.conftest import NOW
from tests.ui.driver import Driver
from tests.ui.test_kiosk_cash import feed, ledger

pytestmark = pytest.mark.slow  # Kivy renders every screen

LANGUAGES = ("en", "es")
SIZES = ("normal", "large")
MORE_GAMES = (
    _flare("A100011", "pull-tab", "Lucky Sevens", 400, "0.50", [("50.00", 2), ("5.00", 10)]),
    _flare("A100012", "pull-tab", "Big Bucks", 300, "2.00", [("200.00", 1), ("20.00", 8)]),
)


def open_more_games(hall: Path, count: int) -> list[str]:
    """`count` more pull-tab deals received at the manager and opened at kiosk-1 (beside the
    demo's Kiosk Classic and the conftest's Kiosk Seal). Their serials."""
    clock = FixedClock(NOW)
    chosen = MORE_GAMES[:count]
    with Station(hall / "manager", clock=clock) as st:
        for data in chosen:
            deals.receive_deal(st, deals.flare_from_mapping(data), operator="M100")
    with (
        Station(hall / "manager", clock=clock) as manager,
        Station(hall / "kiosk-1", clock=clock) as kiosk,
    ):
        pull(manager.ledger, kiosk.ledger)
        for index, data in enumerate(chosen):
            deals.open_deal(kiosk, data["serial"], bin_name=f"col-{3 + index}", operator="M100")
        pull(kiosk.ledger, manager.ledger)
    return [str(data["serial"]) for data in chosen]


def start(ui: Driver, language: str, size: str) -> None:
    """At the idle screen: the player's language and text size."""
    assert ui.screen == "idle"
    if language == "es":
        ui.tap("idle-language")
    if size == "large":
        ui.tap("idle-large")


def on_screen(ui: Driver, ident: str) -> bool:
    """`ident` is wholly inside the window (at 800x480 while the test runs)."""
    widget = ui.find(ident)
    x, y = widget.to_window(*widget.pos)
    return bool(x >= 0 and y >= 0 and x + widget.width <= Window.width) and bool(
        y + widget.height <= Window.height
    )


def in_list(ui: Driver, ident: str) -> bool:
    """The button `ident` shows whole inside the games list's box (not under the rows around
    it, not scrolled out of it)."""
    games, widget = ui.find("games"), ui.find(ident)
    y = widget.to_window(*widget.pos)[1]
    bottom = games.to_window(*games.pos)[1]
    return bool(bottom - 1 <= y and y + widget.height <= bottom + games.height + 1)


def slide_to(ui: Driver, ident: str) -> int:
    """A finger slides the games list up until `ident` shows whole in it; how many slides."""
    games = ui.find("games")
    for slides in range(12):
        if in_list(ui, ident):
            return slides
        x, y = games.to_window(*games.center)
        finger = UnitTestTouch(x, y)
        finger.touch_down()
        for step in range(1, 5):
            finger.touch_move(x, y + step * games.height / 10)
        finger.touch_up()
        ui.frames(3)
    raise AssertionError(f"{ident} never showed in the games list")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_kiosk_player_screen_fits(
    demo_hall: Path, open_front: Any, language: str, size: str
) -> None:
    name = f"fit-{language}-{size}"
    ui = open_front(demo_hall / "kiosk-1")
    start(ui, language, size)
    ui.shot(f"{name}-idle")
    ui.scan("C-1003")  # under age: the refusal
    assert ui.screen == "refusal"
    ui.shot(f"{name}-refusal")
    ui.tap("refusal-ok")
    start(ui, language, size)
    ui.tap("idle-check")
    ui.type("check-code", "A100003/0005/1000", enter=True)
    ui.shot(f"{name}-check")
    ui.tap("back-done")
    start(ui, language, size)
    ui.scan("C-1001")
    assert ui.screen == "games"
    ui.shot(f"{name}-games")
    ui.tap("go-rent")
    ui.shot(f"{name}-rent")
    ui.tap("back")
    ui.tap("go-kiosk-seal")
    assert "rule " not in ui.text(), "no rule codes for a player"
    ui.shot(f"{name}-seal")
    ui.tap("back")
    ui.tap("go-kiosk-voucher")
    ui.shot(f"{name}-voucher")
    ui.tap("back")
    ui.tap("buy-A100003-10")
    assert ui.screen == "pay"
    ui.shot(f"{name}-pay")
    feed(ui, 500)
    ui.shot(f"{name}-pay-credit")
    feed(ui, 1000)  # $15 in for $10: the sale, and $5.00 credit left
    assert ui.screen == "result"
    ui.shot(f"{name}-result")
    ui.tap("result-done")
    assert ui.screen == "idle"
    ui.shot(f"{name}-idle-voucher")


@pytest.mark.parametrize("more", [0, 1, 2])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_game_in_play_is_buyable(
    demo_hall: Path, open_front: Any, language: str, size: str, more: int
) -> None:
    """Kiosk Classic and the Kiosk Seal are in play (two games); then three, and four. Two
    show whole at 800x480 in normal text; more, or large text, and a line under the list says
    to slide it, and a finger slides it to the last game's buttons."""
    serials = ["A100003", "S300001", *open_more_games(demo_hall, more)]
    ui = open_front(demo_hall / "kiosk-1")
    start(ui, language, size)
    ui.scan("C-1001")
    assert ui.screen == "games"
    ui.shot(f"games-{len(serials)}-{language}-{size}", both=more != 1)
    for action in ("go-kiosk-voucher", "go-rent", "go-kiosk-seal", "go-check", "done"):
        assert on_screen(ui, action), f"{action} is off screen"
    buttons = [f"buy-{serial}-{qty}" for serial in serials for qty in (1, 2, 5, 10)]
    if more == 0 and size == "normal":  # two games: every buy button shows, no sliding
        hidden = [b for b in buttons if not in_list(ui, b)]
        assert not hidden, f"hidden under the rows around the list: {hidden}"
        assert "games-more" not in ui.idents()
    hidden = [b for b in buttons if not in_list(ui, b)]
    if hidden:
        assert ui.find("games-more").text in (
            "More games below: slide the list up",
            "Hay más juegos abajo: deslice la lista hacia arriba",
        )
    last = f"buy-{serials[-1]}-1"
    slide_to(ui, last)
    ui.shot(f"games-{len(serials)}-{language}-{size}-slid", both=False)
    assert "games-more" not in ui.idents(), "at the foot of the list: nothing more below"
    sold_before = ledger(ui, "SELECT count(*) FROM p_sales")[0][0]
    ui.tap(last)
    assert ui.screen == "pay", f"{last} did not open the pay screen"
    feed(ui, 500)  # a $5 bill pays for one ticket of any of them
    assert ui.screen == "result"
    assert ledger(ui, "SELECT count(*) FROM p_sales")[0][0] == sold_before + 1
    sold = ledger(
        ui, "SELECT serial FROM p_sales WHERE station = 'kiosk-1' ORDER BY receipt DESC LIMIT 1"
    )
    assert sold == [(serials[-1],)]
