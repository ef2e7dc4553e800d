"""Exceptions for the manager to decide: double payments, probable counterfeits, devices not
returned, purchases rule D would have refused (late events), near matches to workers."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import ListBox, Text, fixed, item
from kiosk.viewmodels import common, manager
from pos.services.station import Station


class ExceptionsScreen(RoleScreen):
    screen_name = "exceptions"

    def build(self) -> None:
        self.heading = fixed(Text(size=t.LARGE, bold=True, one_line=True), 34)
        self.rows = ListBox(ident="exceptions")
        self.body.add_widget(self.heading)
        self.body.add_widget(self.rows)

    def load(self, st: Station) -> tuple[manager.ExceptionVM, ...]:
        return manager.exceptions_screen(st)

    def render(self, vm: tuple[manager.ExceptionVM, ...]) -> None:
        self.heading.text = (
            "1 exception to decide" if len(vm) == 1 else f"{len(vm)} exceptions to decide"
        )
        if not vm:
            self.rows.fill([Text("Nothing to decide.", colour=common.MUTED, fit=True)])
            return
        self.rows.fill(
            item(
                [
                    (f"{e.label} · {e.subject}", t.BODY, e.colour),
                    (e.detail, t.SMALL, common.TEXT),
                ]
            )
            for e in vm
        )
