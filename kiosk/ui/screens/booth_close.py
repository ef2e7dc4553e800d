"""The booth's end of session: record this station's close marker (the manager then closes the
session hall-wide once it holds every station's marker and events)."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import OutcomeView, Row, Text, TouchButton
from kiosk.viewmodels import booth, common
from pos.services.station import Station


class BoothCloseScreen(RoleScreen):
    screen_name = "close"

    def build(self) -> None:
        self.state = Text(size=t.TITLE, bold=True, halign="center", ident="close-state")
        self.hint = Text(
            "At the end of the session, record this booth's close. The manager closes the "
            "day once every station has closed and its events have arrived.",
            colour=common.MUTED,
            halign="center",
            fit=True,
        )
        row = Row()
        row.add_widget(
            TouchButton(
                "Close this booth's session",
                on_press=self._close,
                colour=common.WARN,
                ident="close-station",
            )
        )
        self.outcome = OutcomeView(headline=t.TITLE, shout=t.LARGE, ident="close")
        for widget in (self.state, self.hint, row, self.outcome):
            self.body.add_widget(widget)
        self.outcome.clear("")

    def load(self, st: Station) -> str:
        return booth.session_text(st)[0]

    def render(self, vm: str) -> None:
        self.state.text = vm

    def _close(self) -> None:
        badge = self.operator
        self.front.call(lambda st: booth.close_station(st, badge), self._done)

    def _done(self, outcome: common.Outcome) -> None:
        self.show(outcome)

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
