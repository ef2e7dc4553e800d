"""Log in by badge (scanned or typed) or PIN (the pad): booth and manager stations."""

from __future__ import annotations

from typing import Any

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Box, Field, NumberPad, OutcomeView, Panel, Text, TouchButton
from kiosk.viewmodels import common
from kiosk.viewmodels.booth import LoginResult, login
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
        for widget in (self.heading, self.where, self.hint, self.entry, self.outcome):
            left.add_widget(widget)
        right = Box("vertical", size_hint_x=0.45)
        right.add_widget(NumberPad(self._key, ident="login-pad"))
        right.add_widget(
            TouchButton("Log in", on_press=self._submit_entry, colour=common.OK, ident="login")
        )
        columns.add_widget(left)
        columns.add_widget(right)
        self.body.add_widget(columns)

    def on_pre_enter(self, *_: object) -> None:
        self.entry.text = ""
        self.outcome.clear("")
        super().on_pre_enter()

    def load(self, st: Station) -> Any:
        return f"{st.id} · {st.hall.organisation}"

    def render(self, vm: Any) -> None:
        self.where.text = str(vm)

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
        self.front.call(lambda st: login(st, text, local, roles=roles), self._answered)

    def _answered(self, result: LoginResult) -> None:
        self.entry.text = ""
        if result.ok:
            self.front.log_in(result)
        elif result.refusal is not None:
            refusal = result.refusal
            self.outcome.show(
                common.Outcome(False, refusal.headline, refusal.message, common.ERROR, refusal)
            )


class ManagerLoginScreen(LoginScreen):
    roles = ("manager",)
    title = "Manager log in"
