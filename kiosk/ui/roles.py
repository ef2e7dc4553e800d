"""Which screens each role has, their tabs, and the kiosk's idle watch.

The front end (kiosk.ui.front) imports this module; this module names the front end's type only
(under TYPE_CHECKING), so the two never import each other."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock

from kiosk.viewmodels.kiosk import IdleTimer
from pos.domain.signon import LockTimer

if TYPE_CHECKING:
    from kiosk.ui.front import Front


@dataclass(frozen=True)
class Tab:
    screen: str
    label: str


def _booth(front: Front) -> tuple[list[Any], list[Tab], str]:
    from kiosk.ui.screens.booth_bingo import BingoScreen
    from kiosk.ui.screens.booth_close import BoothCloseScreen
    from kiosk.ui.screens.booth_devices import DevicesScreen
    from kiosk.ui.screens.booth_games import GamesScreen
    from kiosk.ui.screens.booth_sell import SellScreen
    from kiosk.ui.screens.booth_void import VoidScreen
    from kiosk.ui.screens.booth_winners import WinnersScreen
    from kiosk.ui.screens.login import LockedScreen, LoginScreen
    from kiosk.ui.screens.pin import PinScreen
    from kiosk.ui.screens.raffle_drawing import RaffleDrawingScreen
    from kiosk.ui.screens.seal import SealScreen

    screens = [
        LoginScreen,
        LockedScreen,
        SellScreen,
        WinnersScreen,
        VoidScreen,
        DevicesScreen,
        SealScreen,
        BingoScreen,
        GamesScreen,
        BoothCloseScreen,
        RaffleDrawingScreen,
        PinScreen,
    ]
    tabs = [
        Tab("sell", "Sell"),
        Tab("winners", "Winners"),
        Tab("void", "Void"),
        Tab("devices", "Devices"),
        Tab("seal", "Seals"),
        Tab("bingo", "Bingo"),
        Tab("session-games", "Games"),
        Tab("close", "Close"),
    ]
    return [s(front) for s in screens], tabs, "sell"


def _manager(front: Front) -> tuple[list[Any], list[Tab], str]:
    from kiosk.ui.screens.login import LockedScreen, ManagerLoginScreen
    from kiosk.ui.screens.manager_books import BooksScreen
    from kiosk.ui.screens.manager_dashboard import DashboardScreen
    from kiosk.ui.screens.manager_deals import DealsScreen
    from kiosk.ui.screens.manager_exceptions import ExceptionsScreen
    from kiosk.ui.screens.manager_people import RosterScreen, SessionScreen
    from kiosk.ui.screens.manager_phone import PhoneScreen
    from kiosk.ui.screens.manager_program import ProgramScreen
    from kiosk.ui.screens.pin import PinScreen
    from kiosk.ui.screens.raffle_drawing import RaffleDrawingScreen

    screens = [
        ManagerLoginScreen,
        LockedScreen,
        DashboardScreen,
        ExceptionsScreen,
        DealsScreen,
        ProgramScreen,
        RosterScreen,
        SessionScreen,
        BooksScreen,
        PhoneScreen,
        RaffleDrawingScreen,
        PinScreen,
    ]
    tabs = [
        Tab("dashboard", "Today"),
        Tab("exceptions", "Exceptions"),
        Tab("deals", "Deals"),
        Tab("program", "Program"),
        Tab("roster", "Roster"),
        Tab("session", "Session"),
        Tab("books", "Books"),
        Tab("phone", "Phones"),
    ]
    return [s(front) for s in screens], tabs, "dashboard"


def _kiosk(front: Front) -> tuple[list[Any], list[Tab], str]:
    from kiosk.ui.screens.kiosk_games import GamesScreen, ResultScreen
    from kiosk.ui.screens.kiosk_idle import IdleScreen
    from kiosk.ui.screens.kiosk_more import (
        CheckScreen,
        KioskSealScreen,
        KioskVoucherScreen,
        RentScreen,
    )
    from kiosk.ui.screens.kiosk_pay import PayScreen
    from kiosk.ui.screens.kiosk_refusal import RefusalScreen
    from kiosk.ui.screens.kiosk_staff import KioskStaffScreen

    screens = [
        IdleScreen,
        RefusalScreen,
        GamesScreen,
        ResultScreen,
        PayScreen,
        KioskVoucherScreen,
        CheckScreen,
        RentScreen,
        KioskSealScreen,
        KioskStaffScreen,
    ]
    return [s(front) for s in screens], [], "games"


ROLES: dict[str, Callable[[Front], tuple[list[Any], list[Tab], str]]] = {
    "booth": _booth,
    "manager": _manager,
    "kiosk": _kiosk,
}


def build_role(front: Front) -> tuple[list[Tab], str]:
    screens, tabs, home = ROLES[front.role](front)
    for screen in screens:
        front.screens.add_widget(screen)
    return tabs, home


class IdleWatch:
    """The kiosk goes back to idle, forgetting its player, after `timeout` s without a touch
    or a scan (the player walked away: credit they left is kept for staff, not printed).
    Checked four times a second on the UI thread."""

    def __init__(self, front: Front, timeout: float, clock: Callable[[], float] = time.monotonic):
        self.front = front
        self.clock = clock
        self.timer = IdleTimer(timeout, clock())
        front.root.bind(on_touch_down=self._touched)
        self._event = Clock.schedule_interval(self._check, 0.25)

    def _touched(self, *_: object) -> None:
        self.timer.touch(self.clock())

    def activity(self) -> None:
        self.timer.touch(self.clock())

    def _check(self, _dt: float) -> None:
        if self.front.screens.current == "idle":
            self.timer.touch(self.clock())
            return
        if self.timer.expired(self.clock()):
            self.front.walked_away()  # their credit is kept for staff: nothing prints

    def cancel(self) -> None:
        self._event.cancel()


class LockWatch:
    """A staff station (booth, manager) locks after the house's idle minutes with someone
    signed on: no touch and no scan for that long. Checked once a second on the UI thread."""

    def __init__(self, front: Front, clock: Callable[[], float] = time.monotonic) -> None:
        self.front = front
        self.clock = clock
        self.timer = LockTimer(None, clock())
        front.root.bind(on_touch_down=self._touched)
        self._event = Clock.schedule_interval(self._check, 1.0)

    def start(self, seconds: float | None) -> None:
        self.timer = LockTimer(seconds, self.clock())

    def _touched(self, *_: object) -> None:
        self.activity()

    def activity(self) -> None:
        self.timer.touch(self.clock())

    def _check(self, _dt: float) -> None:
        if self.front.operator is None or self.front.screens.current in ("login", "locked"):
            self.activity()
            return
        if self.timer.due(self.clock()):
            self.front.lock()

    def cancel(self) -> None:
        self._event.cancel()
