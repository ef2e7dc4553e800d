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
from kiosk.viewmodels import books, booth, common, session_sync
from pos.services import money_path
from pos.services.station import Station


class BoothCloseScreen(RoleScreen):
    screen_name = "close"

    def build(self) -> None:
        self.state = fixed(
            Text(size=t.TITLE, bold=True, halign="center", one_line=True, ident="close-state"), 36
        )
        # what the drawer should hold, as the signed-on person may see it (a seller counts
        # blind: the figure shows once the count is recorded), and what to do next
        self.drawer = fixed(Text(size=t.SMALL, halign="center", fit=True, ident="close-drawer"), 40)
        self.count = BlindCount(self, done=self._counted)
        row = Row()
        row.add_widget(
            TouchButton(
                "Close this booth's session",
                on_press=self._close,
                colour=common.WARN,
                ident="close-station",
            )
        )
        # the close marker and the events reach the manager by sync: now, on the worker
        row.add_widget(
            TouchButton(
                "Sync now",
                on_press=self._sync,
                colour=common.INFO,
                size_hint_x=0.45,
                ident="sync-now",
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
        for widget in (
            self.state,
            self.drawer,
            *self.count.rows,
            row,
            reopen,
            self.outcome,
        ):
            self.body.add_widget(widget)
        self.outcome.clear("")

    def load(self, st: Station) -> tuple[str, books.LineVM]:
        badge = self.operator
        person = st.staff(badge) if badge else None
        roles = person.roles if person else frozenset()
        # as the signed-on person may see it: a seller, the drawer's figure only once counted
        return booth.session_text(st)[0], books.drawer_line(st, roles)

    def render(self, vm: tuple[str, books.LineVM]) -> None:
        self.state.text, drawer = vm
        detail = f" · {drawer.detail}" if drawer.detail else ""
        self.drawer.text = f"{drawer.text}{detail}"
        self.drawer.set_colour(drawer.colour)

    def on_scan(self, text: str) -> None:
        if self.closed:
            self.reopen_by.text = text.strip()
        else:
            self.count.on_scan(text)

    def _counted(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        self.refresh()  # a count recorded: the drawer line may now show its figure

    def _close(self) -> None:
        badge = self.operator
        self.front.call(lambda st: booth.close_station(st, badge), self._done)

    def _sync(self) -> None:
        self.show(session_sync.SYNCING)
        self.front.call(session_sync.sync_now, self._synced)

    def _synced(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        self.refresh()

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
