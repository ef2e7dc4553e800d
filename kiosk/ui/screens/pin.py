"""Set a PIN by touches: a manager sets or resets a worker's (the Roster tab's "Set PIN"), or a
worker changes their own from the sign-on screen ("Change my PIN": badge, current PIN, new PIN
twice). Digits on the pad only; what is typed is never shown."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Box, Field, NumberPad, OutcomeView, Panel, Row, Text, TouchButton
from kiosk.viewmodels import common, pin_change
from kiosk.viewmodels.pin_change import PinDraft


class PinScreen(RoleScreen):
    screen_name = "pin"

    def build(self) -> None:
        columns = Box("horizontal")
        left = Panel(orientation="vertical", size_hint_x=0.55)
        self.heading = Text(size=t.TITLE, bold=True, fit=True, ident="pin-title")
        self.prompt = Text(fit=True, ident="pin-prompt")
        self.entry = Field("", on_enter=self._submit, ident="pin-entry")
        self.outcome = OutcomeView(headline=t.LARGE, shout=t.LARGE, ident="pin-outcome")
        for widget in (self.heading, self.prompt, self.entry, self.outcome):
            left.add_widget(widget)
        right = Box("vertical", size_hint_x=0.45)
        right.add_widget(NumberPad(self._key, ident="pin-pad"))
        actions = Row()
        self.back_button = TouchButton(
            "Back", on_press=self._back, colour=common.OFF, size=t.BODY, ident="pin-back"
        )
        self.next_button = TouchButton(
            "Next", on_press=self._next, colour=common.OK, size=t.BODY, ident="pin-next"
        )
        actions.add_widget(self.back_button)
        actions.add_widget(self.next_button)
        right.add_widget(actions)
        columns.add_widget(left)
        columns.add_widget(right)
        self.body.add_widget(columns)
        self.draft = PinDraft(own=True)
        self.back_to = "login"
        self._lay()

    def begin(self, draft: PinDraft, back_to: str) -> None:
        """Before the screen shows: whose PIN, and the screen to go back to."""
        self.draft, self.back_to = draft, back_to
        self.outcome.clear("")
        self._lay()

    def _lay(self) -> None:
        draft = self.draft
        self.heading.text = draft.title
        self.prompt.text = draft.prompt
        self.entry.text = ""
        self.entry.password = draft.secret
        self.entry.input_filter = "int" if draft.secret else None
        self.entry.hint_text = "Badge" if draft.step == "badge" else "PIN"
        self.next_button.text = draft.action

    def _key(self, key: str) -> None:
        if key == "C":
            self.entry.text = ""
        elif key == "DEL":
            self.entry.text = self.entry.text[:-1]
        else:
            self.entry.text += key

    def on_scan(self, text: str) -> None:
        if self.draft.step == "badge":
            self._submit(text)

    def _next(self) -> None:
        self._submit(self.entry.text)

    def _submit(self, text: str) -> None:
        draft = self.draft
        if draft.step == "badge":
            badge = text.strip()
            if not badge:
                self._tell("Scan a badge first.")
                return
            self.front.call(lambda st: pin_change.look_up(st, badge), self._looked_up)
            return
        following, problem = draft.entered(text)
        if problem:
            self.draft = following
            self._lay()
            self._tell(problem)
            return
        if draft.step != "again":
            self.draft = following
            self._lay()
            self.outcome.clear("")
            return
        runtime, operator = self.front.runtime, self.operator
        self.entry.text = ""
        self.front.call(
            lambda st: pin_change.save(st, following, runtime.local, runtime.directory, operator),
            self._saved,
        )

    def _looked_up(self, found: tuple[str, str] | common.Outcome) -> None:
        if isinstance(found, common.Outcome):
            self.entry.text = ""
            self.outcome.show(common.Outcome(False, found.headline, found.detail, common.ERROR))
            return
        self.draft = self.draft.known(*found)
        self._lay()
        self.outcome.clear("")

    def _saved(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        if outcome.ok:
            self.draft = PinDraft(own=self.draft.own)
            self.back_button.text = "Done"
        else:  # start the new PIN again (a wrong current PIN: from the current one)
            self.draft = PinDraft(self.draft.own, self.draft.badge, self.draft.name).known(
                self.draft.badge, self.draft.name
            )
        self._lay()
        if outcome.ok:
            self.heading.text = "PIN changed" if self.draft.own else "PIN set"
            self.prompt.text = "Tap Done to go back."

    def _tell(self, message: str) -> None:
        self.outcome.show(common.Outcome(False, "Please check", message, common.WARN))

    def _back(self) -> None:
        self.back_button.text = "Back"
        self.front.go(self.back_to)

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
