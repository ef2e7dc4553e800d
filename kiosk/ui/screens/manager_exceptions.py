"""Exceptions for the manager to decide, each Accept or Reject with its own note, on the record
(two taps: the decision goes to every station); each row says what Accept and Reject mean:
double payments, probable counterfeits, devices not returned, tickets paid on both sides of a
cut, purchases rule D would have refused (late events), near matches to workers."""

from __future__ import annotations

from functools import partial

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
from pos.domain import exception_words
from pos.services.station import Station


class ExceptionsScreen(RoleScreen):
    screen_name = "exceptions"

    def build(self) -> None:
        self.heading = fixed(Text(size=t.LARGE, bold=True, one_line=True), 34)
        self.outcome = fixed(OutcomeBanner(ident="exception"), 72)
        self.rows = ListBox(ident="exceptions")
        self.body.add_widget(self.heading)
        self.body.add_widget(self.outcome)
        self.body.add_widget(self.rows)
        self.outcome.clear("Decide each one, with its own note for the record")
        # each row's own note, kept across refreshes until its decision is recorded
        self.notes: dict[str, str] = {}
        # the first tap on Accept or Reject: (ref, decision) waiting for the second
        self.armed: tuple[str, str] | None = None
        self.buttons: dict[tuple[str, str], TouchButton] = {}

    def on_leave(self, *_: object) -> None:
        self.armed = None

    def load(self, st: Station) -> tuple[manager.ExceptionVM, ...]:
        return manager.exceptions_screen(st)

    def render(self, vm: tuple[manager.ExceptionVM, ...]) -> None:
        self.heading.text = (
            "1 exception to decide" if len(vm) == 1 else f"{len(vm)} exceptions to decide"
        )
        self.buttons = {}
        self.armed = None
        if not vm:
            self.rows.fill([Text("Nothing to decide.", colour=common.MUTED, fit=True)])
            return
        self.rows.fill(self._row(e) for e in vm)

    def _row(self, e: manager.ExceptionVM) -> Panel:
        lines: list[tuple[str, float, str]] = [
            (f"{e.label} · {e.subject}" if e.subject else e.label, t.BODY, e.colour),
            (e.detail, t.SMALL, common.TEXT),
        ]
        if e.ref is not None:
            lines += [
                (f"Accept: {e.accept_means}.", t.SMALL, common.MUTED),
                (f"Reject: {e.reject_means}.", t.SMALL, common.MUTED),
            ]
        panel = item(lines)
        if e.ref is None:
            return panel
        ref = e.ref
        tag = f"{ref.rpartition(':')[0]}-{ref.rpartition(':')[2]}"
        note = Field("Note for the record (why)", ident=f"note-{tag}")
        note.text = self.notes.get(ref, "")
        note.bind(text=lambda _w, text: self.notes.__setitem__(ref, text))
        panel.add_widget(note)
        actions = Row()
        for decision, words, colour in (
            ("accepted", "Accept", common.OK),
            ("rejected", "Reject", common.ERROR),
        ):
            button = TouchButton(
                words,
                on_press=partial(self._tap, ref, decision),
                colour=colour,
                size=t.BODY,
                ident=f"{words.lower()}-{tag}",
            )
            self.buttons[(ref, decision)] = button
            actions.add_widget(button)
        panel.add_widget(actions)
        labels = [child for child in panel.children if child not in (actions, note)]

        def fit(*_: object) -> None:
            panel.height = (
                sum(x.height for x in labels)
                + note.height
                + actions.height
                + theme.px(t.GAP) * (len(labels) + 3)
            )

        for label in labels:
            label.bind(height=fit)
        actions.bind(height=fit)
        note.bind(height=fit)
        fit()
        return panel

    def _tap(self, ref: str, decision: str) -> None:
        """The first tap asks (it decides for every station); the second on the same button
        decides. A tap on another button asks for that one instead."""
        if self.armed == (ref, decision):
            self.armed = None
            self._decide(ref, decision)
            return
        self._disarm()
        self.armed = (ref, decision)
        prompt = exception_words.confirm_words(decision)
        button = self.buttons[(ref, decision)]
        button.text = prompt
        button.set_colour(common.WARN)
        self.outcome.show(
            common.Outcome(
                False,
                prompt.split("?")[0] + "?",
                "Your decision goes on the record at every station. Tap the same button "
                "again to confirm it.",
                common.WARN,
            )
        )

    def _disarm(self) -> None:
        if self.armed is not None:
            button = self.buttons.get(self.armed)
            if button is not None:
                accepted = self.armed[1] == "accepted"
                button.text = "Accept" if accepted else "Reject"
                button.set_colour(common.OK if accepted else common.ERROR)
        self.armed = None

    def _decide(self, ref: str, decision: str) -> None:
        note, badge = self.notes.get(ref, ""), self.operator
        self._disarm()
        self.front.call(
            lambda st: manager.resolve_exception(st, ref, decision, note, badge),
            lambda outcome: self._done(ref, outcome),
        )

    def _done(self, ref: str, outcome: common.Outcome) -> None:
        if outcome.ok:
            self.notes.pop(ref, None)
        self.show(outcome)
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
