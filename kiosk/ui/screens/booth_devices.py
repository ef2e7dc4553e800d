"""Electronic bingo devices at the booth: rent (first come, first served; the outcome says which
device and where it is collected, the hall's "device-pickup" place), take back, exchange a
defective one with a disinterested witness (E.2)."""

from __future__ import annotations

from functools import partial

from kivy.uix.togglebutton import ToggleButton

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import rgba, theme
from kiosk.ui.widgets import Box, Field, ListBox, OutcomeView, Panel, Row, Text, TouchButton, fixed
from kiosk.viewmodels import booth, common
from pos.services.station import Station


class DevicesScreen(RoleScreen):
    screen_name = "devices"

    def build(self) -> None:
        columns = Box("horizontal")
        rent = Panel(orientation="vertical", size_hint_x=0.5)
        self.free = Text(size=t.LARGE, bold=True, size_hint_y=None, one_line=True)
        fixed(self.free, 32)
        self.player = Field("Player card or ID (optional)", ident="rent-buyer")
        self.collect = Text(size=t.SMALL, colour=common.MUTED, fit=True, ident="collect-at")
        self.packages = ListBox(ident="packages")
        for widget in (self.free, self.player, self.collect, self.packages):
            rent.add_widget(widget)
        other = Panel(orientation="vertical", size_hint_x=0.5)
        self.device = Field("Device (e.g. D-03)", ident="device")
        back = Row()
        back.add_widget(self.device)
        back.add_widget(
            TouchButton(
                "Take back",
                on_press=self._return,
                colour=common.INFO,
                size_hint_x=0.6,
                ident="return",
            )
        )
        self.witness = Field("Witness: scan a player card or ID", ident="witness")
        self.keyed = ToggleButton(
            text="No numbers keyed in",
            size_hint_y=None,
            background_normal="",
            background_color=rgba(common.PANEL_HI),
        )
        self.keyed.bind(state=self._toggle_colour)
        self.keyed.ident = "no-numbers-keyed"
        exchange = TouchButton(
            "Exchange", on_press=self._exchange, colour=common.WARN, ident="exchange"
        )
        for widget in (back, self.witness, self.keyed, exchange):
            other.add_widget(widget)
        fixed(self.keyed, t.BUTTON)
        theme.bind(scale=self._rescale)
        self._rescale()
        columns.add_widget(rent)
        columns.add_widget(other)
        self.body.add_widget(columns)
        self.outcome = OutcomeView(
            headline=t.LARGE, shout=t.LARGE, detail=t.SMALL, ident="device-outcome"
        )
        fixed(self.outcome, 118)  # which device, where to collect it, what it cost
        self.body.add_widget(self.outcome)

    def _rescale(self, *_: object) -> None:
        self.keyed.font_size = theme.px(t.BODY)

    def _toggle_colour(self, *_: object) -> None:
        on = self.keyed.state == "down"
        self.keyed.background_color = rgba(common.OK if on else common.PANEL_HI)
        self.keyed.text = "No numbers keyed in: confirmed" if on else "No numbers keyed in"

    def on_scan(self, text: str) -> None:
        """A card or ID scanned: the witness while an exchange is under way (a device is
        entered), else the player renting."""
        target = self.witness if self.device.text.strip() else self.player
        target.text = text.strip()

    def load(self, st: Station) -> booth.DevicesVM:
        return booth.devices_screen(st)

    def render(self, vm: booth.DevicesVM) -> None:
        self.free.text = vm.free_text
        self.collect.text = f"Rented devices are collected {vm.collect_at}"
        buttons = [
            TouchButton(
                f"Rent {p.text}",
                on_press=partial(self._rent, p),
                colour=common.OK,
                size=t.BODY,
                ident=f"rent-{p.name}",
            )
            for p in vm.packages
        ]
        if not buttons:
            buttons = [Text("No rental packages: a manager defines them", fit=True)]
        self.packages.fill(buttons)

    def _rent(self, package: booth.PackageVM) -> None:
        buyer, badge = self.player.text.strip(), self.operator
        self.front.call(lambda st: booth.rent(st, package, buyer, badge), self._done, prints=True)

    def _return(self) -> None:
        device, badge = self.device.text.strip(), self.operator
        self.front.call(lambda st: booth.return_device(st, device, badge), self._done)

    def _exchange(self) -> None:
        device, witness = self.device.text.strip(), self.witness.text
        confirmed, badge = self.keyed.state == "down", self.operator
        self.front.call(
            lambda st: booth.exchange_device(st, device, witness, confirmed, badge), self._done
        )

    def _done(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        if outcome.ok:
            self.player.text = ""
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
