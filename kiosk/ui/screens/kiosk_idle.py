"""The kiosk at rest: the hall's name and rules on a plain screen (no enticing animation), and
how to start: scan a player card or ID. Showing it forgets whoever was here before."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import ListBox, Panel, Row, Text, TouchButton
from kiosk.viewmodels import common
from kiosk.viewmodels import kiosk as vm_kiosk
from pos.services.station import Station


class IdleScreen(RoleScreen):
    screen_name = "idle"

    def build(self) -> None:
        panel = Panel(orientation="vertical")
        self.organisation = Text(size=t.TITLE, bold=True, halign="center", ident="hall-name")
        self.location = Text(size=t.BODY, colour=common.MUTED, halign="center", fit=True)
        self.headline = Text(size=t.TITLE, bold=True, halign="center", ident="idle-headline")
        self.rules = ListBox(ident="rules")
        for widget in (self.organisation, self.location, self.headline, self.rules):
            panel.add_widget(widget)
        self.organisation.size_hint_y = 0.5  # type: ignore[assignment]
        self.headline.size_hint_y = 0.6  # type: ignore[assignment]
        self.body.add_widget(panel)
        row = Row()
        row.add_widget(
            TouchButton(
                "Check a ticket",
                on_press=lambda: self.front.go("check"),
                colour=common.PANEL_HI,
                ident="idle-check",
            )
        )
        self.body.add_widget(row)

    def on_pre_enter(self, *_: object) -> None:
        self.front.forget_player()
        super().on_pre_enter()

    def load(self, st: Station) -> vm_kiosk.IdleVM:
        return vm_kiosk.idle_screen(st)

    def render(self, vm: vm_kiosk.IdleVM) -> None:
        training = " (TRAINING)" if vm.training else ""
        self.organisation.text = vm.organisation + training
        self.location.text = vm.location
        self.headline.text = vm.headline
        self.rules.fill(Text(rule, size=t.BODY, fit=True) for rule in vm.rules)

    def on_scan(self, text: str) -> None:
        code = text.strip()
        self.front.call(lambda st: identify_and_list(st, code), self._identified)

    def _identified(self, answer: tuple[vm_kiosk.Identified, vm_kiosk.GamesVM | None]) -> None:
        result, games = answer
        if result.manager is not None:
            self.front.go("kiosk-manager", vm=result.manager)
        elif result.player is not None:
            self.front.player = result.player
            self.front.go("games", vm=games)
        elif result.refusal is not None:
            self.front.refuse(result.refusal)


def identify_and_list(
    st: Station, code: str
) -> tuple[vm_kiosk.Identified, vm_kiosk.GamesVM | None]:
    """One trip to the worker: who it is and, for a player, the games to show."""
    result = vm_kiosk.identify(st, code)
    games = vm_kiosk.games_screen(st, result.player) if result.player is not None else None
    return result, games
