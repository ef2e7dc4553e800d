"""The bingo session at the booth (issue #18): packs and paper sold at the door by audit number,
raffle tickets (each printed as its stub and the buyer's part), and bingo prizes paid: tap the
game won, the prize and the winners it is split between, PAY."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from kivy.uix.behaviors import ButtonBehavior

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.stepper import Stepper
from kiosk.ui.theme import theme
from kiosk.ui.widgets import (
    Box,
    Field,
    ListBox,
    OutcomeBanner,
    Panel,
    Row,
    Text,
    TouchButton,
    fixed,
)
from kiosk.viewmodels import bingo, common
from pos.services import money_path
from pos.services.station import Station

MAX_WINNERS = 20  # the most winners the + key splits one game's prize between


class Card(ButtonBehavior, Panel):  # type: ignore[misc]
    """A list entry to tap: a product to sell, a game whose prize is paid."""

    def __init__(self, lines: list[tuple[str, float, bool]], ident: str, colour: str,
                 on_tap: Callable[[], None]) -> None:  # fmt: skip
        super().__init__(colour=colour, orientation="vertical", size_hint_y=None, ident=ident)
        self._on_tap = on_tap
        self.lines = [Text(text, size=size, bold=bold, fit=True) for text, size, bold in lines]
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
        self._on_tap()


class BingoScreen(RoleScreen):
    screen_name = "bingo"

    def build(self) -> None:
        self.chosen: bingo.PrizeGameVM | None = None
        # Each write button's attempt id, kept until its answer is shown: a double tap, or a
        # tap while the first is still running, records once.
        self.sell_attempt = money_path.new_attempt()
        self.pay_attempt = money_path.new_attempt()
        self.banner = OutcomeBanner(ident="bingo")
        fixed(self.banner, 72)  # the outcome and its plain reason: three short lines
        self.body.add_widget(self.banner)
        columns = Box("horizontal")
        # selling: packs, paper, raffle tickets
        sell = Panel(orientation="vertical", size_hint_x=0.55)
        inputs = Row()
        self.qty = Stepper(lambda n: f"Qty {n}", ident="bingo-qty", high=500, size_hint_x=0.45)
        self.buyer = Field("Player card (optional)", ident="bingo-buyer", size_hint_x=0.55)
        inputs.add_widget(self.qty)
        inputs.add_widget(self.buyer)
        self.items = ListBox(ident="bingo-items")
        # the raffles' drawing: the stubs counted, the numbers drawn, the prizes claimed
        drawing = TouchButton(
            "Raffle drawing",
            on_press=lambda: self.front.go("raffle-drawing"),
            colour=common.INFO,
            size=t.BODY,
            ident="open-raffle-drawing",
        )
        sell.add_widget(inputs)
        sell.add_widget(self.items)
        sell.add_widget(drawing)
        # paying a prize
        pay = Panel(orientation="vertical", size_hint_x=0.45)
        self.program = Text(size=t.SMALL, colour=common.MUTED, one_line=True, ident="program")
        fixed(self.program, 22)
        self.games = ListBox(ident="prize-games")
        amounts = Row()
        self.amount = Field("Prize $", ident="prize-amount", size_hint_x=0.4)
        self.winners = Stepper(
            lambda n: f"{n} winner{'s' if n != 1 else ''}",
            ident="prize-winners",
            high=MAX_WINNERS,
            size=t.SMALL,
            size_hint_x=0.6,
        )
        amounts.add_widget(self.amount)
        amounts.add_widget(self.winners)
        self.pay = TouchButton("PAY PRIZE", on_press=self._pay, colour=common.OK, ident="pay-prize")
        for widget in (self.program, self.games, amounts, self.pay):
            pay.add_widget(widget)
        self.pay_panel = pay
        # asked for in place of the games when a prize needs the winner's W-2G data
        self.identity = Box("vertical")
        self.id_fields = {
            key: Field(hint, ident=f"w2g-{key}")
            for key, hint in (
                ("name", "Winner's name"),
                ("address", "Address"),
                ("tin", "Taxpayer ID"),
                ("id", "Photo ID shown"),
            )
        }
        for pair in (("name", "tin"), ("address", "id")):
            row = Row()
            for key in pair:
                row.add_widget(self.id_fields[key])
            self.identity.add_widget(row)
        self.identity.add_widget(
            Text("W-2G: the winner's data, sealed to the hall's key", size=t.SMALL, fit=True)
        )
        columns.add_widget(sell)
        columns.add_widget(pay)
        self.body.add_widget(columns)
        self.banner.clear("Tap a pack, paper or raffle to sell; a game to pay its prize")

    def load(self, st: Station) -> bingo.BingoBoothVM:
        return bingo.booth_screen(st)

    def render(self, vm: bingo.BingoBoothVM) -> None:
        self.program.text = ("" if vm.session_open else "No session open · ") + vm.program
        if self.identity.parent is not None and self.chosen is not None:
            self.program.text = f"W-2G for game {self.chosen.text}"
        cards = [
            Card(
                [(item.title, t.BODY, True), (item.detail, t.SMALL, False)],
                f"sell-{item.ident}",
                common.PANEL_HI,
                partial(self._sell, item),
            )
            for item in vm.items
        ]
        self.items.fill(cards or [Text("Nothing on sale: the manager receives paper", fit=True)])
        if self.chosen is not None and self.chosen not in vm.games:
            self.chosen = None
        self.games.fill(
            [
                Card(
                    [(game.text, t.BODY, game == self.chosen)],
                    game.ident,
                    common.INFO if game == self.chosen else common.PANEL_HI,
                    partial(self._choose, game),
                )
                for game in vm.games
            ]
            or [Text("No prizes to pay: no game program", fit=True)]
        )

    def _asking(self, ask: bool) -> None:
        """Show the W-2G fields in place of the games, or the games again."""
        showing = self.identity.parent is not None
        if ask == showing:
            return
        old, new = (self.games, self.identity) if ask else (self.identity, self.games)
        index = self.pay_panel.children.index(old)
        self.pay_panel.remove_widget(old)
        self.pay_panel.add_widget(new, index=index)
        if not ask:
            for field in self.id_fields.values():
                field.text = ""

    def _choose(self, game: bingo.PrizeGameVM) -> None:
        self._asking(False)
        self.chosen = game
        self.amount.text = game.prize
        self.winners.reset()
        if self.vm is not None:
            self.render(self.vm)

    def _sell(self, item: bingo.SaleItemVM) -> None:
        qty, buyer, badge, tap = self.qty.text, self.buyer.text, self.operator, self.sell_attempt
        self.front.call(
            lambda st: bingo.sell_item(st, item, qty, buyer, badge, attempt_id=tap),
            self._sold,
            prints=True,
        )

    def _sold(self, outcome: common.Outcome) -> None:
        self.sell_attempt = money_path.new_attempt()
        self.show(outcome)
        if outcome.ok:
            self.qty.reset()
            self.buyer.text = ""
        self.refresh()

    def _pay(self) -> None:
        game, amount, winners = self.chosen, self.amount.text, self.winners.text
        badge, ids = self.operator, {k: f.text for k, f in self.id_fields.items()}
        identity = bingo.Identity(ids["name"], ids["address"], ids["tin"], ids["id"])
        tap = self.pay_attempt
        self.pay.disabled = True
        self.front.call(
            lambda st: bingo.pay_prize(st, game, amount, winners, badge, identity, attempt_id=tap),
            self._paid,
            prints=True,
        )

    def _paid(self, outcome: common.Outcome) -> None:
        self.pay_attempt = money_path.new_attempt()
        self.pay.disabled = False
        self.show(outcome)
        self._asking(bingo.needs_identity(outcome))
        if outcome.ok:
            self.chosen = None
            self.amount.text = ""
            self.winners.reset()
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        """The outcome and its plain reason: the rule's legal citation stays with the refusal
        (the staff's rule list, the record), not on the banner a volunteer reads mid-game."""
        self.banner.show(replace(outcome, refusal=None))
