"""Exceptions for the manager to decide, each Accept or Reject with a note, on the record:
double payments, probable counterfeits, devices not returned, tickets paid on both sides of a
cut, purchases rule D would have refused (late events), near matches to workers."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import (
    Field,
    ListBox,
    OutcomeBanner,
    Panel,
    Row,
    Text,
    TouchButton,
    fixed,
    item,
)
from kiosk.viewmodels import common, manager
from pos.services.station import Station


class ExceptionsScreen(RoleScreen):
    screen_name = "exceptions"

    def build(self) -> None:
        self.heading = fixed(Text(size=t.LARGE, bold=True, one_line=True), 34)
        self.note = Field("Note for the record (why)", ident="exception-note")
        self.outcome = fixed(OutcomeBanner(ident="exception"), 56)
        self.rows = ListBox(ident="exceptions")
        self.body.add_widget(self.heading)
        self.body.add_widget(self.note)
        self.body.add_widget(self.outcome)
        self.body.add_widget(self.rows)
        self.outcome.clear("Decide each one, with a note for the record")

    def load(self, st: Station) -> tuple[manager.ExceptionVM, ...]:
        return manager.exceptions_screen(st)

    def render(self, vm: tuple[manager.ExceptionVM, ...]) -> None:
        self.heading.text = (
            "1 exception to decide" if len(vm) == 1 else f"{len(vm)} exceptions to decide"
        )
        if not vm:
            self.rows.fill([Text("Nothing to decide.", colour=common.MUTED, fit=True)])
            return
        self.rows.fill(self._row(e) for e in vm)

    def _row(self, e: manager.ExceptionVM) -> Panel:
        panel = item(
            [
                (f"{e.label} · {e.subject}", t.BODY, e.colour),
                (e.detail, t.SMALL, common.TEXT),
            ]
        )
        if e.ref is None:
            return panel
        ref = e.ref
        tag = ref.replace(":", "-")
        actions = Row()
        actions.add_widget(
            TouchButton(
                "Accept",
                on_press=lambda: self._decide(ref, "accepted"),
                colour=common.OK,
                size=t.BODY,
                ident=f"accept-{tag}",
            )
        )
        actions.add_widget(
            TouchButton(
                "Reject",
                on_press=lambda: self._decide(ref, "rejected"),
                colour=common.ERROR,
                size=t.BODY,
                ident=f"reject-{tag}",
            )
        )
        panel.add_widget(actions)
        labels = [child for child in panel.children if child is not actions]

        def fit(*_: object) -> None:
            panel.height = (
                sum(x.height for x in labels) + actions.height + theme.px(t.GAP) * (len(labels) + 2)
            )

        for label in labels:
            label.bind(height=fit)
        actions.bind(height=fit)
        fit()
        return panel

    def _decide(self, ref: str, decision: str) -> None:
        note, badge = self.note.text, self.operator
        self.front.call(
            lambda st: manager.resolve_exception(st, ref, decision, note, badge), self._done
        )

    def _done(self, outcome: common.Outcome) -> None:
        if outcome.ok:
            self.note.text = ""
        self.show(outcome)
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
