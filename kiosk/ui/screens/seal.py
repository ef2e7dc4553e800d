"""A seal card deal's sign-up sheet: tap a hold ticket, then a free line, to sign it; open the
seal when the deal is sold out (booth). The kiosk shows the same sheet: its identified player
picks their hold ticket and a free line, and signs it themselves."""

from __future__ import annotations

from functools import partial

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Box, Field, Grid, OutcomeView, Panel, Row, Text, TouchButton, fixed
from kiosk.viewmodels import booth, common
from pos.services.station import Station


class SealScreen(RoleScreen):
    screen_name = "seal"
    for_player = False  # the kiosk: the identified player signs; no opening the seal

    def build(self) -> None:
        self.ticket: str | None = None
        self.header = Text(size=t.LARGE, bold=True, one_line=True, size_hint_y=None)
        self.detail = Text(size=t.SMALL, colour=common.MUTED, one_line=True, size_hint_y=None)
        fixed(self.header, 30)
        fixed(self.detail, 22)
        self.body.add_widget(self.header)
        self.body.add_widget(self.detail)
        columns = Box("horizontal")
        left = Box("vertical", size_hint_x=0.55)
        self.grid = Grid(cols=6, gap=3)
        left.add_widget(self.grid)
        right = Panel(orientation="vertical", size_hint_x=0.45)
        self.tickets = Row()
        right.add_widget(self.tickets)
        self.player = Field("Player card or ID (optional)", ident="seal-player")
        if not self.for_player:
            right.add_widget(self.player)
            opening = Row()
            self.line = Field("Winning line", numeric=True, ident="seal-line")
            opening.add_widget(self.line)
            opening.add_widget(
                TouchButton("Open seal", on_press=self._open, colour=common.WARN, ident="seal-open")
            )
            left.add_widget(opening)
        self.outcome = OutcomeView(
            headline=t.BODY, shout=t.BODY, detail=t.SMALL, ident="seal", cite=not self.for_player
        )
        right.add_widget(self.outcome)
        columns.add_widget(left)
        columns.add_widget(right)
        self.body.add_widget(columns)
        self.extra()

    def extra(self) -> None:
        """Room for the kiosk's Back row."""

    def load(self, st: Station) -> booth.SealVM | None:
        return booth.seal_screen(st)

    def render(self, vm: booth.SealVM | None) -> None:
        self.grid.clear_widgets()
        self.tickets.clear_widgets()
        if vm is None:
            self.header.text = "No seal card deal is in play here"
            self.detail.text = ""
            self.outcome.clear("")
            return
        self.header.text = vm.title
        self.detail.text = f"{vm.detail} · {vm.open_hint}"
        if self.ticket not in vm.free_tickets:
            self.ticket = vm.free_tickets[0] if vm.free_tickets else None
        for ticket in vm.free_tickets:
            self.tickets.add_widget(
                TouchButton(
                    f"Ticket {ticket}",
                    on_press=partial(self._pick, ticket),
                    colour=common.INFO if ticket == self.ticket else common.PANEL_HI,
                    size=t.BODY,
                    ident=f"hold-{ticket}",
                )
            )
        if not vm.free_tickets:
            self.tickets.add_widget(Text("Every hold ticket has signed", size=t.BODY))
        for line in vm.lines:
            colour = common.OK if line.winner else (common.OFF if line.signed else common.PANEL_HI)
            self.grid.add_widget(
                TouchButton(
                    line.text,
                    on_press=partial(self._sign, line.line),
                    colour=colour,
                    size=t.SMALL if line.signed else t.BODY,
                    size_hint_y=1,
                    disabled=line.signed or vm.opened,
                    ident=f"line-{line.line}",
                )
            )
        if self.outcome.headline.text == "":
            self.outcome.clear("Tap a hold ticket, then a free line")

    def _pick(self, ticket: str) -> None:
        self.ticket = ticket
        self._render_trigger()

    def _signer(self) -> tuple[str | None, str | None]:
        """(player, operator) for the service."""
        return (self.player.text.strip() or None, self.operator or None)

    def _sign(self, line: int) -> None:
        if self.vm is None or self.ticket is None:
            return
        serial, ticket = self.vm.serial, self.ticket
        player, badge = self._signer()
        self.front.call(
            lambda st: booth.sign_line(st, serial, ticket, line, player, badge), self._done
        )

    def _open(self) -> None:
        if self.vm is None:
            return
        serial, line, badge = self.vm.serial, self.line.text, self.operator
        self.front.call(lambda st: booth.open_seal(st, serial, line, badge), self._done)

    def _done(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)

    def on_scan(self, text: str) -> None:
        self.player.text = text.strip()
