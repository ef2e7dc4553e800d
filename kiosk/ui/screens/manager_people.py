"""The roster of the day (and importing one), each worker's PIN set or reset from it, and opening
and closing the session."""

from __future__ import annotations

from functools import partial

from kiosk import usb
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import (
    Field,
    ListBox,
    MediaPicker,
    OutcomeView,
    Row,
    Text,
    TouchButton,
    fixed,
    item,
)
from kiosk.viewmodels import common, manager, session_sync
from kiosk.viewmodels.pin_change import PinDraft
from pos.services.station import Station


class RosterScreen(RoleScreen):
    screen_name = "roster"

    def build(self) -> None:
        self.heading = fixed(Text(size=t.LARGE, bold=True, one_line=True), 34)
        self.rows = ListBox(ident="roster")
        top = Row()
        self.path = Field("Roster CSV to import", ident="roster-path")
        top.add_widget(self.path)
        button = TouchButton("Import", on_press=self._import, colour=common.OK, ident="import")
        button.size_hint_x = 0.3
        top.add_widget(button)
        any_pin = TouchButton(
            "Set a PIN", on_press=lambda: self._pin("", ""), colour=common.INFO, ident="set-pin"
        )
        any_pin.size_hint_x = 0.35
        top.add_widget(any_pin)
        self.outcome = OutcomeView(headline=t.BODY, shout=t.BODY, detail=t.SMALL, ident="roster")
        fixed(self.outcome, 96)
        self.sticks = MediaPicker("roster", self._picked, self._look, ident="usb-roster")
        for widget in (self.heading, self.rows, self.sticks, top, self.outcome):
            self.body.add_widget(widget)
        self.outcome.clear("")

    def on_pre_enter(self, *_: object) -> None:
        self._look()
        super().on_pre_enter()

    def _look(self) -> None:
        self.sticks.show(usb.find("roster", self.front.media_roots()))

    def _picked(self, path: str) -> None:
        self.path.text = path

    def load(self, st: Station) -> manager.RosterVM:
        return manager.roster_screen(st)

    def render(self, vm: manager.RosterVM) -> None:
        self.heading.text = f"Roster for {vm.day}"
        if not vm.shifts:
            self.rows.fill([Text(vm.empty_text, colour=common.MUTED, fit=True)])
            return
        self.rows.fill(self._shift(s) for s in vm.shifts)

    def _shift(self, s: manager.ShiftVM) -> Row:
        """A shift, and the button that sets or resets its worker's PIN."""
        row = Row(height=t.BUTTON + 2 * t.GAP)
        panel = item(
            [
                (f"{s.when}  {s.name} ({s.badge})", t.BODY, common.TEXT),
                (s.duty, t.SMALL, common.MUTED),
            ]
        )
        panel.size_hint_y = 1
        row.add_widget(panel)
        pin = TouchButton(
            "Set PIN",
            on_press=partial(self._pin, s.badge, s.name),
            colour=common.INFO,
            size=t.BODY,
            size_hint_x=0.25,
            ident=f"pin-{s.badge}",
        )
        pin.size_hint_y = 1
        row.add_widget(pin)
        return row

    def _pin(self, badge: str, name: str) -> None:
        """A manager sets or resets a worker's PIN (the new one twice, on the pad)."""
        draft = PinDraft(own=False)
        if badge:
            draft = draft.known(badge, name)
        self.front.screens.get_screen("pin").begin(draft, back_to=self.name)
        self.front.go("pin")

    def _import(self) -> None:
        path, badge = self.path.text, self.operator
        self.front.call(lambda st: manager.import_roster(st, path, badge), self._done)

    def _done(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)


class SessionScreen(RoleScreen):
    screen_name = "session"

    def build(self) -> None:
        self.state = Text(size=t.BIG, bold=True, halign="center", ident="session-state")
        row = Row()
        self.open_button = TouchButton(
            "Open a session", on_press=self._open, colour=common.OK, ident="session-open"
        )
        self.close_button = TouchButton(
            "Close the session", on_press=self._close, colour=common.WARN, ident="session-close"
        )
        row.add_widget(self.open_button)
        row.add_widget(self.close_button)
        # the stations' close markers and events come by sync: now, on the worker
        row.add_widget(
            TouchButton(
                "Sync now",
                on_press=self._sync,
                colour=common.INFO,
                size_hint_x=0.6,
                ident="sync-now",
            )
        )
        self.hint = Text(size=t.BODY, colour=common.MUTED, fit=True, ident="session-hint")
        without = Row()
        self.reason = Field("Why close without them", ident="session-reason")
        self.without_button = TouchButton(
            "Close without them",
            on_press=self._close_without,
            colour=common.ERROR,
            size=t.BODY,
            size_hint_x=0.45,
            ident="session-without",
        )
        without.add_widget(self.reason)
        without.add_widget(self.without_button)
        self.outcome = OutcomeView(headline=t.LARGE, shout=t.LARGE, detail=t.SMALL, ident="session")
        for widget in (self.state, row, self.hint, without, self.outcome):
            self.body.add_widget(widget)
        self.state.size_hint_y = 0.5  # type: ignore[assignment]
        self.outcome.clear("")

    def load(self, st: Station) -> manager.SessionVM:
        return manager.session_screen(st)

    def render(self, vm: manager.SessionVM) -> None:
        self.state.text = vm.text
        self.hint.text = vm.hint
        self.open_button.disabled = vm.is_open
        self.close_button.disabled = not vm.is_open or bool(vm.missing)
        self.without_button.disabled = not vm.missing

    def _open(self) -> None:
        badge = self.operator
        self.front.call(lambda st: manager.open_session(st, badge), self._done)

    def _close(self) -> None:
        badge = self.operator
        self.front.call(lambda st: manager.close_session(st, badge), self._done)

    def _sync(self) -> None:
        self.show(session_sync.SYNCING)
        self.front.call(session_sync.sync_now, self._done)

    def _close_without(self) -> None:
        if self.vm is None:
            return
        missing, reason, badge = self.vm.missing, self.reason.text, self.operator
        self.front.call(lambda st: manager.close_without(st, missing, reason, badge), self._done)

    def _done(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
