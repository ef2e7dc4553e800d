"""The manager's phone, paired from the manager screen: a QR code carrying a one-time pairing
link for a role (the phone opens it, a person of that role signs in with badge and PIN), and the
phones signed in, each revocable at once."""

from __future__ import annotations

import io
from functools import partial

from kivy.core.image import Image as CoreImage
from kivy.uix.image import Image

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import Box, ListBox, OutcomeBanner, Panel, Row, Text, TouchButton, fixed
from kiosk.viewmodels import common, phone
from pos.services.station import Station


class PhoneScreen(RoleScreen):
    screen_name = "phone"

    def build(self) -> None:
        columns = Box("horizontal")
        left = Panel(orientation="vertical", size_hint_x=0.46)
        left.add_widget(fixed(Text("Pair a phone", size=t.LARGE, bold=True, one_line=True), 32))
        buttons = Row()
        for role in phone.ROLES:
            buttons.add_widget(
                TouchButton(
                    role.capitalize(),
                    on_press=partial(self._pair, role),
                    size=t.BODY,
                    ident=f"pair-{role}",
                )
            )
        left.add_widget(buttons)
        self.qr = Image(fit_mode="contain")
        self.qr.ident = "pair-qr"
        left.add_widget(self.qr)
        self.link = fixed(Text(size=t.SMALL, ident="pair-link", one_line=False), 44)
        left.add_widget(self.link)
        right = Box("vertical", size_hint_x=0.54)
        self.outcome = fixed(OutcomeBanner(ident="phone"), 64)
        self.served = fixed(Text(size=t.SMALL, colour=common.MUTED, ident="phone-served"), 96)
        self.sessions = ListBox(ident="phone-sessions")
        for widget in (self.outcome, self.served, self.sessions):
            right.add_widget(widget)
        columns.add_widget(left)
        columns.add_widget(right)
        self.body.add_widget(columns)
        self.outcome.clear("Choose who the phone is for")

    def load(self, st: Station) -> phone.PhoneVM:
        return phone.phone_screen(st)

    def render(self, vm: phone.PhoneVM) -> None:
        self.served.text = vm.served_text
        rows: list[Panel | Text] = [Text("Phones signed in", size=t.BODY, bold=True, fit=True)]
        if not vm.sessions:
            rows.append(Text("None yet.", colour=common.MUTED, fit=True))
        for s in vm.sessions:
            panel = Panel(orientation="vertical", size_hint_y=None)
            panel.add_widget(Text(s.text, size=t.BODY, colour=s.colour, fit=True))
            panel.add_widget(Text(s.detail, size=t.SMALL, colour=common.MUTED, fit=True))
            if s.active:
                panel.add_widget(
                    TouchButton(
                        "Revoke",
                        on_press=partial(self._revoke, s.id),
                        colour=common.ERROR,
                        size=t.BODY,
                        ident=f"revoke-{s.id}",
                    )
                )
            self._fit(panel)
            rows.append(panel)
        self.sessions.fill(rows)

    @staticmethod
    def _fit(panel: Panel) -> None:
        def fit(*_: object) -> None:
            gaps = theme.px(t.GAP) * (len(panel.children) + 1)
            panel.height = sum(child.height for child in panel.children) + gaps

        for child in panel.children:
            child.bind(height=fit)
        fit()

    def _pair(self, role: str) -> None:
        badge = self.operator
        self.front.call(lambda st: phone.pair(st, role, badge), self._paired)

    def _paired(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
        png = outcome.get("png")
        if outcome.ok and isinstance(png, bytes):
            self.qr.texture = CoreImage(io.BytesIO(png), ext="png").texture
            self.link.text = str(outcome.get("url"))
        else:
            self.qr.texture = None
            self.link.text = ""
        self.refresh()

    def _revoke(self, session_id: str) -> None:
        badge = self.operator
        self.front.call(lambda st: phone.revoke(st, session_id, badge), self._revoked)

    def _revoked(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
        self.refresh()
