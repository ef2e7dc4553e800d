"""The kiosk's other screens: check a ticket (no ID needed), rent a device, sign a seal line."""

from __future__ import annotations

from functools import partial

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.screens.kiosk_games import back_row
from kiosk.ui.screens.seal import SealScreen
from kiosk.ui.widgets import ListBox, OutcomeView, Text, TouchButton
from kiosk.viewmodels import booth, common
from kiosk.viewmodels import kiosk as vm_kiosk
from pos.services.station import Station


class CheckScreen(RoleScreen):
    screen_name = "check"

    def build(self) -> None:
        self.outcome = OutcomeView(headline=t.BIG, shout=t.BIG, detail=t.LARGE, ident="check")
        self.body.add_widget(self.outcome)
        self.body.add_widget(back_row(self))

    def on_pre_enter(self, *_: object) -> None:
        self.outcome.clear("Scan your ticket to check it")

    def on_scan(self, text: str) -> None:
        code = text.strip()
        self.front.call(lambda st: vm_kiosk.check(st, code), self.show)

    def forget(self) -> None:
        self.outcome.clear("")

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)


class RentScreen(RoleScreen):
    screen_name = "rent"

    def build(self) -> None:
        self.free = Text(size=t.TITLE, bold=True, one_line=True, size_hint_y=0.2)
        self.packages = ListBox(ident="kiosk-packages")
        self.body.add_widget(self.free)
        self.body.add_widget(self.packages)
        self.body.add_widget(back_row(self))

    def load(self, st: Station) -> booth.DevicesVM:
        return booth.devices_screen(st)

    def render(self, vm: booth.DevicesVM) -> None:
        self.free.text = f"Bingo devices: {vm.free_text}"
        buttons: list[object] = [
            TouchButton(
                f"Rent {p.text}",
                on_press=partial(self._rent, p),
                colour=common.OK,
                size=t.BODY,
                ident=f"kiosk-rent-{p.name}",
            )
            for p in vm.packages
        ]
        if not buttons:
            buttons = [Text("No devices to rent here today: ask at the booth.", fit=True)]
        self.packages.fill(buttons)

    def _rent(self, package: booth.PackageVM) -> None:
        player = self.front.player
        if player is None:
            return
        self.front.call(
            lambda st: booth.rent(st, package, player.code, None),
            self.front.show_result,
            prints=True,
        )


class KioskSealScreen(SealScreen):
    screen_name = "kiosk-seal"
    for_player = True

    def extra(self) -> None:
        self.body.add_widget(back_row(self))

    def _sign(self, line: int) -> None:
        player = self.front.player
        if self.vm is None or self.ticket is None or player is None:
            return
        serial, ticket = self.vm.serial, self.ticket
        self.front.call(lambda st: vm_kiosk.sign_line(st, player, serial, ticket, line), self._done)

    def on_scan(self, text: str) -> None:
        pass
