"""The games for sale at this kiosk, each with its flare and the winners left; buy a number of
tickets from the dispenser; rent a device, sign a seal line, check a ticket; Done forgets."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar

from kivy.clock import Clock
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from kiosk.i18n import _, language
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import ListBox, Panel, Row, Text, TouchButton
from kiosk.viewmodels import common
from kiosk.viewmodels import kiosk as vm_kiosk
from pos.services.station import Station

W = TypeVar("W", bound=Widget)


class GameTile(Panel):
    """A deal for sale: its name and price, its flare with the winners and tickets left (one
    line that wraps), and the buy buttons (or why not). Compact, so that two games show whole
    at 800x480. `show` updates it in place: no new widgets, no new textures."""

    def __init__(
        self, game: vm_kiosk.GameTileVM, buy: Callable[[str, int], None], prefix: str = "buy"
    ) -> None:
        super().__init__(orientation="vertical", size_hint_y=None)
        self.serial, self.can_buy = game.serial, game.can_buy
        self.title = Text(size=t.LARGE, bold=True, fit=True)
        self.flare = Text(size=t.BODY, fit=True)
        self.lines: list[Widget] = [self.title, self.flare]
        if game.can_buy:
            row = Row()
            for qty in vm_kiosk.QUANTITIES:
                row.add_widget(
                    two_lines(
                        TouchButton(
                            vm_kiosk.buy_label(qty, game.price_cents),
                            on_press=partial(buy, game.serial, qty),
                            colour=common.OK,
                            size=t.BODY,
                            ident=f"{prefix}-{game.serial}-{qty}",
                        )
                    )
                )
            self.lines.append(row)
        else:
            self.why = Text(size=t.BODY, colour=common.WARN, fit=True, ident="why-not")
            self.lines.append(self.why)
        for line in self.lines:
            self.add_widget(line)
            line.bind(height=self._fit)
        self.show(game)

    def show(self, game: vm_kiosk.GameTileVM) -> None:
        self.title.text = f"{game.name} · {game.price}"
        self.flare.text = f"{game.flare_text} · {game.winners_text} · {game.tickets_text}"
        if not game.can_buy:
            self.why.text = game.why_not
        self._fit()

    def _fit(self, *_: object) -> None:
        self.height = (
            sum(x.height for x in self.lines)
            + self.spacing * (len(self.lines) - 1)
            + theme.px(t.GAP) * 2
        )


class GamesScreen(RoleScreen):
    """Hello and the credit on one line; the games, each with its buy buttons; the other
    things a player can do and Done in one row at the foot. When the games do not all fit
    (three or more, or large text) the list slides, and a line under it says so."""

    screen_name = "games"

    def build(self) -> None:
        top = BoxLayout(orientation="horizontal", size_hint_y=None)
        self.greeting = Text(size=t.LARGE, bold=True, fit=True, ident="greeting")
        self.credit = Text(size=t.LARGE, bold=True, halign="right", ident="games-credit")
        top.add_widget(self.greeting)
        top.add_widget(self.credit)  # as tall as the greeting: one line each
        self.greeting.bind(height=top.setter("height"))
        top.height = self.greeting.height
        self.body.add_widget(top)
        self.games = ListBox(ident="games")
        self._tiles: list[GameTile] = []
        self._shape: object = None
        self.body.add_widget(self.games)
        self.more = translated(
            Text(
                size=t.BODY,
                bold=True,
                halign="center",
                colour=common.WARN,
                fit=True,
                ident="games-more",
            ),
            MORE_GAMES,
        )
        more = Clock.create_trigger(self._more_below)  # after the layout, not inside it
        self.games.box.bind(height=more)
        self.games.bind(height=more, scroll_y=more)
        actions = Row()
        for label, screen in (
            ("Pay with voucher", "kiosk-voucher"),
            ("Rent a device", "rent"),
            ("Sign a seal line", "kiosk-seal"),
            ("Check a ticket", "check"),
        ):
            actions.add_widget(
                translated(
                    wrapping(
                        TouchButton(
                            label,
                            on_press=partial(self.front.go, screen),
                            colour=common.INFO,
                            size=t.BODY,
                            ident=f"go-{screen}",
                        )
                    ),
                    label,
                )
            )
        done = translated(
            TouchButton("Done", on_press=self._done, colour=common.OFF, size=t.BODY, ident="done"),
            "Done",
        )
        done.size_hint_x = 0.7
        actions.add_widget(done)
        self.body.add_widget(actions)

    def _more_below(self, *_args: object) -> None:
        """The line under the list while some games are below it (slide it up to see them)."""
        below = self.games.box.height > self.games.height + 1 and self.games.scroll_y > 0.01
        if below and self.more.parent is None:
            self.more.text = _(MORE_GAMES)  # in the player's language now
            self.body.add_widget(self.more, index=1)  # under the list, over the actions
        elif not below and self.more.parent is not None:
            self.body.remove_widget(self.more)

    def load(self, st: Station) -> vm_kiosk.GamesVM | None:
        player = self.front.player
        return vm_kiosk.games_screen(st, player) if player is not None else None

    def render(self, vm: vm_kiosk.GamesVM | None) -> None:
        if vm is None:
            self.front.go("idle")
            return
        self.greeting.text = vm.greeting
        self.credit.text = vm.credit_text
        shape = (language(), vm.session_open, tuple((g.serial, g.can_buy) for g in vm.tiles))
        if shape == self._shape:  # the same games: update the tiles in place
            for tile, game in zip(self._tiles, vm.tiles, strict=True):
                tile.show(game)
            return
        self._shape = shape
        self._tiles = [GameTile(game, self._buy) for game in vm.tiles]
        rows: list[Widget] = list(self._tiles)
        if not vm.session_open:
            rows.insert(0, Text(vm.session_text, colour=common.WARN, fit=True))
        if not vm.tiles:
            rows.append(Text("No games are loaded in this kiosk right now.", fit=True))
        self.games.fill(rows)

    def forget(self) -> None:
        """Nothing of the player stays: the greeting and every purchase limit go (the tiles
        show only the deals, and are refreshed for the next player before they show)."""
        self.vm = None
        self.greeting.text = ""
        self.credit.text = ""
        for tile in self._tiles:
            if not tile.can_buy:
                tile.why.text = ""

    def _buy(self, serial: str, qty: int) -> None:
        """Price first: the pay screen shows what it costs before anything happens."""
        if self.front.player is None:
            return
        self.front.screens.get_screen("pay").choose(serial, qty)

    def _done(self) -> None:
        self.front.go("idle")


class ResultScreen(RoleScreen):
    """What the last command did, large: take your tickets, the voucher, or the refusal; and,
    as large, the credit still on the kiosk with what to do about it (buy more, or Done for a
    voucher). A card scanned here: the same player goes on buying; anyone else starts afresh
    and the last player's credit is kept for staff."""

    screen_name = "result"

    def build(self) -> None:
        from kiosk.ui.widgets import OutcomeView

        self.outcome = OutcomeView(
            headline=t.BIG, shout=t.BIG, detail=t.LARGE, ident="result", cite=False
        )
        self.body.add_widget(self.outcome)
        self.left = Panel(common.INFO, orientation="vertical", size_hint_y=None)
        self.left_headline = Text(
            size=t.BIG, bold=True, halign="center", fit=True, ident="result-credit"
        )
        self.left_how = Text(size=t.LARGE, halign="center", fit=True, ident="result-credit-how")
        for line in (self.left_headline, self.left_how):
            self.left.add_widget(line)
            line.bind(height=self._fit_left)
        self._fit_left()
        row = Row()
        row.add_widget(
            translated(
                TouchButton(
                    "Back to the games", on_press=lambda: self.front.go("games"), ident="more"
                ),
                "Back to the games",
            )
        )
        row.add_widget(
            translated(
                TouchButton(
                    "Done",
                    on_press=lambda: self.front.go("idle"),
                    colour=common.OFF,
                    ident="result-done",
                ),
                "Done",
            )
        )
        self.body.add_widget(row)

    def _fit_left(self, *_: object) -> None:
        lines = (self.left_headline, self.left_how)
        self.left.height = sum(x.height for x in lines) + theme.px(t.GAP) * (len(lines) + 1)

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
        self._say_left(None)
        self.refresh()  # the credit left, read after the outcome

    def load(self, st: Station) -> vm_kiosk.CreditLeftVM | None:
        return vm_kiosk.credit_left(st)

    def render(self, vm: vm_kiosk.CreditLeftVM | None) -> None:
        self._say_left(vm)

    def _say_left(self, vm: vm_kiosk.CreditLeftVM | None) -> None:
        # in large text both headlines, the same size, step down one so both fit at 800x480
        size = t.TITLE if vm is not None and float(theme.text_scale) > 1 else t.BIG
        self.outcome.headline.set_size(size)
        self.left_headline.set_size(size)
        self.left_headline.text = vm.headline if vm is not None else ""
        self.left_how.text = vm.how if vm is not None else ""
        if vm is not None and self.left.parent is None:
            self.body.add_widget(self.left, index=1)  # under the outcome, over the buttons
        elif vm is None and self.left.parent is not None:
            self.body.remove_widget(self.left)

    def on_scan(self, text: str) -> None:
        code = text.strip()
        if not code or vm_kiosk.looks_like_ticket(code):
            return
        self.front.call(
            lambda st: vm_kiosk.identify_and_list(st, code), partial(self._scanned_in, code)
        )

    def _scanned_in(
        self, code: str, answer: tuple[vm_kiosk.Identified, vm_kiosk.GamesVM | None]
    ) -> None:
        result, games = answer
        player = self.front.player
        if player is not None and result.player is not None and result.player.code == player.code:
            self.front.go("games", vm=games)  # the same player: on with their credit
            return
        self.front.walked_away()  # someone else: the last player's credit is kept for staff
        self.front.screens.get_screen("idle").on_scan(code)

    def forget(self) -> None:
        self.outcome.clear("")
        self._say_left(None)


def back_row(screen: RoleScreen) -> Row:
    """Back to the games, and Done (forget me): the foot of the kiosk's other screens."""
    row = Row()
    row.add_widget(
        translated(
            TouchButton("Back", on_press=lambda: screen.front.go("games"), ident="back"), "Back"
        )
    )
    row.add_widget(
        translated(
            TouchButton(
                "Done",
                on_press=lambda: screen.front.go("idle"),
                colour=common.OFF,
                ident="back-done",
            ),
            "Done",
        )
    )
    return row


MORE_GAMES = "More games below: slide the list up"


def wrapping(button: TouchButton) -> TouchButton:
    """A button whose words wrap onto a second line rather than being cut short (a long
    Spanish label, large text)."""
    button.shorten = False
    return button


def two_lines(button: TouchButton) -> TouchButton:
    """A buy button ("Buy 10 · $10.00") on one line when it fits, else its quantity over its
    price ("Comprar 10" / "$10.00"): never cut short, never a dot left at a line's end."""
    whole = button.text

    def choose(*_: object) -> None:
        from kivy.core.text import Label as CoreLabel

        probe = CoreLabel(text=whole, font_size=button.font_size, bold=button.bold)
        probe.refresh()
        width = probe.texture.size[0] if probe.texture else 0
        fits = width <= button.width - theme.px(8) - 2
        button.text = whole if fits else whole.replace(" · ", "\n")

    button.shorten = False
    button.bind(width=choose, font_size=choose)
    choose()
    return button


def translated(widget: W, english: str) -> W:
    """A widget whose text is `english` in the player's language (relabel() sets it again when
    the language changes)."""
    widget.english = english
    widget.text = _(english)
    return widget


def relabel(root: Widget) -> None:
    """Every translated widget under `root` in the player's language now."""
    for widget in root.walk():
        english = getattr(widget, "english", None)
        if english:
            widget.text = _(english)
