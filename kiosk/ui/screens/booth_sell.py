"""The booth's sale screen: bins with their deals, the quantity pad, the buyer's code when the
house asks for it, cash tendered and change due, SELL, and the drawer."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from kivy.uix.behaviors import ButtonBehavior

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import (
    Box,
    Field,
    FitText,
    Grid,
    ListBox,
    NumberPad,
    OutcomeBanner,
    Panel,
    Text,
    TouchButton,
    fixed,
)
from kiosk.viewmodels import booth, common
from pos.services.station import Station


class BinCard(ButtonBehavior, Panel):  # type: ignore[misc]
    """A bin and its deal: tap to sell from it."""

    def __init__(self, vm: booth.BinVM, selected: bool, on_choose: Any) -> None:
        colour = common.INFO if selected else common.PANEL_HI
        super().__init__(
            colour=colour, orientation="vertical", size_hint_y=None, ident=f"bin-{vm.serial}"
        )
        self.vm = vm
        self._on_choose = on_choose
        self.lines = [
            Text(f"{vm.bin} · {vm.name} · {vm.price}", size=t.BODY, bold=True, fit=True),
            Text(vm.tickets_text, size=t.SMALL, fit=True),
            Text(f"Winners left: {vm.winners_text}", size=t.SMALL, fit=True),
        ]
        for line in self.lines:
            self.add_widget(line)
            line.bind(height=self._fit)
        self._fit()

    def _fit(self, *_: object) -> None:
        self.height = max(
            theme.px(t.MIN_TARGET),
            sum(x.height for x in self.lines) + theme.px(t.GAP) * (len(self.lines) + 1),
        )

    def on_release(self) -> None:
        self._on_choose(self.vm.serial)


class SellScreen(RoleScreen):
    screen_name = "sell"

    def build(self) -> None:
        self.draft = booth.SaleDraft()
        self.banner = OutcomeBanner(ident="sale")
        fixed(self.banner, 60)
        self.body.add_widget(self.banner)
        columns = Box("horizontal")
        # bins
        left = Box("vertical", size_hint_x=0.37)
        self.session = Text(size=t.SMALL, colour=common.MUTED, one_line=True, size_hint_y=None)
        fixed(self.session, 22)
        self.bins = ListBox(ident="bins")
        left.add_widget(self.session)
        left.add_widget(self.bins)
        # quantity
        middle = Box("vertical", size_hint_x=0.29)
        self.qty = Text(size=t.TITLE, bold=True, halign="center", size_hint_y=None, ident="qty")
        fixed(self.qty, 40)
        middle.add_widget(self.qty)
        middle.add_widget(NumberPad(self._key))
        middle.add_widget(
            TouchButton("Open drawer", on_press=self._drawer, colour=common.OFF, ident="drawer")
        )
        # total, buyer, cash, sell
        right = Box("vertical", size_hint_x=0.34)
        self.total = Text(size=t.LARGE, bold=True, size_hint_y=None, one_line=True, ident="total")
        fixed(self.total, 40)
        self.buyer = Field("Buyer card or ID", on_enter=self._buyer_entered, ident="buyer")
        self.buyer.bind(text=lambda *_: self._buyer_typed())
        cash = fixed(Grid(cols=3), 2 * t.MIN_TARGET + t.GAP)
        for cents_ in booth.TENDER_NOTES:
            cash.add_widget(
                TouchButton(
                    common.money(cents_).removesuffix(".00"),
                    on_press=partial(self._tender, cents_),
                    colour=common.PANEL_HI,
                    height=t.MIN_TARGET,
                    size_hint_y=1,
                    ident=f"cash-{cents_}",
                )
            )
        cash.add_widget(
            TouchButton(
                "Exact",
                on_press=lambda: self._tender(None),
                colour=common.OFF,
                size_hint_y=1,
                ident="cash-exact",
            )
        )
        self.info = Text(size=t.SMALL, ident="sell-info")
        self.sell_button = TouchButton(
            "SELL", on_press=self._sell, colour=common.OK, size=t.TITLE, ident="sell"
        )
        for widget in (self.total, self.buyer, cash, self.info, self.sell_button):
            right.add_widget(widget)
        self.sale_column = right
        self.sale_widgets = list(reversed(right.children))
        self.change = Panel(common.PANEL, orientation="vertical", ident="change-panel")
        self.change_title = Text(
            "CHANGE DUE", size=t.TITLE, bold=True, halign="center", ident="change-title"
        )
        self.change_amount = FitText(
            size=t.HUGE, bold=True, colour=common.CHANGE_FG, ident="change-due"
        )
        self.change_detail = Text(size=t.BODY, halign="center", ident="change-detail")
        self.change_title.size_hint_y = 0.22  # type: ignore[assignment]
        self.change_amount.size_hint_y = 0.4  # type: ignore[assignment]
        self.change_detail.size_hint_y = 0.18  # type: ignore[assignment]
        for widget in (
            self.change_title,
            self.change_amount,
            self.change_detail,
            TouchButton(
                "Next sale", on_press=self._next_sale, colour=common.INFO, ident="next-sale"
            ),
        ):
            self.change.add_widget(widget)
        for column in (left, middle, right):
            columns.add_widget(column)
        self.body.add_widget(columns)
        self.banner.clear("Tap a bin, enter the quantity, SELL")

    def load(self, st: Station) -> booth.SellScreenVM:
        return booth.sell_screen(st)

    def render(self, vm: booth.SellScreenVM) -> None:
        if self.draft.serial is None and vm.bins:
            self.draft = self.draft.choose(vm.bins[0].serial)
        self.session.text = vm.session_text
        self.bins.fill(BinCard(b, b.serial == self.draft.serial, self._choose) for b in vm.bins)
        self._show_draft()

    def _show_draft(self) -> None:
        if self.vm is None:
            return
        view = booth.draft_view(self.draft, self.vm)
        self.qty.text = f"Qty {view.qty_text}"
        self.total.text = view.total_text
        self.buyer.hint_text = view.buyer_label
        lines = [x for x in (view.deal_text, view.tendered_text, view.change_text, view.hint) if x]
        self.info.text = "\n".join(lines)
        self.info.set_colour(view.change_colour if view.change_text else common.MUTED)
        self.sell_button.text = view.sell_label
        self.sell_button.disabled = not view.sell_enabled

    # -- input ----------------------------------------------------------------------------------

    def _choose(self, serial: str) -> None:
        self._show_change(None)
        self.draft = self.draft.choose(serial)
        self._render_trigger()

    def _key(self, key: str) -> None:
        self._show_change(None)
        self.draft = self.draft.key(key)
        self._show_draft()

    def _tender(self, amount: int | None) -> None:
        self.draft = self.draft.tender(amount)
        self._show_draft()

    def _buyer_typed(self) -> None:
        self.draft = replace(self.draft, buyer=self.buyer.text)
        self._show_draft()

    def _buyer_entered(self, text: str) -> None:
        self.buyer.text = text.strip()

    def on_scan(self, text: str) -> None:
        """At the sale screen a scan is the buyer's card, badge or ID; a winning ticket goes
        to Winners, which asks "Pay this winner?"; anything unreadable is amber."""
        self.front.call(lambda st: booth.sell_scan(st, text), self._scanned)

    def _scanned(self, scan: booth.SellScan) -> None:
        if scan.kind == "ticket":
            self.front.go("winners")
            self.front.screens.get_screen("winners").ask(scan.code)
        elif scan.kind == "unreadable":
            self.show(
                common.Outcome(
                    False,
                    booth.CHECK_CODE,
                    f"{scan.code[:40]!r} is not a buyer's card, badge, ID or a ticket.",
                    common.WARN,
                )
            )
        else:
            self.buyer.text = scan.code

    # -- commands -------------------------------------------------------------------------------

    def _sell(self) -> None:
        draft, badge = self.draft, self.operator
        self.sell_button.disabled = True
        self.front.call(lambda st: booth.sell(st, draft, badge), self._sold, prints=True)

    def _show_change(self, change: booth.ChangeVM | None) -> None:
        """After a cash sale the change due takes the sale column, in the largest type on the
        screen, until the next sale begins (any key, bin or Next sale)."""
        showing = self.change.parent is not None
        if change is None:
            if showing:
                self.sale_column.clear_widgets()
                for widget in self.sale_widgets:
                    self.sale_column.add_widget(widget)
            return
        self.change_amount.text = change.amount
        self.change_detail.text = change.detail
        if not showing:
            self.sale_column.clear_widgets()
            self.sale_column.add_widget(self.change)

    def _next_sale(self) -> None:
        self._show_change(None)

    def _sold(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        self._show_change(booth.change_due(outcome, self.draft.tendered))
        if outcome.ok:
            self.draft = self.draft.done()
            self.buyer.text = ""
        else:
            self.draft = self.draft.answered()
        self.refresh()

    def _drawer(self) -> None:
        self.front.kick_drawer(lambda message: self.show(booth.drawer_outcome(message)))

    def show(self, outcome: common.Outcome) -> None:
        self.banner.show(outcome)
