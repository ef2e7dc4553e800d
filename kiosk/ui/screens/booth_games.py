"""The session's own games at the booth (issue #18): decision bingo entries, fee rounds and the
prize announced before it is paid (G2-G5, shown large); a progressive game won within its calls
or not (I5, I6); the treasure chest's entries, its participant chosen through another game (H3)
and the keys' outcome (H5). Tap a game on the left; its fields and actions show on the right."""

from __future__ import annotations

from functools import partial

from kivy.input.motionevent import MotionEvent

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.screens.booth_bingo import Card
from kiosk.ui.two_tap import TwoTaps, window_pos
from kiosk.ui.widgets import Box, Field, Grid, ListBox, OutcomeView, Panel, Text, TouchButton
from kiosk.viewmodels import bingo, common
from pos.services import money_path
from pos.services.station import Station


class GamesScreen(RoleScreen):
    screen_name = "session-games"

    def build(self) -> None:
        self.chosen: int | None = None
        self.fields: dict[str, Field] = {}
        self.attempt = money_path.new_attempt()  # the write button's, until its answer
        self.taps = TwoTaps()  # "Not won", "Not opened": final, so recorded on a second tap
        self.taps.listeners.append(self._armed)
        columns = Box("horizontal")
        left = Box("vertical", size_hint_x=0.36)
        # wraps: "No game program yet: the manager defines it" is wider than the column
        self.program = Text(size=t.SMALL, colour=common.MUTED, fit=True, ident="games-program")
        self.games = ListBox(ident="session-games")
        left.add_widget(self.program)
        left.add_widget(self.games)
        self.panel = Panel(orientation="vertical", size_hint_x=0.64)
        self.status = Text(size=t.SMALL, fit=True, ident="game-status")
        self.inputs = Grid(cols=2, size_hint_y=None)
        self.actions = Grid(cols=2, size_hint_y=None)
        for grid in (self.inputs, self.actions):  # as tall as their rows of fields or buttons
            grid.bind(minimum_height=grid.setter("height"))
        # the plain reason, not the law it cites (the citation stays with the refusal)
        self.outcome = OutcomeView(
            headline=t.LARGE, shout=t.BIG, detail=t.SMALL, ident="game", cite=False
        )
        for widget in (self.status, self.inputs, self.actions, self.outcome):
            self.panel.add_widget(widget)
        columns.add_widget(left)
        columns.add_widget(self.panel)
        self.body.add_widget(columns)
        self.outcome.clear("What the game records shows here")

    def load(self, st: Station) -> bingo.GamesVM:
        return bingo.games_screen(st)

    def render(self, vm: bingo.GamesVM) -> None:
        self.program.text = vm.program
        if self.chosen not in {g.number for g in vm.games}:
            self.chosen = vm.games[0].number if vm.games else None
        self.games.fill(
            [
                Card(
                    [(game.text, t.BODY, game.number == self.chosen)],
                    game.ident,
                    common.INFO if game.number == self.chosen else common.PANEL_HI,
                    partial(self._choose, game.number),
                )
                for game in vm.games
            ]
            or [Text("No decision, progressive or treasure chest game to record", fit=True)]
        )
        game = next((g for g in vm.games if g.number == self.chosen), None)
        self._show_game(game)

    def _show_game(self, game: bingo.SessionGameVM | None) -> None:
        self.taps.cancel()
        kept = {key: field.text for key, field in self.fields.items()}
        self.status.text = game.status if game else ""
        self.inputs.clear_widgets()
        self.actions.clear_widgets()
        self.fields = {}
        if game is None:
            return
        for key, hint in game.inputs:
            field = Field(hint, ident=f"game-input-{key}")
            field.text = kept.get(key, "")
            self.fields[key] = field
            self.inputs.add_widget(field)
        self.actions.cols = max(1, min(4, len(game.actions)))  # one row of buttons
        for action in game.actions:
            button = TouchButton(
                action.label, colour=action.colour, size=t.BODY, ident=f"game-{action.name}"
            )
            button.bind(on_release=partial(self._tapped, game, action))
            self.actions.add_widget(button)

    def _choose(self, number: int) -> None:
        if number != self.chosen:
            self.fields = {}
        self.chosen = number
        if self.vm is not None:
            self.render(self.vm)

    def _tapped(
        self, game: bingo.SessionGameVM, action: bingo.ActionVM, button: TouchButton
    ) -> None:
        if action.confirm and not self.taps.confirmed(button, action.name, action.confirm):
            return
        self._act(game, action.name)

    def _armed(self, armed: bool) -> None:
        if armed:
            self.outcome.clear("Tap it again to record it; touch anywhere else to take it back")
        else:
            self.outcome.clear("Taken back: nothing recorded")

    def on_touch_down(self, touch: MotionEvent) -> bool:
        self.taps.touched(window_pos(self, touch))
        return bool(super().on_touch_down(touch))

    def on_leave(self, *_: object) -> None:
        self.taps.cancel()

    def _act(self, game: bingo.SessionGameVM, action: str) -> None:
        values, badge = {k: f.text for k, f in self.fields.items()}, self.operator
        tap = self.attempt
        self.front.call(
            lambda st: bingo.game_action(st, game, action, values, badge, attempt_id=tap),
            self._done,
            prints=True,
        )

    def _done(self, outcome: common.Outcome) -> None:
        self.attempt = money_path.new_attempt()
        self.show(outcome)
        if outcome.ok:
            for field in self.fields.values():
                field.text = ""
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
