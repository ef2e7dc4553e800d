"""The kiosk at rest: the hall's name and rules on a plain screen (no enticing animation), and
how to start: scan a player card or ID. A ticket scanned here opens its check result. The
player's language (English, Spanish) and large text are chosen here. Showing it forgets whoever
was here before (their credit prints as a voucher, and says so here)."""

from __future__ import annotations

from kiosk import i18n
from kiosk.i18n import _
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.screens.kiosk_games import relabel, translated
from kiosk.ui.theme import theme
from kiosk.ui.widgets import ListBox, OutcomeView, Panel, Row, Text, TouchButton
from kiosk.viewmodels import common
from kiosk.viewmodels import kiosk as vm_kiosk
from pos.services import kiosk_cash
from pos.services.station import Station

LARGE_TEXT_BACKGROUND = "#000000"
PLAIN_PANELS = ("idle", "games", "pay", "kiosk-voucher", "rent")  # black in large text


class IdleScreen(RoleScreen):
    screen_name = "idle"

    def build(self) -> None:
        panel = Panel(orientation="vertical")
        self.organisation = Text(size=t.TITLE, bold=True, halign="center", ident="hall-name")
        self.location = Text(size=t.BODY, colour=common.MUTED, halign="center", fit=True)
        self.headline = Text(
            size=t.TITLE, bold=True, halign="center", fit=True, ident="idle-headline"
        )  # as many lines as it takes (Spanish in large text: two)
        self.note = Text(size=t.BODY, halign="center", fit=True, ident="idle-note")
        self.note.height = 0  # no blank band under the headline while there is no note
        self.rules = ListBox(ident="rules")
        for widget in (self.organisation, self.location, self.headline, self.note, self.rules):
            panel.add_widget(widget)
        self.organisation.size_hint_y = 0.5  # type: ignore[assignment]
        self.body.add_widget(panel)
        row = Row()
        row.add_widget(
            translated(
                TouchButton(
                    "Check a ticket",
                    on_press=lambda: self.front.go("check"),
                    colour=common.PANEL_HI,
                    ident="idle-check",
                ),
                "Check a ticket",
            )
        )
        self.language = TouchButton(
            "", on_press=self._switch_language, colour=common.INFO, ident="idle-language"
        )
        row.add_widget(self.language)
        self.large = TouchButton(
            "", on_press=self._switch_large_text, colour=common.PANEL_HI, ident="idle-large"
        )
        row.add_widget(self.large)
        self.body.add_widget(row)
        self._label_switches()

    def on_pre_enter(self, *_: object) -> None:
        self.note.text = ""
        self.front.forget_player()
        if i18n.language() != i18n.DEFAULT or float(theme.text_scale) != 1.0:
            set_language(self.front, i18n.DEFAULT)
            set_large_text(self.front, on=False)
        self._label_switches()
        super().on_pre_enter()

    def cashed_out(self, paid: kiosk_cash.PaidOut) -> None:
        self.note.text = vm_kiosk.cashed_out(paid)

    def load(self, st: Station) -> vm_kiosk.IdleVM:
        return vm_kiosk.idle_screen(st)

    def render(self, vm: vm_kiosk.IdleVM) -> None:
        training = " (TRAINING)" if vm.training else ""
        self.organisation.text = vm.organisation + training
        self.location.text = vm.location
        self.headline.text = vm.headline
        self.rules.fill(Text(rule, size=t.BODY, fit=True) for rule in vm.rules)

    def _label_switches(self) -> None:
        other = i18n.other_language()
        self.language.text = i18n.LANGUAGES[other]
        self.large.text = _("Normal text") if float(theme.text_scale) != 1.0 else _("Large text")

    def _switch_language(self) -> None:
        set_language(self.front, i18n.other_language())
        self._label_switches()
        self.refresh()

    def _switch_large_text(self) -> None:
        set_large_text(self.front, on=float(theme.text_scale) == 1.0)
        self._label_switches()

    def on_scan(self, text: str) -> None:
        code = text.strip()
        if vm_kiosk.looks_like_ticket(code):  # a ticket: its check result, no card needed
            check = self.front.screens.get_screen("check")
            check.check_code(code, go=True)
            return
        self.front.call(lambda st: vm_kiosk.identify_and_list(st, code), self._identified)

    def _identified(self, answer: tuple[vm_kiosk.Identified, vm_kiosk.GamesVM | None]) -> None:
        result, games = answer
        if result.manager is not None:
            self.front.go("kiosk-manager", vm=result.manager)
        elif result.player is not None:
            self.front.player = result.player
            self.front.go("games", vm=games)
        elif result.refusal is not None:
            self.front.refuse(result.refusal)
            if result.renter is not None:  # pull-tabs refused, a bingo device still offered
                self.front.screens.get_screen("refusal").offer_rental(result.renter)


def set_language(front: object, code: str) -> None:
    """The player screens in `code` (staff screens stay English)."""
    i18n.set_language(code)
    for screen in front.screens.screens:  # type: ignore[attr-defined]
        relabel(screen)


def set_large_text(front: object, *, on: bool) -> None:
    """Large text, white on black (high contrast), or back to normal."""
    theme.text_scale = t.LARGE_TEXT if on else 1.0
    front.set_background(LARGE_TEXT_BACKGROUND if on else common.BACKGROUND)  # type: ignore[attr-defined]
    for screen in front.screens.screens:  # type: ignore[attr-defined]
        if screen.name not in PLAIN_PANELS:
            continue
        for widget in screen.walk():
            if isinstance(widget, Panel) and not isinstance(widget, OutcomeView):
                widget.set_colour(LARGE_TEXT_BACKGROUND if on else common.PANEL)
