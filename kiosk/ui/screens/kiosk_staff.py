"""The kiosk's staff screen, reached only by scanning a manager's badge at idle: first the PIN
on the pad when the house signs on with one (the staff stations' rule), then the calls the
kiosk made for staff ("Staff have been called": a bill jam, tickets short from the dispenser,
credit a player left...), each with its time and amount and a Clear button that puts the
clearing on the record with the badge; and the kiosk's close marker. Done (or the idle timeout)
goes back to idle and forgets the badge. Staff screens stay in English."""

from __future__ import annotations

from functools import partial
from typing import Any

from kivy.uix.widget import Widget

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import (
    Box,
    Field,
    ListBox,
    NumberPad,
    OutcomeBanner,
    OutcomeView,
    Panel,
    Row,
    Text,
    TouchButton,
    fixed,
)
from kiosk.viewmodels import common
from kiosk.viewmodels import kiosk as vm_kiosk
from kiosk.viewmodels import kiosk_staff as vm_staff
from pos.services.station import Station

NO_BADGE = "Scan a manager's badge at the idle screen"
DESK_HINT = "Clear each call once it is dealt with. At the end of the session, close the kiosk."


class KioskStaffScreen(RoleScreen):
    """Two faces: the gate (the PIN, or why the badge cannot open the staff screen) and the
    desk (the open calls, Close, Done)."""

    screen_name = "kiosk-manager"

    def build(self) -> None:
        self.badge = ""  # the badge let in (the PIN given when asked): the desk's actions
        self.name_ = ""
        self.pending: tuple[str, str] | None = None  # (badge, name) waiting for its PIN
        self._scanned = ""  # the name of the badge scanned at idle
        self._build_gate()
        self._build_desk()
        self._show_gate(NO_BADGE, pin=False)

    # -- the gate: the PIN, or a refusal -------------------------------------------------------

    def _build_gate(self) -> None:
        self.gate = Box("horizontal")
        left = Panel(orientation="vertical", size_hint_x=0.55)
        self.gate_who = Text(size=t.TITLE, bold=True, fit=True, ident="kiosk-staff-gate-who")
        self.gate_hint = Text(fit=True, ident="kiosk-staff-gate-hint")
        self.pin = Field("PIN", on_enter=lambda _text: self._submit_pin(), ident="kiosk-staff-pin")
        self.pin.password = True
        self.gate_outcome = OutcomeView(
            headline=t.LARGE, shout=t.LARGE, ident="kiosk-staff-gate-outcome"
        )
        for widget in (self.gate_who, self.gate_hint, self.gate_outcome):
            left.add_widget(widget)
        right = Box("vertical", size_hint_x=0.45)
        self.pad = NumberPad(self._key, ident="kiosk-staff-pad")
        self.no_pad = Widget()  # where the pad goes when no PIN is asked for
        self.gate_row = Row()
        self.pin_ok = TouchButton(
            "OK", on_press=self._submit_pin, colour=common.OK, ident="kiosk-staff-pin-ok"
        )
        self.gate_row.add_widget(
            TouchButton(
                "Cancel",
                on_press=lambda: self.front.go("idle"),
                colour=common.PANEL_HI,
                ident="kiosk-staff-cancel",
            )
        )
        right.add_widget(self.no_pad)
        right.add_widget(self.gate_row)
        self.gate_left, self.gate_right = left, right
        self.gate.add_widget(left)
        self.gate.add_widget(right)

    def _show_gate(self, hint: str, *, pin: bool, who: str = "") -> None:
        self.body.clear_widgets()
        self.body.add_widget(self.gate)
        self.gate_who.text = who or "Staff"
        self.gate_hint.text = hint
        self.pin.text = ""
        asked = self.pad.parent is not None
        self.gate_left.size_hint_x, self.gate_right.size_hint_x = (
            (0.55, 0.45) if pin else (0.7, 0.3)
        )
        if pin and not asked:  # the field, the pad and OK: only when a PIN is asked for
            self.gate_left.add_widget(self.pin, index=1)
            self.gate_right.remove_widget(self.no_pad)
            self.gate_right.add_widget(self.pad, index=1)
            self.gate_row.add_widget(self.pin_ok, index=1)
        elif not pin and asked:
            self.gate_left.remove_widget(self.pin)
            self.gate_right.remove_widget(self.pad)
            self.gate_right.add_widget(self.no_pad, index=1)
            self.gate_row.remove_widget(self.pin_ok)
        self.gate_outcome.clear("")

    def _key(self, key: str) -> None:
        if key == "C":
            self.pin.text = ""
        elif key == "DEL":
            self.pin.text = self.pin.text[:-1]
        else:
            self.pin.text += key

    def _submit_pin(self) -> None:
        pending, pin = self.pending, self.pin.text.strip()
        self.pin.text = ""  # never left on screen
        if pending is None or not pin:
            return
        badge, local = pending[0], self.front.runtime.local
        self.front.call(lambda st: vm_staff.enter(st, badge, local, pin=pin), self._entered)

    def _begin(self, badge: str, name: str) -> None:
        """A manager's badge scanned at idle: in at once, or the PIN asked for, or refused."""
        self.forget()
        self._scanned = name
        self._show_gate("Checking the badge...", pin=False, who=f"Staff: {name}")
        local = self.front.runtime.local
        self.front.call(lambda st: vm_staff.enter(st, badge, local), self._entered)

    def _entered(self, entry: vm_staff.StaffEntry) -> None:
        if entry.staff is not None:
            self.pending = None
            self.badge, self.name_ = entry.staff.badge, entry.staff.name
            self.vm = entry.staff
            self._show_desk(entry.staff)
            return
        name = entry.name or self._scanned
        who = f"Staff: {name}" if name else "Staff"
        if entry.needs_pin:
            self.pending = (entry.badge, entry.name)
            self._show_gate("Enter your PIN on the pad, then OK.", pin=True, who=who)
            refusal = entry.refusal
            if refusal is not None:  # a wrong PIN: said, and asked again
                self.gate_outcome.show(
                    common.Outcome(False, refusal.headline, refusal.message, common.ERROR)
                )
            else:
                self.gate_outcome.show(vm_staff.pin_prompt(entry.name))
            return
        self.pending = None
        self._show_gate("This badge cannot open the staff screen here.", pin=False, who=who)
        refusal = entry.refusal
        if refusal is not None:
            self.gate_outcome.show(
                common.Outcome(False, refusal.headline, refusal.message, common.ERROR)
            )

    # -- the desk: the open calls, Close, Done --------------------------------------------------

    def _build_desk(self) -> None:
        self.desk = Box("vertical")
        top = fixed(Box("horizontal"), 40)
        self.who = Text(size=t.TITLE, bold=True, one_line=True, ident="kiosk-manager-who")
        self.state = Text(size=t.BODY, halign="right", one_line=True, ident="kiosk-manager-session")
        top.add_widget(self.who)
        top.add_widget(self.state)
        self.heading = fixed(
            Text(size=t.LARGE, bold=True, one_line=True, ident="kiosk-staff-heading"), 34
        )
        self.calls = ListBox(ident="kiosk-staff-calls")
        self.outcome = fixed(OutcomeBanner(ident="kiosk-close"), 64)  # kiosk-close-headline...
        self.outcome.ident = "kiosk-staff-outcome"  # the panel: "kiosk-close" is the button
        row = Row()
        self.close = TouchButton(
            "Close this kiosk",
            on_press=self._close,
            colour=common.WARN,
            ident="kiosk-close",
        )
        row.add_widget(self.close)
        row.add_widget(
            TouchButton(
                "Done",
                on_press=lambda: self.front.go("idle"),
                colour=common.PANEL_HI,
                ident="kiosk-manager-done",
            )
        )
        for widget in (top, self.heading, self.calls, self.outcome, row):
            self.desk.add_widget(widget)

    def _show_desk(self, vm: vm_staff.StaffVM) -> None:
        if self.desk.parent is None:
            self.body.clear_widgets()
            self.body.add_widget(self.desk)
            self.outcome.clear(DESK_HINT)
        self.who.text = f"Staff: {vm.name}"
        self.state.text = vm.session_text
        self.close.disabled = not vm.session_open
        self.heading.text = vm.calls_text
        if not vm.calls:
            self.calls.fill([Text("Nothing to clear.", colour=common.MUTED, fit=True)])
            return
        self.calls.fill(self._row(call) for call in vm.calls)

    def _row(self, call: vm_staff.CallVM) -> Panel:
        panel = Panel(orientation="horizontal", size_hint_y=None, ident=f"call-{call.ident}")
        words = Box("vertical", size_hint_x=0.72)
        heading = Text(
            call.heading, size=t.BODY, bold=True, fit=True, ident=f"call-{call.ident}-what"
        )
        todo = Text(call.todo, size=t.SMALL, colour=common.MUTED, fit=True)
        words.add_widget(heading)
        words.add_widget(todo)
        clear = TouchButton(
            call.action,
            on_press=partial(self._clear, call),
            colour=common.WARN if call.pay_out else common.OK,
            size=t.BODY,
            ident=f"{'payout' if call.pay_out else 'clear'}-{call.ident}",
        )
        clear.size_hint_x = 0.28
        panel.add_widget(words)
        panel.add_widget(clear)

        def fit(*_: object) -> None:
            text = heading.height + todo.height + theme.px(t.GAP)
            panel.height = max(text, theme.px(t.BUTTON)) + 2 * theme.px(t.GAP)

        heading.bind(height=fit)
        todo.bind(height=fit)
        fit()
        return panel

    def _clear(self, call: vm_staff.CallVM) -> None:
        badge, name = self.badge, self.name_
        if not badge:
            return
        self.front.call(
            lambda st: vm_staff.clear(st, badge, name, call), self._cleared, prints=call.pay_out
        )

    def _cleared(self, answer: tuple[common.Outcome, vm_staff.StaffVM]) -> None:
        outcome, vm = answer
        self.vm = vm
        self._show_desk(vm)
        self.outcome.show(outcome)
        self.front.staff_calls_changed()  # the status bar stops saying "jammed" once cleared

    def _close(self) -> None:
        badge = self.badge
        if not badge:
            return
        self.front.call(lambda st: vm_kiosk.close_kiosk(st, badge), self.show)

    # -- the screen's life ---------------------------------------------------------------------

    def load(self, st: Station) -> vm_staff.StaffVM | None:
        """Shown again (or the ledger changed): the desk reloads for the badge let in."""
        if not self.badge:
            return None
        return vm_staff.staff_screen(st, self.badge, self.name_)

    def render(self, vm: Any) -> None:
        if isinstance(vm, vm_kiosk.KioskManagerVM):  # a manager's badge, scanned at idle
            self._begin(vm.badge, vm.name)
        elif isinstance(vm, vm_staff.StaffVM):
            self._show_desk(vm)
        elif self.pending is None:  # shown without a badge let in: nothing to do here
            self.forget()
            self._show_gate(NO_BADGE, pin=False)

    def on_scan(self, text: str) -> None:
        """Staff work by touch here: a scan (a player's card) does nothing."""

    def forget(self) -> None:
        self.badge, self.name_, self.pending, self._scanned = "", "", None, ""
        self.vm = None
        self.pin.text = ""
        self.outcome.clear(DESK_HINT)

    def show(self, outcome: common.Outcome) -> None:
        if self.desk.parent is not None:
            self.outcome.show(outcome)
        else:
            self.gate_outcome.show(outcome)
