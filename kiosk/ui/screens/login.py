"""Sign on by badge (scanned or typed), then the PIN on the pad when the house asks for one;
or a PIN set at this station's pad alone: booth and manager stations. Locked after the house's
idle minutes, the same badge tapped again unlocks at once (no trip to the ledger)."""

from __future__ import annotations

from typing import Any

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Box, Field, NumberPad, OutcomeView, Panel, Row, Text, TouchButton
from kiosk.viewmodels import common
from kiosk.viewmodels.booth import LoginResult, login
from kiosk.viewmodels.pin_change import PinDraft
from pos.domain.signon import unlocks
from pos.services.station import Station


class LoginScreen(RoleScreen):
    screen_name = "login"
    roles: tuple[str, ...] = ("seller", "redeemer")
    title = "Log in"

    def build(self) -> None:
        columns = Box("horizontal")
        left = Panel(orientation="vertical", size_hint_x=0.55)
        self.heading = Text(self.title, size=t.TITLE, bold=True, fit=True, ident="login-title")
        self.where = Text(size=t.BODY, colour=common.MUTED, fit=True, ident="login-where")
        self.hint = Text(
            "Scan your badge, or type your badge or PIN and press Log in.",
            fit=True,
            ident="login-hint",
        )
        self.entry = Field("Badge or PIN", on_enter=self.submit, ident="login-entry")
        self.entry.password = True
        self.outcome = OutcomeView(headline=t.LARGE, shout=t.LARGE, ident="login-outcome")
        self.actions = Row()
        self.change_pin = TouchButton(
            "Change my PIN",
            on_press=self._change_pin,
            colour=common.PANEL_HI,
            size=t.BODY,
            ident="change-pin",
        )
        # after a badge scan: the wrong badge, or someone else's, is forgotten here
        self.start_over = TouchButton(
            "Not you? Start over",
            on_press=self._start_over,
            colour=common.WARN,
            size=t.BODY,
            ident="start-over",
        )
        self.actions.add_widget(self.change_pin)
        for widget in (self.heading, self.where, self.hint, self.entry, self.outcome):
            left.add_widget(widget)
        left.add_widget(self.actions)
        right = Box("vertical", size_hint_x=0.45)
        right.add_widget(NumberPad(self._key, ident="login-pad"))
        right.add_widget(
            TouchButton("Log in", on_press=self._submit_entry, colour=common.OK, ident="login")
        )
        columns.add_widget(left)
        columns.add_widget(right)
        self.body.add_widget(columns)
        self.pending: LoginResult | None = None

    def on_pre_enter(self, *_: object) -> None:
        self._forget()
        super().on_pre_enter()

    def _forget(self) -> None:
        """Back to the badge prompt: the badge scanned (waiting for its PIN) forgotten."""
        self.entry.text = ""
        self.pending = None  # a badge waiting for its PIN
        self.hint.text = self.default_hint
        self.entry.hint_text = "Badge or PIN"
        self.outcome.clear("")
        self._show_start_over(False)

    def _show_start_over(self, shown: bool) -> None:
        if shown and self.start_over.parent is None:
            self.actions.add_widget(self.start_over)
        elif not shown and self.start_over.parent is not None:
            self.actions.remove_widget(self.start_over)

    def _start_over(self) -> None:
        self._forget()

    default_hint = "Scan your badge, or type your badge or PIN and press Log in."

    def load(self, st: Station) -> Any:
        return f"{st.id} · {st.hall.organisation}"

    def render(self, vm: Any) -> None:
        self.where.text = str(vm)

    def _change_pin(self) -> None:
        """A worker changes their own PIN: badge, current PIN, the new one twice."""
        pin_screen = self.front.screens.get_screen("pin")
        pin_screen.begin(PinDraft(own=True), back_to=self.name)
        self.front.go("pin")

    def _key(self, key: str) -> None:
        if key == "C":
            self.entry.text = ""
        elif key == "DEL":
            self.entry.text = self.entry.text[:-1]
        else:
            self.entry.text += key

    def _submit_entry(self) -> None:
        self.submit(self.entry.text)

    def on_scan(self, text: str) -> None:
        self.submit(text)

    def submit(self, text: str) -> None:
        local, roles = self.front.runtime.local, self.roles
        pending = self.pending
        if pending is not None and text.strip().isdigit():  # the PIN for the badge tapped
            badge = pending.badge
            self.front.call(
                lambda st: login(st, badge, local, roles=roles, pin=text), self._answered
            )
            return
        self.front.call(lambda st: login(st, text, local, roles=roles), self._answered)

    def _answered(self, result: LoginResult) -> None:
        self.entry.text = ""
        if result.ok:
            self.pending = None
            self.front.log_in(result)
            return
        if result.needs_pin:
            self.pending = result
            self.hint.text = f"{result.name} ({result.badge}): enter your PIN, then Log in."
            self.entry.hint_text = "PIN"
            self._show_start_over(True)
        if result.refusal is not None:
            refusal = result.refusal
            self.outcome.show(
                common.Outcome(False, refusal.headline, refusal.message, common.ERROR, refusal)
            )
        elif result.needs_pin:
            self.outcome.show(
                common.Outcome(
                    False, "Enter your PIN", "The house signs on with badge and PIN.", common.INFO
                )
            )


class ManagerLoginScreen(LoginScreen):
    roles = ("manager",)
    title = "Manager log in"


class LockedScreen(LoginScreen):
    """The station locked after the house's idle minutes: who is signed on stays; their badge
    tapped again unlocks it at once; anyone else signs on afresh (with their PIN if asked)."""

    screen_name = "locked"
    title = "Locked"
    default_hint = "Tap your badge to unlock. Someone else: tap your own badge to sign on."

    def on_pre_enter(self, *_: object) -> None:
        super().on_pre_enter()
        who = self.front.operator
        if who is not None:
            self.heading.text = f"Locked · {who.name} ({who.badge})"
        self.roles = self.front.sign_on_roles

    def submit(self, text: str) -> None:
        who = self.front.operator
        if who is not None and self.pending is None and unlocks(text, who.badge):
            self.entry.text = ""
            self.front.unlock()
            return
        super().submit(text)
