"""One role's front end over one StationRuntime: the root widget (navigation, screens, status
bar), who is logged in, and the path every service call takes (worker -> UI thread)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from kivy.clock import Clock
from kivy.graphics import Color, Rectangle
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from kiosk import i18n, usb
from kiosk.cash import CashDesk
from kiosk.runtime import DeviceState, StationInfo, StationRuntime
from kiosk.ui import theme as t
from kiosk.ui.bridge import UiPoster
from kiosk.ui.roles import IdleWatch, LockWatch, Tab, build_role
from kiosk.ui.start_up import StartUpView
from kiosk.ui.theme import rgba, theme
from kiosk.ui.widgets import KeyboardHost, Row, TouchButton
from kiosk.viewmodels import common, start_up
from kiosk.viewmodels import kiosk_staff as vm_staff
from kiosk.viewmodels.booth import LoginResult
from pos.errors import BoothError
from pos.services import kiosk_cash
from pos.services.station import Station

T = TypeVar("T")
log = logging.getLogger(__name__)


def _kept(left: kiosk_cash.CreditLeft | None) -> None:
    if left is not None:
        log.warning("a player left $%.2f of credit: kept for staff", left.amount / 100)


def _share(label: str) -> float:
    """A tab's share of the bar's width: by its label's length, so that seven or eight tabs
    fit at 800x480 without shortening the longest ("Exceptions")."""
    return len(label) + 4.0


class NavBar(Row):
    def __init__(self, tabs: list[Tab], go: Callable[[str], None], log_out: Callable[[], None]):
        super().__init__()
        self.buttons: dict[str, TouchButton] = {}
        # Eight or more tabs at 800 px: body-size labels, so none is shortened.
        size = t.BODY if len(tabs) > 7 else t.LARGE
        for tab in tabs:
            button = TouchButton(
                tab.label,
                on_press=partial(go, tab.screen),
                colour=common.PANEL_HI,
                ident=f"tab-{tab.screen}",
                size=size,
            )
            button.size_hint_x = _share(tab.label)
            self.buttons[tab.screen] = button
            self.add_widget(button)
        logout = TouchButton(
            "Log out", on_press=log_out, colour=common.OFF, ident="logout", size=size
        )
        logout.size_hint_x = _share("Log out")
        self.add_widget(logout)

    def highlight(self, name: str) -> None:
        for screen, button in self.buttons.items():
            button.set_colour(common.INFO if screen == name else common.PANEL_HI)


class Front:
    """Build with a runtime, `start()` (opens the station), put `root` in a window, `stop()`."""

    def __init__(self, runtime: StationRuntime, *, idle_timeout: float | None = None) -> None:
        self.runtime = runtime
        self.idle_timeout = idle_timeout or runtime.local.idle_timeout
        self.idle_watch: Any = None
        self.lock_watch: LockWatch | None = None
        #: where USB sticks are mounted (tests choose their own folders)
        self.media_roots: Callable[[], list[Path]] = usb.removable_roots
        self.locked_from = ""  # the screen showing when the station locked
        self.poster = UiPoster()
        runtime.post = self.poster.post
        self.operator: LoginResult | None = None
        self.player: Any = None  # the kiosk's identified player, forgotten at idle
        self.bills_jammed = False  # a kiosk's bill jam staff have not cleared: the bar says so
        self._walked_away = False  # back at idle because the player left without Done
        self.root = BoxLayout(orientation="vertical")
        self.background = common.BACKGROUND
        with self.root.canvas.before:
            self._bg_colour = Color(*rgba(common.BACKGROUND))
            self._bg = Rectangle()
        self.root.bind(pos=self._paint, size=self._paint)
        self.screens = ScreenManager(transition=NoTransition())
        # the screens, and over their lower part the on-screen keyboard when a field has focus
        self.stage = FloatLayout()
        self.screens.pos_hint = {"x": 0, "y": 0}  # a FloatLayout places by hint, not by pos
        self.stage.add_widget(self.screens)
        self.nav: NavBar | None = None
        self.role = ""
        self.home = ""
        from kiosk.ui.widgets import OnScreenKeyboard, StatusBar

        self.status = StatusBar()
        self.keyboard = OnScreenKeyboard(self.hide_keyboard)
        KeyboardHost.current = self
        self.starting: StartUpView | None = None  # shown until the station is open
        self.error: BaseException | None = None  # why the station did not open
        self.stopped = False
        self._shown = False  # the role's screens are up
        self._ready: Callable[[StationInfo], None] | None = None
        self._start_failed: Callable[[BaseException], None] | None = None

    def _paint(self, *_: object) -> None:
        self._bg.pos, self._bg.size = self.root.pos, self.root.size

    def set_background(self, colour: str) -> None:
        self.background = colour
        self._bg_colour.rgba = rgba(colour)

    # -- lifetime -----------------------------------------------------------------------------

    def start(
        self,
        *,
        ready: Callable[[StationInfo], None] | None = None,
        failed: Callable[[BaseException], None] | None = None,
    ) -> None:
        """Show the start-up screen and open the station off the UI thread; then the role's
        screens, and `ready(info)` (or `failed(error)`: the station did not open)."""
        self._ready, self._start_failed = ready, failed
        name = start_up.station_name(self.runtime.directory)
        self.starting = StartUpView()
        self.starting.show(start_up.opening(name))
        self.root.add_widget(self.starting)

        def rebuilding(done: int, total: int) -> None:
            if self.starting is not None:
                self.starting.show(start_up.rebuilding(name, done, total))

        self.runtime.start_up_listeners.append(rebuilding)
        self.runtime.start_in_background(self._started, self._not_started)

    @property
    def started(self) -> bool:
        """The station is open and the role's screens show."""
        return self._shown and not self.stopped

    def _not_started(self, error: BaseException) -> None:
        self.error = error
        if self._start_failed is not None:
            self._start_failed(error)
        else:
            log.error("the station did not start", exc_info=error)

    def _started(self, info: StationInfo) -> None:
        if self.stopped:  # closed while it opened
            return
        self.runtime.start_up_listeners.clear()
        try:
            self._show_role(info)
        except BaseException as error:
            self.runtime.stop()
            self._not_started(error)
            return
        if self.starting is not None:
            self.root.remove_widget(self.starting)
            self.starting = None
        self._shown = True
        if self._ready is not None:
            self._ready(info)

    def _show_role(self, info: StationInfo) -> None:
        self.role = info.role
        i18n.set_language(i18n.DEFAULT)  # a kiosk starts in its own language, normal text
        theme.text_scale = 1.0
        tabs, self.home = build_role(self)
        if tabs:
            self.nav = NavBar(tabs, self.go, self.log_out)
        self.root.add_widget(self.stage)
        self.root.add_widget(self.status)
        self.runtime.status_listeners.append(self._show_status)
        self.runtime.change_listeners.append(self._ledger_changed)
        self.runtime.scan_handler = self._scanned
        if self.role == "kiosk":
            self.bills_jammed = self.runtime.worker_call(vm_staff.bills_jammed)
        self._show_status(self.runtime.state)
        self.runtime.worker_call(self.runtime._read_link)  # the first frame says it
        self._link_poll = Clock.schedule_interval(self._poll_status, 5.0)
        if self.role == "kiosk":
            self.idle_watch = IdleWatch(self, self.idle_timeout)
            if self.runtime.acceptor is not None:
                self.runtime.cash = CashDesk(self.runtime, self.runtime.acceptor)
                self.runtime.cash.listeners.append(self._cash_news)
                self.runtime.cash.listeners.append(self._cash_for_staff)
                self.runtime.cash.start()
            else:
                self.runtime.set_bills("Bills: none (vouchers only)", "warn")
        else:
            self.lock_watch = LockWatch(self)
        first = self.screens.get_screen(self.screens.screen_names[0])
        first.vm = self.runtime.worker_call(first.load)  # the first frame shows content
        first.render(first.vm)
        self.go(first.name)

    def _ledger_changed(self) -> None:
        """On the UI thread: a command from the CLI or another process wrote to the station; the
        screen showing reloads its view (a deal received shows without a restart)."""
        screen = self.screens.current_screen
        refresh = getattr(screen, "refresh", None)
        if callable(refresh):
            refresh()
        if self.role == "kiosk":
            self.staff_calls_changed()

    def stop(self) -> None:
        self.stopped = True
        if KeyboardHost.current is self:
            KeyboardHost.current = None
        self.runtime.scan_handler = None
        if self.idle_watch is not None:
            self.idle_watch.cancel()
        if self.lock_watch is not None:
            self.lock_watch.cancel()
        poll = getattr(self, "_link_poll", None)
        if poll is not None:
            poll.cancel()
        self.runtime.stop()

    # -- the on-screen keyboard ---------------------------------------------------------------

    def attach(self, field: Any) -> None:
        """A field got the focus: the keyboard docks above the status bar and types into it."""
        self.keyboard.attach(field)
        if self.keyboard.parent is None:
            self.stage.add_widget(self.keyboard)  # over the screen's lower part

    def hide_keyboard(self) -> None:
        self.keyboard.attach(None)
        if self.keyboard.parent is not None:
            self.stage.remove_widget(self.keyboard)

    # -- navigation and login -----------------------------------------------------------------

    def go(self, name: str, vm: Any = None) -> None:
        """Show screen `name`; with `vm` (computed already), it shows that at once."""
        self.hide_keyboard()
        if vm is not None:
            self.screens.get_screen(name).preload(vm)
        self.screens.current = name
        if self.nav is not None:
            self.nav.highlight(name)

    @property
    def sign_on_roles(self) -> tuple[str, ...]:
        return ("manager",) if self.role == "manager" else ("seller", "redeemer")

    def log_in(self, who: LoginResult) -> None:
        self.operator = who
        if self.lock_watch is not None:
            self.lock_watch.start(who.lock_seconds)
        self._show_nav(True)
        self._show_status(self.runtime.state)
        self.go(self.home)

    def lock(self) -> None:
        """Idle too long: the screen hides behind the lock; who is signed on stays."""
        self.locked_from = str(self.screens.current)
        self._show_nav(False)
        self.go("locked")

    def unlock(self) -> None:
        """The signed-on person's badge, tapped at the lock: back where they were, at once."""
        if self.lock_watch is not None:
            self.lock_watch.activity()
        self._show_nav(True)
        self.go(self.locked_from or self.home)

    def _show_nav(self, shown: bool) -> None:
        if self.nav is None:
            return
        if shown and self.nav.parent is None:
            self.root.add_widget(self.nav, index=len(self.root.children))
        elif not shown and self.nav.parent is not None:
            self.root.remove_widget(self.nav)

    def log_out(self) -> None:
        self.operator = None
        self._show_nav(False)
        self._show_status(self.runtime.state)
        self.go(self.screens.screen_names[0])

    # -- the kiosk's player -------------------------------------------------------------------

    def walked_away(self) -> None:
        """The player left without touching Done (the kiosk timed out, or someone else scanned
        in): back at idle, and credit they left is kept on the record for staff, not printed
        for whoever stands here next."""
        self._walked_away = True
        self.go("idle")

    def forget_player(self) -> None:
        """Back at idle: nothing of the last player stays on screen or in memory; the language
        and text size go back to the kiosk's own. Credit they left prints as a voucher when
        they touched Done (they are here to take it); when they walked away it is kept on the
        record for staff (`kiosk_cash.keep_credit`): nothing prints to an empty kiosk."""
        self.player = None
        walked_away, self._walked_away = self._walked_away, False
        for screen in self.screens.screens:
            if hasattr(screen, "forget"):
                screen.forget()
        if self.runtime.cash is None:
            return
        if walked_away:
            self.call(lambda st: kiosk_cash.keep_credit(st, "the player walked away"), _kept)
        else:
            self.call(lambda st: kiosk_cash.cash_out(st, "the player left"), self._cashed_out)

    def _cashed_out(self, paid: kiosk_cash.PaidOut | None) -> None:
        if paid is None:
            return
        self.runtime.print_queue()
        if "idle" in self.screens.screen_names:
            self.screens.get_screen("idle").cashed_out(paid)

    @property
    def takes_cash(self) -> bool:
        """The kiosk has a bill acceptor (without one it takes vouchers only)."""
        return self.runtime.cash is not None

    def _cash_news(self, news: Any) -> None:
        if self.idle_watch is not None:  # a player feeding bills is not idle
            self.idle_watch.activity()
        if "pay" in self.screens.screen_names:
            self.screens.get_screen("pay").news(news)

    def refuse(self, refusal: Any) -> None:
        self.player = None
        screen = self.screens.get_screen("refusal")
        screen.tell(refusal)
        self.go("refusal")

    def show_result(self, outcome: common.Outcome) -> None:
        self.screens.get_screen("result").show(outcome)
        self.go("result")

    @property
    def badge(self) -> str:
        return self.operator.badge if self.operator else ""

    # -- work ---------------------------------------------------------------------------------

    def call(
        self, fn: Callable[[Station], T], done: Callable[[T], None], *, prints: bool = False
    ) -> None:
        """Run `fn(station)` on the worker; `done(result)` on the UI thread."""
        self.poster.when_done(self.runtime.run(fn, prints=prints), done, self._failed)

    def _failed(self, error: BaseException) -> None:
        screen = self.screens.current_screen
        message = error.message if isinstance(error, BoothError) else f"{type(error).__name__}"
        log.error("a station job failed: %s", message, exc_info=error)
        if hasattr(screen, "failed"):
            screen.failed(message)

    def kick_drawer(self, done: Callable[[str], None]) -> None:
        self.poster.when_done(self.runtime.kick_drawer(), done, self._failed)

    # -- scanner and status -------------------------------------------------------------------

    def _scanned(self, text: str) -> None:
        if self.idle_watch is not None:
            self.idle_watch.activity()
        if self.lock_watch is not None and self.screens.current != "locked":
            self.lock_watch.activity()
        screen = self.screens.current_screen
        if hasattr(screen, "on_scan"):
            screen.on_scan(text)

    def _show_status(self, state: DeviceState) -> None:
        who = self.operator.name if self.operator else None
        if self.role == "kiosk":
            who = "self-service"
            state = vm_staff.status_state(state, self.bills_jammed)
        self.status.show(common.status_bar(state, self.runtime.info, who))

    # -- the kiosk's calls for staff ----------------------------------------------------------

    def _poll_status(self, _dt: float) -> None:
        """Every few seconds: the hall link; at a kiosk, its calls too (a jam a manager cleared
        elsewhere arrives by sync)."""
        self.runtime.poll_link()
        if self.role == "kiosk":
            self.staff_calls_changed()

    def _cash_for_staff(self, news: Any) -> None:
        if news.kind == "jam":  # recorded before the news: staff are called
            self.staff_calls_changed()

    def staff_calls_changed(self) -> None:
        """A call was raised or cleared: the status bar's word on the bills follows the ledger
        ("Bills: jammed" from a jam until staff clear it at the kiosk's staff screen)."""
        self.call(vm_staff.bills_jammed, self._jam_known)

    def _jam_known(self, jammed: bool) -> None:
        if jammed != self.bills_jammed:
            self.bills_jammed = jammed
            self._show_status(self.runtime.state)


__all__ = ["Front", "Tab", "theme"]
