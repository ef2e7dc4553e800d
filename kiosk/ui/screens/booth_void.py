"""Void a tampered or damaged ticket (C1) by its code, or a sale rung in error: a manager's, or
a seller's with a manager's approval given here ("Ask a manager": their badge, and PIN if the
house asks)."""

from __future__ import annotations

from functools import partial

from kivy.clock import Clock

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Box, Field, Grid, OutcomeView, Panel, Row, Text, TouchButton
from kiosk.viewmodels import booth, common, void_override
from pos.services import money_path
from pos.services.station import Station


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
        sale.add_widget(Text("Void a sale rung in error", size=t.LARGE, bold=True))
        self.receipt = Field("Receipt", numeric=True, ident="void-receipt", size_hint_x=0.7)
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
        # the receipt and Void sale (a manager signed on), or Ask a manager (a seller): the
        # row then takes the manager's badge (a scan), their PIN if the house asks, Approve
        self.act = Row()
        self.void_button = TouchButton(
            "Void sale",
            on_press=self._void_sale,
            colour=common.ERROR,
            size=t.BODY,
            size_hint_x=0.55,
            ident="void-sale",
        )
        self.ask_button = TouchButton(
            "Ask a manager",
            on_press=self._ask,
            colour=common.INFO,
            size=t.BODY,
            size_hint_x=0.95,
            ident="void-ask",
        )
        self.manager_badge = Field("Badge", ident="void-manager")
        self.pin = Field("PIN", numeric=True, ident="void-manager-pin", size_hint_x=0.6)
        self.pin.password = True
        self.approve = TouchButton(
            "Approve",
            on_press=self._approve,
            colour=common.ERROR,
            size=t.BODY,
            size_hint_x=0.8,
            ident="void-approve",
        )
        self.cancel_ask = TouchButton(
            "Cancel",
            on_press=self._stop_asking,
            colour=common.OFF,
            size=t.BODY,
            size_hint_x=0.7,
            ident="void-ask-cancel",
        )
        self.asking = False
        self.needs_pin = False
        self.approve_attempt = money_path.new_attempt()
        self._lay_ask()
        sale.add_widget(self.act)
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

    def load(self, st: Station) -> bool:
        return void_override.house_asks_pin(st)

    def render(self, vm: bool) -> None:
        self.needs_pin = bool(vm)
        self._lay_ask()

    def on_leave(self, *_: object) -> None:
        self._stop_asking()

    def _lay_ask(self) -> None:
        row = self.act
        row.clear_widgets()
        if not self.asking:
            shown = [self.receipt, self.void_button, self.ask_button]
        else:
            shown = [self.manager_badge, *([self.pin] if self.needs_pin else [])]
            shown += [self.approve, self.cancel_ask]
        for widget in shown:
            row.add_widget(widget)
        # a button laid out while off the screen (another size) keeps its old lines: again
        buttons = [w for w in shown if isinstance(w, TouchButton)]
        Clock.schedule_once(lambda _dt: [b.texture_update() for b in buttons], 0)

    def _ask(self) -> None:
        """The seller asks: the row takes the manager's badge (a scan), and PIN if asked."""
        self.asking = True
        self.manager_badge.text = self.pin.text = ""
        self._lay_ask()
        also = " and enters their PIN" if self.needs_pin else ""
        sale = f"Receipt #{self.receipt.text.strip() or '?'}, {self.reason or 'no reason chosen'}"
        self.show(
            common.Outcome(
                False,
                "Ask a manager",
                f"{sale}. A manager scans their badge here{also}, then taps Approve: the "
                "void is recorded with your name and theirs.",
                common.INFO,
            )
        )

    def _stop_asking(self) -> None:
        self.asking = False
        self.manager_badge.text = self.pin.text = ""
        self._lay_ask()

    def _approve(self) -> None:
        number, reason, seller = self.receipt.text, self.reason, self.operator
        manager, pin, tap = self.manager_badge.text, self.pin.text, self.approve_attempt
        self.front.call(
            lambda st: void_override.void_sale_approved(
                st, number, reason, seller, manager, pin, attempt_id=tap
            ),
            self._approved,
            prints=True,
        )

    def _approved(self, outcome: common.Outcome) -> None:
        self.approve_attempt = money_path.new_attempt()
        self.pin.text = ""
        if outcome.ok:
            self._stop_asking()
        self._done(outcome)

    def on_scan(self, text: str) -> None:
        if self.asking:  # the manager's badge, to approve
            self.manager_badge.text = text.strip()
            return
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
