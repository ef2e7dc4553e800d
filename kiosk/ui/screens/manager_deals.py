"""Deals: receive one from its flare file, put it in play in a bin here, close it with its
unsold count (the ledger's count is offered; a different count is refused, C4) and, when
tickets are left, a note of the efforts made to sell them (C4's diligent efforts).

The deals come first: tap one to choose it, and its one action (Open in bin, or Close, which
asks for a second tap: closing is for good) shows under the list."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from kivy.input.motionevent import MotionEvent

from kiosk import stick_files
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.screens.booth_bingo import Card
from kiosk.ui.two_tap import TwoTaps, window_pos
from kiosk.ui.widgets import (
    Field,
    ListBox,
    MediaPicker,
    OutcomeBanner,
    Row,
    Text,
    TouchButton,
    fixed,
)
from kiosk.viewmodels import common, manager
from pos.services.station import Station

HINT = "Tap a deal to put it in a bin or close it"


class DealsScreen(RoleScreen):
    screen_name = "deals"

    def build(self) -> None:
        self.chosen: str | None = None  # the deal tapped: its action shows under the list
        self.kept: dict[str, str] = {}  # what was typed in the action's fields, by field
        self.taps = TwoTaps()  # Close: the first tap asks, the second closes
        self.taps.listeners.append(self._armed)
        self.sticks = MediaPicker(
            "flare", self._picked, self._look, ident="usb-flare"
        )  # a tap picks a flare on a USB stick, Receive takes it: two taps
        self.body.add_widget(self.sticks)
        self.outcome = OutcomeBanner(ident="deal")
        fixed(self.outcome, 56)
        self.body.add_widget(self.outcome)
        self.rows = ListBox(ident="deals")
        self.body.add_widget(self.rows)
        # under the list: Receive while no deal is chosen, else the chosen deal's action
        self.actions = Row()
        self.body.add_widget(self.actions)
        self.flare = Field("Flare file to receive (JSON or TOML)", ident="flare-path")
        self.receive = TouchButton(
            "Receive", on_press=self._receive, colour=common.OK, ident="receive"
        )
        self.receive.size_hint_x = 0.3
        self.outcome.clear(HINT)

    def on_pre_enter(self, *_: object) -> None:
        self._look()
        super().on_pre_enter()

    def on_leave(self, *_: object) -> None:
        self.taps.cancel(quiet=True)

    def on_touch_down(self, touch: MotionEvent) -> bool:
        self.taps.touched(window_pos(self, touch))
        return bool(super().on_touch_down(touch))

    def _look(self) -> None:
        # a bingo program file on the stick is no deal: only flares are offered (by content)
        self.sticks.show(stick_files.find(stick_files.FLARE, self.front.media_roots()))

    def _picked(self, path: str) -> None:
        self.flare.text = path

    def load(self, st: Station) -> tuple[manager.DealRowVM, ...]:
        return manager.deals_screen(st)

    def render(self, vm: tuple[manager.DealRowVM, ...]) -> None:
        if self.chosen not in {deal.serial for deal in vm}:
            self.chosen = None
        self.rows.fill(
            [
                Card(
                    [
                        (
                            f"{deal.serial} {deal.name} · {deal.state} · {deal.where} · "
                            f"{deal.sold_text}",
                            t.BODY,
                            deal.serial == self.chosen,
                        )
                    ],
                    f"deal-{deal.serial}",
                    common.INFO if deal.serial == self.chosen else common.PANEL_HI,
                    partial(self._choose, deal.serial),
                )
                for deal in vm
            ]
            or [Text("No deals on file: receive one from its flare", fit=True)]
        )
        self._show_actions(next((d for d in vm if d.serial == self.chosen), None))

    def _choose(self, serial: str | None) -> None:
        """A deal tapped: chosen (tapped again, or Done: none, and Receive is back)."""
        if serial != self.chosen:
            self.kept = {}
        self.chosen = serial if serial != self.chosen else None
        self._render_trigger()

    def _field(self, hint: str, ident: str) -> Field:
        field = Field(hint, ident=ident)
        field.text = self.kept.get(ident, "")
        field.bind(text=lambda _field, text: self.kept.__setitem__(ident, text))
        return field

    def _show_actions(self, deal: manager.DealRowVM | None) -> None:
        """The chosen deal's one action: Open in bin, or Close (with the note of the efforts
        made to sell what is left); a hint while none is chosen."""
        self.taps.cancel(quiet=True)
        self.actions.clear_widgets()
        if deal is None:
            self.actions.add_widget(self.flare)
            self.actions.add_widget(self.receive)
            return
        if deal.can_open:
            where = self._field("Bin (e.g. drawer-4)", f"bin-{deal.serial}")
            self.actions.add_widget(where)
            self.actions.add_widget(
                TouchButton(
                    f"Open {deal.serial} in bin",
                    on_press=lambda: self._open(deal.serial, where.text),
                    size=t.BODY,
                    ident=f"open-{deal.serial}",
                )
            )
        elif deal.can_close:
            note = self._field("Efforts to sell what is left", f"note-{deal.serial}")
            if deal.left:
                self.actions.add_widget(note)
            close = TouchButton(
                f"Close {deal.serial} ({deal.left} unsold)",
                colour=common.OFF,  # a secondary action: the deals come first
                size=t.BODY,
                ident=f"close-{deal.serial}",
            )
            close.bind(on_release=lambda button: self._close(button, deal, note.text))
            self.actions.add_widget(close)
        else:
            self.actions.add_widget(
                Text(f"{deal.serial} is {deal.state}: nothing to do", size=t.SMALL)
            )
        done = TouchButton(
            "Done",
            on_press=lambda: self._choose(deal.serial),
            colour=common.PANEL_HI,
            size=t.BODY,
            ident="deal-done",
        )
        done.size_hint_x = 0.3
        self.actions.add_widget(done)

    def _receive(self) -> None:
        path, badge = self.flare.text, self.operator
        self.front.call(lambda st: manager.receive_deal(st, path, badge), self._done)

    def _open(self, serial: str, bin_name: str) -> None:
        badge = self.operator
        self.front.call(lambda st: manager.open_deal(st, serial, bin_name, badge), self._done)

    def _close(self, button: TouchButton, deal: manager.DealRowVM, note: str) -> None:
        """Closing is final: the first tap asks, the second closes. Unfinished, it records the
        manager's note of the efforts made to sell it (C4)."""
        if not self.taps.confirmed(button, deal.serial, f"Tap again to close {deal.serial}"):
            return
        serial, unsold, badge = deal.serial, deal.left, self.operator
        self.front.call(
            lambda st: manager.close_deal(st, serial, str(unsold), badge, note=note), self._done
        )

    def _done(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        if outcome.ok and outcome.headline.startswith("CLOSED"):
            self.chosen = None  # closed for good: nothing more to do with it
        self.refresh()

    def _armed(self, armed: bool) -> None:
        if armed:
            self.outcome.clear("Closing is for good: tap again to close it")
        else:
            self.outcome.clear("Not closed")

    def show(self, outcome: common.Outcome) -> None:
        """The outcome and its plain reason (the rule's citation stays with the refusal)."""
        self.outcome.show(replace(outcome, refusal=None))
