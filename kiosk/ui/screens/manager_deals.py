"""Deals: receive one from its flare file, put it in play in a bin here, close it with its
unsold count (the ledger's count is offered; a different count is refused, C4) and, when
tickets are left, a note of the efforts made to sell them (C4's diligent efforts)."""

from __future__ import annotations

from kiosk import stick_files
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import (
    Field,
    ListBox,
    MediaPicker,
    OutcomeView,
    Panel,
    Row,
    Text,
    TouchButton,
    fixed,
)
from kiosk.viewmodels import common, manager
from pos.services.station import Station


class DealsScreen(RoleScreen):
    screen_name = "deals"

    def build(self) -> None:
        self.sticks = MediaPicker(
            "flare", self._picked, self._look, ident="usb-flare"
        )  # a tap picks a flare on a USB stick, Receive takes it: two taps
        self.body.add_widget(self.sticks)
        top = Row()
        self.flare = Field("Flare file to receive (JSON or TOML)", ident="flare-path")
        top.add_widget(self.flare)
        receive = TouchButton("Receive", on_press=self._receive, colour=common.OK, ident="receive")
        receive.size_hint_x = 0.3
        top.add_widget(receive)
        self.body.add_widget(top)
        self.outcome = OutcomeView(headline=t.BODY, shout=t.BODY, detail=t.SMALL, ident="deal")
        fixed(self.outcome, 96)
        self.body.add_widget(self.outcome)
        self.rows = ListBox(ident="deals")
        self.body.add_widget(self.rows)
        self.outcome.clear("Deals on file here")

    def on_pre_enter(self, *_: object) -> None:
        self._look()
        super().on_pre_enter()

    def _look(self) -> None:
        # a bingo program file on the stick is no deal: only flares are offered (by content)
        self.sticks.show(stick_files.find(stick_files.FLARE, self.front.media_roots()))

    def _picked(self, path: str) -> None:
        self.flare.text = path

    def load(self, st: Station) -> tuple[manager.DealRowVM, ...]:
        return manager.deals_screen(st)

    def render(self, vm: tuple[manager.DealRowVM, ...]) -> None:
        self.rows.fill(self._row(deal) for deal in vm)

    def _row(self, deal: manager.DealRowVM) -> Panel:
        panel = Panel(orientation="vertical", size_hint_y=None)
        text = Text(
            f"{deal.serial} {deal.name} · {deal.state} · {deal.where} · {deal.sold_text}",
            size=t.BODY,
            fit=True,
        )
        panel.add_widget(text)
        actions = Row()
        if deal.can_open:
            where = Field("Bin (e.g. drawer-4)", ident=f"bin-{deal.serial}")
            actions.add_widget(where)
            actions.add_widget(
                TouchButton(
                    "Open in bin",
                    on_press=lambda: self._open(deal.serial, where.text),
                    ident=f"open-{deal.serial}",
                )
            )
        if deal.can_close:
            note = Field("Efforts to sell it (C4)", ident=f"note-{deal.serial}")
            if deal.left:
                actions.add_widget(note)
            close = TouchButton(
                f"Close ({deal.left} unsold)",
                colour=common.WARN,
                size=t.BODY,
                ident=f"close-{deal.serial}",
            )
            close.bind(
                on_release=lambda button: self._close(button, deal.serial, deal.left, note.text)
            )
            actions.add_widget(close)
        if actions.children:
            panel.add_widget(actions)

        def fit(*_: object) -> None:
            panel.height = (
                text.height + (actions.height if actions.parent else 0) + theme.px(t.GAP) * 3
            )

        text.bind(height=fit)
        actions.bind(height=fit)
        fit()
        return panel

    def _receive(self) -> None:
        path, badge = self.flare.text, self.operator
        self.front.call(lambda st: manager.receive_deal(st, path, badge), self._done)

    def _open(self, serial: str, bin_name: str) -> None:
        badge = self.operator
        self.front.call(lambda st: manager.open_deal(st, serial, bin_name, badge), self._done)

    def _close(self, button: TouchButton, serial: str, unsold: int, note: str) -> None:
        """Closing is final: the first tap asks, the second closes. Unfinished, it records the
        manager's note of the efforts made to sell it (C4)."""
        if not getattr(button, "armed", False):
            button.armed = True
            button.text = f"Tap again to close {serial}"
            button.set_colour(common.ERROR)
            return
        badge = self.operator
        self.front.call(
            lambda st: manager.close_deal(st, serial, str(unsold), badge, note=note), self._done
        )

    def _done(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
