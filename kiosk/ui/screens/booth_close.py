"""The booth's end of session: count this drawer blind (what the ledger expects shows only once
the count is recorded), a second person with another badge counts it again to verify, then record
this station's close marker (the manager then closes the session hall-wide once it holds every
station's marker and events). Once closed it sells and pays nothing more in the session, until a
manager reopens it here with a reason (scan or type the manager's badge)."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.blind_count import BlindCount
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Field, OutcomeView, Row, Text, TouchButton, fixed
from kiosk.viewmodels import booth, common
from pos.services import money_path
from pos.services.station import Station


class BoothCloseScreen(RoleScreen):
    screen_name = "close"

    def build(self) -> None:
        self.state = fixed(
            Text(size=t.TITLE, bold=True, halign="center", one_line=True, ident="close-state"), 36
        )
        self.hint = fixed(
            Text(
                "Count blind: the ledger's figure shows once your count is recorded. A second "
                "badge counts again. Then close.",
                size=t.SMALL,
                colour=common.MUTED,
                halign="center",
                fit=True,
            ),
            40,
        )
        self.count = BlindCount(self, done=self.show)
        row = Row()
        row.add_widget(
            TouchButton(
                "Close this booth's session",
                on_press=self._close,
                colour=common.WARN,
                ident="close-station",
            )
        )
        reopen = Row()
        self.reopen_by = Field("Manager's badge", ident="reopen-manager", size_hint_x=0.3)
        self.reason = Field("Why reopen", ident="reopen-reason", size_hint_x=0.45)
        reopen.add_widget(self.reopen_by)
        reopen.add_widget(self.reason)
        reopen.add_widget(
            TouchButton(
                "Reopen",
                on_press=self._reopen,
                colour=common.INFO,
                ident="reopen-station",
                size_hint_x=0.25,
            )
        )
        self.closed = False  # closed here: a badge scanned is the manager reopening it
        self.reopen_attempt = money_path.new_attempt()
        self.outcome = OutcomeView(
            headline=t.LARGE, shout=t.LARGE, detail=t.SMALL, ident="close", size_hint_y=1.4
        )
        for widget in (self.state, self.hint, *self.count.rows, row, reopen, self.outcome):
            self.body.add_widget(widget)
        self.outcome.clear("")

    def load(self, st: Station) -> str:
        return booth.session_text(st)[0]

    def render(self, vm: str) -> None:
        self.state.text = vm

    def on_scan(self, text: str) -> None:
        if self.closed:
            self.reopen_by.text = text.strip()
        else:
            self.count.on_scan(text)

    def _close(self) -> None:
        badge = self.operator
        self.front.call(lambda st: booth.close_station(st, badge), self._done)

    def _done(self, outcome: common.Outcome) -> None:
        self.closed = self.closed or outcome.headline == "BOOTH CLOSED"
        self.show(outcome)

    def _reopen(self) -> None:
        manager, reason, tap = self.reopen_by.text, self.reason.text, self.reopen_attempt
        self.front.call(
            lambda st: booth.reopen_station(st, manager, reason, attempt_id=tap), self._reopened
        )

    def _reopened(self, outcome: common.Outcome) -> None:
        self.reopen_attempt = money_path.new_attempt()
        if outcome.ok:
            self.closed = False
            self.reopen_by.text = self.reason.text = ""
        self.show(outcome)

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
