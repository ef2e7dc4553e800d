"""Scan a winner: the amount and PUNCH NOW in large type, or the refusal with its reason and
rule. A scan anywhere on this screen redeems; the code can also be typed."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Field, OutcomeView, Row, TouchButton
from kiosk.viewmodels import booth, common


class WinnersScreen(RoleScreen):
    screen_name = "winners"

    def build(self) -> None:
        self.outcome = OutcomeView(headline=t.BIG, shout=t.HUGE, detail=t.LARGE, ident="winner")
        self.body.add_widget(self.outcome)
        row = Row()
        self.code = Field("Scan the ticket, or type its code", on_enter=self.redeem, ident="code")
        row.add_widget(self.code)
        pay = TouchButton("Check & pay", on_press=self._typed, colour=common.OK, ident="pay")
        pay.size_hint_x = 0.35
        row.add_widget(pay)
        self.body.add_widget(row)
        self.outcome.clear("Scan a winning ticket")

    def on_scan(self, text: str) -> None:
        self.redeem(text)

    def _typed(self) -> None:
        self.redeem(self.code.text)

    def redeem(self, code: str) -> None:
        code, badge = code.strip(), self.operator
        if not code:
            return
        self.code.text = ""
        self.front.call(lambda st: booth.redeem(st, code, badge), self.show, prints=True)

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
