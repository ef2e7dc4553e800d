"""The kiosk's other screens: check a ticket (no ID needed), pay with a voucher, rent a device,
sign a seal line. The staff screen a manager's badge opens is kiosk.ui.screens.kiosk_staff."""

from __future__ import annotations

import re
from functools import partial

from kiosk import i18n
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.screens.kiosk_games import GameTile, back_row, translated
from kiosk.ui.screens.seal import SealScreen
from kiosk.ui.widgets import Field, ListBox, OutcomeView, Row, Text, TouchButton
from kiosk.viewmodels import booth, common
from kiosk.viewmodels import kiosk as vm_kiosk
from kiosk.viewmodels.hold_ticket import SCAN_IT
from pos.services.station import Station


class CheckScreen(RoleScreen):
    """Check a ticket (no card needed): scanned, or typed. A code that cannot be read reads
    amber and stays in the field for correcting; red DO NOT PAY only for a ticket that must
    not be paid."""

    screen_name = "check"

    def build(self) -> None:
        self.outcome = OutcomeView(
            headline=t.BIG, shout=t.BIG, detail=t.LARGE, ident="check", cite=False
        )
        self.code = Field("", on_enter=self._typed, ident="check-code")
        row = Row()
        row.add_widget(self.code)
        go = TouchButton("Check", on_press=lambda: self._typed(self.code.text), ident="check-go")
        go.size_hint_x = 0.35
        row.add_widget(translated(go, "Check"))
        self.code.size_hint_x = 0.65
        self.body.add_widget(self.outcome)
        self.body.add_widget(row)
        self.body.add_widget(back_row(self))
        self._arrived_with_code = False

    def on_pre_enter(self, *_: object) -> None:
        if self._arrived_with_code:
            self._arrived_with_code = False
            return
        self.code.text = ""
        self.code.hint_text = i18n._("Ticket code")
        self.outcome.clear(i18n._("Scan your ticket to check it"))

    def on_scan(self, text: str) -> None:
        self.check_code(text.strip())

    def _typed(self, text: str) -> None:
        self.check_code(text.strip())

    def check_code(self, code: str, *, go: bool = False) -> None:
        """Check `code` and show the result (`go`: from the idle screen: this screen shows
        with its result, in one frame)."""
        if go:
            self.front.call(lambda st: vm_kiosk.check(st, code), lambda o: self._arrive(code, o))
            return
        self.code.text = code
        self.front.call(lambda st: vm_kiosk.check(st, code), self.show)

    def _arrive(self, code: str, outcome: common.Outcome) -> None:
        self._arrived_with_code = True
        self.code.text = code
        self.show(outcome)
        self.front.go("check")

    def forget(self) -> None:
        self.code.text = ""
        self.outcome.clear("")

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
        if outcome.get("code") is None and outcome.colour != common.WARN:
            self.code.text = ""  # a result: the field is free for the next ticket


class KioskVoucherScreen(RoleScreen):
    """Pay with a voucher: the player scans (or types) its QR code, then picks the tickets; the
    sale redeems the voucher and prints any change as a new one."""

    screen_name = "kiosk-voucher"

    def build(self) -> None:
        self.prompt = Text(size=t.LARGE, bold=True, fit=True, ident="voucher-prompt")
        self.code = Field("Voucher code", on_enter=self._entered, ident="voucher-code")
        self.code.bind(text=lambda *_: self._read(self.code.text))
        self.games = ListBox(ident="voucher-games")
        for widget in (self.prompt, self.code, self.games, back_row(self)):
            self.body.add_widget(widget)
        self._read("")

    def on_pre_enter(self, *_: object) -> None:
        self.code.text = ""
        self.code.hint_text = i18n._("Voucher code")
        self._read("")
        super().on_pre_enter()

    def load(self, st: Station) -> vm_kiosk.GamesVM | None:
        player = self.front.player
        return vm_kiosk.games_screen(st, player) if player is not None else None

    def render(self, vm: vm_kiosk.GamesVM | None) -> None:
        if vm is None:
            self.front.go("idle")
            return
        rows: list[object] = [
            GameTile(game, self._buy, prefix="voucher-buy") for game in vm.tiles if game.can_buy
        ]
        if not rows:
            rows = [Text("No games can be bought here right now.", fit=True)]
        self.games.fill(rows)

    def on_scan(self, text: str) -> None:
        self.code.text = text.strip()

    def _read(self, text: str) -> None:
        self.prompt.text = vm_kiosk.voucher_prompt(text)
        self.prompt.set_colour(common.TEXT)

    def _entered(self, text: str) -> None:
        """Done on the keyboard: a typed code is looked up at once, so the player learns what
        it is worth (or that it will not pay) before choosing tickets."""
        self._read(text)
        if not vm_kiosk.voucher_complete(text):
            return  # nothing typed, still typing, or a typo: the prompt says so already
        self.front.call(
            lambda st: vm_kiosk.voucher_read(st, text), lambda said: self._said(text, said)
        )

    def _said(self, text: str, outcome: common.Outcome) -> None:
        if self.code.text == text:  # not changed meanwhile
            self.prompt.text = outcome.headline
            self.prompt.set_colour(common.TEXT if outcome.ok else common.WARN)

    def _buy(self, serial: str, qty: int) -> None:
        player, dispenser = self.front.player, self.front.runtime.dispenser
        if player is None:
            return
        code = self.code.text
        self.front.call(
            lambda st: vm_kiosk.buy_with_voucher(st, player, serial, qty, code, dispenser),
            self._bought,
            prints=True,
        )

    def _bought(self, outcome: common.Outcome) -> None:
        """A code to correct (a typo, a bad scan) stays here, said in amber above the field;
        anything else is the result screen's."""
        if outcome.get("keep"):
            self.prompt.text = outcome.headline
            self.prompt.set_colour(common.WARN)
            return
        self.front.show_result(outcome)

    def forget(self) -> None:
        self.vm = None
        self.code.text = ""
        self.games.fill([])


class RentScreen(RoleScreen):
    screen_name = "rent"

    def build(self) -> None:
        self.free = Text(
            size=t.TITLE, bold=True, one_line=True, size_hint_y=0.2, ident="kiosk-free-devices"
        )
        self.packages = ListBox(ident="kiosk-packages")
        self.collect = Text(size=t.LARGE, halign="center", fit=True, ident="kiosk-collect-at")
        self.body.add_widget(self.free)
        self.body.add_widget(self.collect)
        self.body.add_widget(self.packages)
        self.body.add_widget(back_row(self))

    def load(self, st: Station) -> booth.DevicesVM:
        return booth.devices_screen(st)

    def render(self, vm: booth.DevicesVM) -> None:
        self.free.text = vm_kiosk.devices_free_text(vm.free, vm.total)
        self.collect.text = i18n._("Pay here, then collect your device {place}").format(
            place=vm_kiosk.pickup_text(vm.collect_at)
        )
        buttons: list[object] = [
            TouchButton(
                vm_kiosk.rent_label(p) + f" ({p.faces} × {p.games})",
                on_press=partial(self._rent, p),
                colour=common.OK,
                size=t.BODY,
                ident=f"kiosk-rent-{p.name}",
            )
            for p in vm.packages
        ]
        if not buttons:
            buttons = [Text(i18n._("No devices to rent here today: ask at the booth."), fit=True)]
        self.packages.fill(buttons)

    def _rent(self, package: booth.PackageVM) -> None:
        """Price first: the pay screen shows the rental's price before anything happens."""
        if self.front.player is None:
            return
        self.front.screens.get_screen("pay").choose_rental(package)


class KioskSealScreen(SealScreen):
    screen_name = "kiosk-seal"
    for_player = True

    def extra(self) -> None:
        # a player's header and detail wrap (large text, Spanish) rather than being cut short
        header = Text(size=t.LARGE, bold=True, fit=True)
        detail = Text(size=t.BODY, colour=common.MUTED, fit=True)
        for old, new in ((self.header, header), (self.detail, detail)):
            index = self.body.children.index(old)
            self.body.remove_widget(old)
            self.body.add_widget(new, index=index)
        self.header, self.detail = header, detail
        self.body.add_widget(back_row(self))

    def render(self, vm: booth.SealVM | None) -> None:
        super().render(vm)
        # the booth's hint cites its rule ("(rule C5)"): a player reads no rule codes
        self.detail.text = re.sub(r"\s*\(rule [^)]*\)", "", self.detail.text)

    def _sign(self, line: int) -> None:
        player = self.front.player
        if self.vm is None or self.ticket is None or player is None:
            return
        serial, ticket = self.vm.serial, self.ticket
        self.front.call(lambda st: vm_kiosk.sign_line(st, player, serial, ticket, line), self._done)

    def on_scan(self, text: str) -> None:
        """Only the player's hold ticket: the player is already known."""
        if not self.take_scan(text):
            self.show(
                common.Outcome(
                    False,
                    i18n._(SCAN_IT),
                    i18n._("Scan the winning hold ticket: the ticket, not a card."),
                    common.WARN,
                )
            )
