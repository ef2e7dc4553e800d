"""A refusal told kindly and clearly: what happened, in plain words (no rule code: the rule is
on the record and on the staff screens). OK goes back to the idle screen (which forgets the
person)."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Panel, Row, Text, TouchButton
from kiosk.viewmodels import common

CALM = "#22384D"  # a calm blue: a refusal here is not an alarm


class RefusalScreen(RoleScreen):
    screen_name = "refusal"

    def build(self) -> None:
        panel = Panel(CALM, orientation="vertical")
        self.headline = Text(size=t.BIG, bold=True, halign="center", ident="refusal-headline")
        self.message = Text(size=t.LARGE, halign="center", ident="refusal-message")
        for widget in (self.headline, self.message):
            panel.add_widget(widget)
        self.body.add_widget(panel)
        row = Row()
        row.add_widget(
            TouchButton("OK", on_press=lambda: self.front.go("idle"), ident="refusal-ok")
        )
        self.body.add_widget(row)

    def tell(self, refusal: common.Refusal) -> None:
        self.headline.text = refusal.headline
        self.message.text = refusal.message
