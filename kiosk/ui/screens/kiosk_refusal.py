"""A refusal told kindly and clearly: what happened, in plain words (no rule code: the rule is
on the record and on the staff screens). OK goes back to the idle screen (which forgets the
person); a refusal that leaves a bingo device to rent offers it: Rent a device now, or Not
now."""

from __future__ import annotations

from kiosk.i18n import _
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
        self.row = Row()
        self.ok = TouchButton("OK", on_press=lambda: self.front.go("idle"), ident="refusal-ok")
        # when the refusal leaves something the person may still do: do it now, or not
        self.rent = TouchButton(
            "Rent a device now", on_press=self._rent, colour=common.OK, ident="refusal-rent"
        )
        self.not_now = TouchButton(
            "Not now",
            on_press=lambda: self.front.go("idle"),
            colour=common.OFF,
            ident="refusal-not-now",
        )
        self.renter: object = None
        self.row.add_widget(self.ok)
        self.body.add_widget(self.row)

    def tell(self, refusal: common.Refusal) -> None:
        self.headline.text = refusal.headline
        self.message.text = refusal.message
        self.renter = None
        self.row.clear_widgets()
        self.row.add_widget(self.ok)

    def offer_rental(self, renter: object) -> None:
        """The person may still rent a bingo device: Rent a device now, or Not now."""
        self.renter = renter
        self.row.clear_widgets()
        self.rent.text, self.not_now.text = _("Rent a device now"), _("Not now")
        self.row.add_widget(self.rent)
        self.row.add_widget(self.not_now)

    def _rent(self) -> None:
        if self.renter is None:
            return
        self.front.player = self.renter  # identified: the rental is theirs
        self.front.go("rent")

    def forget(self) -> None:
        self.tell(common.Refusal("", ""))
