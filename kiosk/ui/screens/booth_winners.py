"""Scan a winner: the amount and PUNCH NOW in large type, or the refusal with its reason and
rule. A scan anywhere on this screen redeems; the code can also be typed. Once punched, the
redeemer taps Punched (or scans the ticket again) and the punch is recorded (C2). A voucher
pays here too: its QR scanned, or the short code printed under it typed."""

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
        self.code = Field(
            "Scan the ticket or voucher, or type its code", on_enter=self.redeem, ident="code"
        )
        row.add_widget(self.code)
        pay = TouchButton("Check & pay", on_press=self._typed, colour=common.OK, ident="pay")
        pay.size_hint_x = 0.35
        row.add_widget(pay)
        punched = TouchButton(
            "Punched", on_press=self._punched, colour=common.INFO, ident="punched"
        )
        punched.size_hint_x = 0.25
        row.add_widget(punched)
        self.body.add_widget(row)
        self.last_code = ""  # the winner last paid: the Punched tap confirms its punch (C2)
        self.outcome.clear("Scan a winning ticket or a voucher")

    def on_scan(self, text: str) -> None:
        self.redeem(text)

    def _typed(self) -> None:
        self.redeem(self.code.text)

    def redeem(self, code: str) -> None:
        """A scan or the typed code: a player card or badge says what it is; a typo or an
        unreadable scan is amber and the code stays in the field to correct."""
        code, badge = code.strip(), self.operator
        if not code:
            return
        self.code.text = ""
        self.front.call(lambda st: booth.winner_scan(st, code, badge), self.show, prints=True)

    def ask(self, code: str) -> None:
        """A ticket scanned at Sell: asked here before anything is paid."""
        self.code.text = code
        self.outcome.show(
            common.Outcome(
                False,
                "Pay this winner?",
                f"Ticket {code} was scanned at Sell. Tap Check & pay to pay it.",
                common.INFO,
            )
        )

    def _punched(self) -> None:
        code, badge = self.last_code, self.operator
        if not code:
            return
        self.front.call(lambda st: booth.confirm_punch(st, code, badge), self.show)

    def show(self, outcome: common.Outcome) -> None:
        paid = outcome.get("code")
        self.last_code = str(paid) if paid else ""
        kept = outcome.get("keep")
        if kept:  # amber: the code stays for correction
            self.code.text = str(kept)
        self.outcome.show(outcome)
