"""Price first, then cash, then the sale: the pay screen shows what the player chose and its
price before anything happens; bills put in now go towards it (the credit is shown), a voucher
scanned here pays for it, and with no acceptor it says to pay at the booth. The sale runs when
the money is in: the last bill waits in escrow while the sale is recorded, then is stacked."""

from __future__ import annotations

from kiosk.cash import CashNews
from kiosk.i18n import _
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import OutcomeView, Panel, Row, Text, TouchButton
from kiosk.viewmodels import booth, common
from kiosk.viewmodels import kiosk as vm_kiosk
from pos.services import money_path
from pos.services.station import Station


class PayScreen(RoleScreen):
    screen_name = "pay"

    def build(self) -> None:
        self.choice: tuple[str, int] | None = None  # tickets: (serial, qty)
        self.package: booth.PackageVM | None = None  # or a device rental
        panel = Panel(orientation="vertical")
        self.title = Text(size=t.BIG, bold=True, halign="center", ident="pay-title")
        self.what = Text(size=t.LARGE, halign="center", ident="pay-what")
        self.credit = Text(size=t.LARGE, bold=True, halign="center", ident="pay-credit")
        self.prompt = Text(size=t.LARGE, halign="center", ident="pay-prompt")
        self.title.size_hint_y = 1.6  # type: ignore[assignment]
        self.prompt.size_hint_y = 1.4  # type: ignore[assignment]
        for widget in (self.title, self.what, self.credit, self.prompt):
            panel.add_widget(widget)
        panel.size_hint_y = 1.6
        self.body.add_widget(panel)
        self.outcome = OutcomeView(
            headline=t.TITLE, shout=t.TITLE, detail=t.BODY, ident="pay", cite=False
        )
        self.outcome.size_hint_y = 0.7
        self.body.add_widget(self.outcome)
        self.outcome.set_colour(common.BACKGROUND)
        row = Row()
        self.pay = TouchButton("", on_press=self._pay_from_credit, colour=common.OK, ident="pay-go")
        self.pay_attempt = money_path.new_attempt()  # the Pay button's, until its answer
        row.add_widget(self.pay)
        self.cancel = TouchButton("", on_press=self._cancel, colour=common.OFF, ident="pay-cancel")
        row.add_widget(self.cancel)
        self.body.add_widget(row)

    def choose(self, serial: str, qty: int) -> None:
        self.choice, self.package = (serial, qty), None
        self._quiet()
        self.front.go("pay")

    def choose_rental(self, package: booth.PackageVM) -> None:
        self.choice, self.package = None, package
        self._quiet()
        self.front.go("pay")

    def _quiet(self) -> None:
        """No news: the outcome area is the background (no empty box)."""
        self.outcome.clear("")
        self.outcome.set_colour(self.front.background)

    def load(self, st: Station) -> vm_kiosk.PayVM | None:
        player, choice, package = self.front.player, self.choice, self.package
        if player is not None and package is not None:
            return vm_kiosk.rental_pay_screen(st, player, package, takes_cash=self.front.takes_cash)
        if player is None or choice is None:
            return None
        return vm_kiosk.pay_screen(
            st, player, choice[0], choice[1], takes_cash=self.front.takes_cash
        )

    def render(self, vm: vm_kiosk.PayVM | None) -> None:
        if vm is None:
            self.front.go("idle")
            return
        self.title.text = vm.title
        self.what.text = vm.what
        self.credit.text = vm.credit_text
        self.prompt.text = vm.prompt
        self.cancel.text = _("Back")
        self.pay.text = vm.pay_label or _("Pay")
        self.pay.disabled = not vm.pay_label
        self.pay.opacity = 1 if vm.pay_label else 0
        cash = self.front.runtime.cash
        if cash is not None and vm.due > 0 and self.front.screens.current == "pay":
            cash.offer(vm.purchase)

    def on_leave(self, *_: object) -> None:
        cash = self.front.runtime.cash
        if cash is not None:
            cash.withdraw()

    def _pay_from_credit(self) -> None:
        vm, dispenser = self.vm, self.front.runtime.dispenser
        if vm is None or not vm.pay_label:
            return
        purchase, tap = vm.purchase, self.pay_attempt
        self.pay.disabled = True
        self.front.call(
            lambda st: vm_kiosk.pay_from_credit(st, purchase, dispenser, attempt_id=tap),
            self._paid,
            prints=True,
        )

    def _paid(self, outcome: common.Outcome) -> None:
        self.pay_attempt = money_path.new_attempt()
        self.pay.disabled = False
        self.front.show_result(outcome)

    def on_scan(self, text: str) -> None:
        """A voucher scanned here pays for the purchase shown."""
        player, choice, dispenser = self.front.player, self.choice, self.front.runtime.dispenser
        if player is None or choice is None:
            return
        code = text.strip()
        self.front.call(
            lambda st: vm_kiosk.buy_with_voucher(st, player, choice[0], choice[1], code, dispenser),
            self.front.show_result,
            prints=True,
        )

    def news(self, news: CashNews) -> None:
        if self.front.screens.current != "pay":
            if news.kind in ("sold", "jam") and news.outcome is not None:
                self.front.show_result(news.outcome)
            return
        if news.kind in ("sold", "jam") and news.outcome is not None:
            self.front.show_result(news.outcome)
            return
        if news.outcome is not None:
            self.outcome.show(news.outcome)
        if news.kind == "fault":
            self.outcome.show(
                common.Outcome(
                    False,
                    _("The bill acceptor is not working"),
                    _("Scan a voucher, or pay at the booth. Staff have been told."),
                    common.WARN,
                )
            )
        self.refresh()

    def _cancel(self) -> None:
        self.front.go("rent" if self.package is not None else "games")

    def forget(self) -> None:
        self.choice = self.package = None
        self.vm = None
        self._quiet()
