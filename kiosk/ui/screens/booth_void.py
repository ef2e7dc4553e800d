"""Void a tampered or damaged ticket (C1) by its code, or a sale rung in error (managers)."""

from __future__ import annotations

from functools import partial

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Box, Field, Grid, OutcomeView, Panel, Row, Text, TouchButton
from kiosk.viewmodels import booth, common


class VoidScreen(RoleScreen):
    screen_name = "void"

    def build(self) -> None:
        columns = Box("horizontal")
        ticket = Panel(orientation="vertical")
        ticket.add_widget(Text("Void a ticket: it never pays", size=t.LARGE, bold=True))
        self.code = Field("Scan or type the ticket code", ident="void-code")
        ticket.add_widget(self.code)
        reasons = Row()
        for reason in booth.VOID_REASONS:
            reasons.add_widget(
                TouchButton(
                    reason.capitalize(),
                    on_press=partial(self._void_ticket, reason),
                    colour=common.ERROR,
                    size=t.BODY,
                    ident=f"void-{reason}",
                )
            )
        ticket.add_widget(reasons)
        sale = Panel(orientation="vertical")
        sale.add_widget(Text("Void a sale rung in error (manager)", size=t.LARGE, bold=True))
        self.receipt = Field("Receipt number", numeric=True, ident="void-receipt")
        # why: a choice, not typing (touch only)
        self.reason = ""
        self.reasons: dict[str, TouchButton] = {}
        choices = Grid(cols=2, size_hint_y=None)
        for why in booth.VOID_SALE_REASONS:
            button = TouchButton(
                why.capitalize(),
                on_press=partial(self._choose_reason, why),
                colour=common.PANEL_HI,
                size=t.SMALL,
                height=t.MIN_TARGET,
                ident=f"void-why-{why.replace(' ', '-')}",
            )
            self.reasons[why] = button
            choices.add_widget(button)
        choices.bind(minimum_height=choices.setter("height"))
        sale.add_widget(choices)
        act = Row()
        act.add_widget(self.receipt)
        act.add_widget(
            TouchButton(
                "Void sale",
                on_press=self._void_sale,
                colour=common.ERROR,
                size_hint_x=0.6,
                ident="void-sale",
            )
        )
        sale.add_widget(act)
        columns.add_widget(ticket)
        columns.add_widget(sale)
        self.body.add_widget(columns)
        self.outcome = OutcomeView(headline=t.LARGE, shout=t.LARGE, ident="void")
        self.outcome.size_hint_y = 0.45
        self.body.add_widget(self.outcome)

    def _choose_reason(self, why: str) -> None:
        self.reason = why
        for name, button in self.reasons.items():
            button.set_colour(common.INFO if name == why else common.PANEL_HI)

    def on_scan(self, text: str) -> None:
        self.code.text = text.strip()

    def _void_ticket(self, reason: str) -> None:
        code, badge = self.code.text.strip(), self.operator
        self.front.call(
            lambda st: booth.void_ticket(st, code, reason, badge), self._done, prints=True
        )

    def _void_sale(self) -> None:
        number, reason, badge = self.receipt.text, self.reason, self.operator
        self.front.call(
            lambda st: booth.void_sale(st, number, reason, badge), self._done, prints=True
        )

    def _done(self, outcome: common.Outcome) -> None:
        if outcome.ok:
            self.code.text = self.receipt.text = ""
            self._choose_reason("")
        self.show(outcome)

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
