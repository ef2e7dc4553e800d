"""The manager's phone, paired from the manager screen: a QR code carrying a one-time pairing
link for a role (the phone opens it, a person of that role signs in with badge and PIN), and the
phones signed in, each revocable at once. "Phone warns?" shows what to tap when the phone's
browser warns of the hall's own certificate, and the certificate's address as a QR code for the
phone to install it (the details are in docs/managers-day.md)."""

from __future__ import annotations

import io
from functools import partial

from kivy.core.image import Image as CoreImage
from kivy.graphics.texture import Texture
from kivy.uix.image import Image

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import Box, ListBox, OutcomeBanner, Panel, Row, Text, TouchButton, fixed
from kiosk.viewmodels import common, phone
from pos.services.station import Station

SESSIONS, TRUST = "sessions", "trust"


def _texture(png: bytes) -> Texture:
    return CoreImage(io.BytesIO(png), ext="png").texture


class PhoneScreen(RoleScreen):
    screen_name = "phone"

    def build(self) -> None:
        columns = Box("horizontal")
        left = Panel(orientation="vertical", size_hint_x=0.46)
        self.title = fixed(
            Text("Pair a phone", size=t.LARGE, bold=True, one_line=True, ident="pair-title"), 32
        )
        left.add_widget(self.title)
        self.roles = buttons = Row()
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
        self.left = left
        self.qr = Image(fit_mode="contain")
        self.qr.ident = "pair-qr"
        left.add_widget(self.qr)
        self.link = fixed(Text(size=t.SMALL, ident="pair-link", one_line=False), 44)
        left.add_widget(self.link)
        right = Box("vertical", size_hint_x=0.54)
        self.outcome = fixed(OutcomeBanner(ident="phone"), 64)
        self.served = fixed(Text(size=t.SMALL, colour=common.MUTED, ident="phone-served"), 96)
        views = Row()
        self.show_sessions = TouchButton(
            "Phones signed in",
            on_press=partial(self._view, SESSIONS),
            size=t.BODY,
            ident="phone-show-sessions",
        )
        self.show_trust = TouchButton(
            "Phone warns?", on_press=partial(self._view, TRUST), size=t.BODY, ident="phone-warns"
        )
        views.add_widget(self.show_sessions)
        views.add_widget(self.show_trust)
        self.sessions = ListBox(ident="phone-sessions")
        for widget in (self.outcome, self.served, views, self.sessions):
            right.add_widget(widget)
        columns.add_widget(left)
        columns.add_widget(right)
        self.body.add_widget(columns)
        self.outcome.clear("Choose who the phone is for")
        self.view = SESSIONS
        self.vm: phone.PhoneVM | None = None
        self.pairing: tuple[Texture | None, str] = (None, "")  # the last pairing QR and link
        self.said: common.Outcome | None = None  # the last pairing's or revocation's outcome
        self._paint_views()

    def load(self, st: Station) -> phone.PhoneVM:
        return phone.phone_screen(st)

    def render(self, vm: phone.PhoneVM) -> None:
        self.vm = vm
        self.served.text = vm.served_text
        if self.view == TRUST:
            self._render_trust(vm)
            return
        self._show_pairing()
        rows: list[Panel | Text] = []
        if not vm.sessions:
            rows.append(Text("No phone signed in yet.", colour=common.MUTED, fit=True))
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

    def _render_trust(self, vm: phone.PhoneVM) -> None:
        """The steps on the right; on the left, the hall's certificate as a QR code (no role
        buttons: this code pairs nobody)."""
        if self.roles.parent is not None:
            self.left.remove_widget(self.roles)
        self.outcome.show(phone.certificate_outcome(vm.ca_url))
        self.title.text = "The hall's certificate"
        self.qr.texture = _texture(vm.ca_png) if vm.ca_png else None
        self.link.text = vm.ca_url or ""
        self.sessions.fill(
            Text(
                step,
                size=t.SMALL,
                bold=i in (0, 3),
                colour=common.TEXT,
                fit=True,
                ident=f"trust-step-{i}",
            )
            for i, step in enumerate(vm.trust_steps)
        )

    def _show_pairing(self) -> None:
        if self.roles.parent is None:
            self.left.add_widget(self.roles, index=len(self.left.children) - 1)  # under the title
        if self.said is not None:
            self.outcome.show(self.said)
        else:
            self.outcome.clear("Choose who the phone is for")
        self.title.text = "Pair a phone"
        self.qr.texture, self.link.text = self.pairing

    def _view(self, view: str) -> None:
        self.view = view
        self._paint_views()
        if self.vm is not None:
            self.render(self.vm)

    def _paint_views(self) -> None:
        chosen, other = common.INFO, common.PANEL_HI
        self.show_sessions.set_colour(chosen if self.view == SESSIONS else other)
        self.show_trust.set_colour(chosen if self.view == TRUST else other)

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
        self.said = outcome
        self.outcome.show(outcome)
        png = outcome.get("png")
        if outcome.ok and isinstance(png, bytes):
            self.pairing = (_texture(png), str(outcome.get("url")))
        else:
            self.pairing = (None, "")
        self.view = SESSIONS  # the new code on the left, the phones it signs in on the right
        self._paint_views()
        self._show_pairing()
        self.refresh()

    def _revoke(self, session_id: str) -> None:
        badge = self.operator
        self.front.call(lambda st: phone.revoke(st, session_id, badge), self._revoked)

    def _revoked(self, outcome: common.Outcome) -> None:
        self.said = outcome
        self.outcome.show(outcome)
        self.refresh()
