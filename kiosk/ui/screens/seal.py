"""A seal card deal's sign-up sheet: scan the winning hold ticket (checked against the seal's
hold tickets), then tap a free line and tap it again to sign it (a signed line is for good);
open the seal when the deal is sold out (booth). The kiosk shows the same sheet: its identified
player scans their hold ticket and signs a free line themselves."""

from __future__ import annotations

from functools import partial

from kivy.input.motionevent import MotionEvent

from kiosk.i18n import _
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.two_tap import TwoTaps, window_pos
from kiosk.ui.widgets import Box, Field, Grid, OutcomeView, Panel, Row, Text, TouchButton, fixed
from kiosk.viewmodels import booth, common
from kiosk.viewmodels.hold_ticket import SCAN_IT, read_hold_ticket
from pos.services.station import Station


class SealScreen(RoleScreen):
    screen_name = "seal"
    for_player = False  # the kiosk: the identified player signs; no opening the seal

    def build(self) -> None:
        self.ticket: str | None = None  # the hold ticket scanned, until it signs
        self.taps = TwoTaps()  # a line is signed on its second tap
        self.taps.listeners.append(self._armed)
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
        self.scanned = Text(size=t.BODY, bold=True, fit=True, ident="seal-ticket")
        right.add_widget(self.scanned)
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
        # plain words: the refusal's sentence, not the rule it cites (that stays on the record)
        self.outcome = OutcomeView(
            headline=t.BODY, shout=t.BODY, detail=t.SMALL, ident="seal", cite=False
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
        self.taps.cancel(quiet=True)
        self.grid.clear_widgets()
        if vm is None:
            self.header.text = _("No seal card deal is in play here")
            self.detail.text = ""
            self.outcome.clear("")
            return
        self.header.text = vm.title
        self.detail.text = f"{vm.detail} · {vm.open_hint}"
        if self.ticket not in vm.free_tickets:
            self.ticket = None
        if self.ticket is not None:
            self.scanned.text = _("Hold ticket {ticket}: tap a free line").format(
                ticket=self.ticket
            )
        elif vm.free_tickets and not vm.opened:
            self.scanned.text = _(SCAN_IT)
        else:
            self.scanned.text = _("Every hold ticket has signed") if not vm.opened else ""
        for line in vm.lines:
            colour = common.OK if line.winner else (common.OFF if line.signed else common.PANEL_HI)
            button = TouchButton(
                line.text,
                colour=colour,
                size=t.SMALL if line.signed else t.BODY,
                size_hint_y=1,
                disabled=line.signed or vm.opened,
                ident=f"line-{line.line}",
            )
            button.bind(on_release=partial(self._tapped, line.line))
            self.grid.add_widget(button)
        if self.outcome.headline.text == "":
            self.outcome.clear(_("Scan the winning hold ticket, then tap a free line"))

    def take_scan(self, text: str) -> bool:
        """A hold ticket scanned: checked against the seal's hold tickets (a wrong one is said
        and changes nothing). False: the scan is no ticket (a card or an ID)."""
        vm = self.vm
        if vm is None:
            return False
        read = read_hold_ticket(
            text, serial=vm.serial, hold_tickets=vm.hold_tickets, free_tickets=vm.free_tickets
        )
        if read.kind == "other":
            return False
        self.taps.cancel(quiet=True)
        if read.kind == "refused":
            self.show(
                common.Outcome(False, _("Not a hold ticket to sign with"), read.why, common.WARN)
            )
            return True
        self.ticket = read.ticket
        self.outcome.clear(
            _("Hold ticket {ticket}: tap a free line, then tap it again").format(ticket=read.ticket)
        )
        self._render_trigger()
        return True

    def _tapped(self, line: int, button: TouchButton) -> None:
        if self.vm is None:
            return
        if self.ticket is None:
            self.taps.cancel(quiet=True)
            self.show(
                common.Outcome(
                    False,
                    _(SCAN_IT),
                    _("Then tap a free line, and tap it again to sign it."),
                    common.WARN,
                )
            )
            return
        if self.taps.confirmed(button, f"line-{line}", _("Sign?")):
            self._sign(line)

    def _armed(self, armed: bool) -> None:
        if armed:
            line = self.taps.key.removeprefix("line-")
            self.outcome.clear(
                _(
                    "Line {line} for hold ticket {ticket}: tap it again to sign it (a signed "
                    "line cannot be undone); touch anywhere else to take it back"
                ).format(line=line, ticket=self.ticket)
            )
        else:
            self.outcome.clear(_("Taken back: nothing signed"))

    def on_touch_down(self, touch: MotionEvent) -> bool:
        self.taps.touched(window_pos(self, touch))
        return bool(super().on_touch_down(touch))

    def on_leave(self, *_: object) -> None:
        self.taps.cancel(quiet=True)

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
        if outcome.ok:
            self.ticket = None
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)

    def on_scan(self, text: str) -> None:
        """A hold ticket scanned signs; a player card or an ID is the player signing."""
        if not self.take_scan(text):
            self.player.text = text.strip()
