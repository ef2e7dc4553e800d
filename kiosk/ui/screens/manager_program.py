"""The game program at the manager station (issue #18): load a program from its file on a USB
stick (the program files found there, told apart from deals' flares by what is in them: tap
one, then Load), see the version in effect (its games in order, their patterns, paper and
prizes, the products on sale), change a game's price or prize, or the house rules: each change
is a new version, checked against the prize limits (LIMIT, G4, I7) like the first."""

from __future__ import annotations

from pathlib import Path

from kivy.uix.widget import Widget

from kiosk import stick_files
from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.theme import theme
from kiosk.ui.widgets import (
    Field,
    ListBox,
    MediaPicker,
    OutcomeBanner,
    Panel,
    Row,
    Text,
    TouchButton,
    fixed,
)
from kiosk.viewmodels import bingo, common
from pos.services.station import Station


class ProgramScreen(RoleScreen):
    screen_name = "program"

    def build(self) -> None:
        self.picked = ""  # the program file tapped on the stick, until Load takes it
        self.sticks = MediaPicker("program", self._picked, self._look, ident="usb-program")
        self.body.add_widget(self.sticks)
        top = Row()
        self.chosen = Text(
            "Tap a program file on the USB stick, then Load",
            size=t.SMALL,
            colour=common.MUTED,
            ident="program-chosen",
        )
        load = TouchButton("Load", on_press=self._load, colour=common.OK, ident="program-load")
        load.size_hint_x = 0.25
        # the raffles on the program: their drawing (stubs, numbers, claims) on its own screen
        drawing = TouchButton(
            "Raffle drawing",
            on_press=lambda: self.front.go("raffle-drawing"),
            colour=common.INFO,
            size=t.BODY,
            ident="open-raffle-drawing",
        )
        drawing.size_hint_x = 0.4
        top.add_widget(self.chosen)
        top.add_widget(load)
        top.add_widget(drawing)
        self.body.add_widget(top)
        self.banner = OutcomeBanner(ident="program")
        fixed(self.banner, 56)
        self.body.add_widget(self.banner)
        self.heading = Text(size=t.BODY, bold=True, one_line=True, ident="program-heading")
        fixed(self.heading, 26)
        self.body.add_widget(self.heading)
        self.rows = ListBox(ident="program-games")
        self.body.add_widget(self.rows)
        self.banner.clear("The game program in effect")

    def on_pre_enter(self, *_: object) -> None:
        self._look()
        super().on_pre_enter()

    def _look(self) -> None:
        self.sticks.show(stick_files.find(stick_files.PROGRAM, self.front.media_roots()))
        if self.picked and self.picked not in {str(f.path) for f in self.sticks.found}:
            self._picked("")

    def _picked(self, path: str) -> None:
        self.picked = path
        self.chosen.text = (
            f"Load {Path(path).name}?" if path else "Tap a program file on the USB stick, then Load"
        )
        self.chosen.set_colour(common.TEXT if path else common.MUTED)

    def load(self, st: Station) -> bingo.ProgramVM:
        return bingo.program_screen(st)

    def render(self, vm: bingo.ProgramVM) -> None:
        self.heading.text = vm.heading
        rows = [self._game(vm, game) for game in vm.games]
        if vm.name is not None:
            rows.append(self._house_rules(vm))
            sale = Text(f"On sale: {vm.products}", size=t.SMALL, fit=True)
            rows.append(_fitted(Panel(orientation="vertical", size_hint_y=None), [sale]))
        self.rows.fill(rows)

    def _game(self, vm: bingo.ProgramVM, game: bingo.GameRowVM) -> Panel:
        panel = Panel(orientation="vertical", size_hint_y=None, ident=f"program-game-{game.number}")
        title = Text(f"{game.number}. {game.title} · {game.kind}", size=t.BODY, bold=True, fit=True)
        detail = Text(game.detail, size=t.SMALL, colour=common.MUTED, fit=True)
        parts: list[Widget] = [title, detail]
        if game.fields:
            edits = Row()
            fields: dict[str, Field] = {}
            for key, label, value in game.fields:
                field = Field(label, ident=f"game-{game.number}-{key}")
                field.text = value
                fields[key] = field
                edits.add_widget(Text(f"{label} $", size=t.SMALL, halign="right", size_hint_x=0.45))
                edits.add_widget(field)
            was = {key: value for key, _, value in game.fields}
            save = TouchButton(
                "Save",
                on_press=lambda: self._save(vm, game.number, fields, was),
                colour=common.INFO,
                size=t.BODY,
                ident=f"save-game-{game.number}",
                size_hint_x=0.5,
            )
            edits.add_widget(save)
            parts.append(edits)
        return _fitted(panel, parts)

    def _house_rules(self, vm: bingo.ProgramVM) -> Panel:
        panel = Panel(orientation="vertical", size_hint_y=None, ident="program-house-rules")
        shown = Text(
            f"House rules: {vm.house_rules or '(none on the program)'}", size=t.SMALL, fit=True
        )
        edits = Row()
        text = Field("New house rules text", ident="house-rules-text")
        post = TouchButton(
            "Put on program",
            on_press=lambda: self._rules(vm, text.text),
            colour=common.INFO,
            size=t.BODY,
            ident="house-rules-save",
            size_hint_x=0.5,
        )
        edits.add_widget(text)
        edits.add_widget(post)
        return _fitted(panel, [shown, edits])

    def _load(self) -> None:
        if not self.picked:
            self.show(
                common.Outcome(
                    False,
                    "Tap a program file first",
                    "The program files on the USB stick are above: tap one, then Load.",
                    common.WARN,
                )
            )
            return
        path, badge = self.picked, self.operator
        self.front.call(lambda st: bingo.load_program(st, path, badge), self._done)

    def _save(
        self, vm: bingo.ProgramVM, number: int, fields: dict[str, Field], was: dict[str, str]
    ) -> None:
        name, badge = vm.name or "", self.operator
        values = {key: field.text for key, field in fields.items()}
        self.front.call(
            lambda st: bingo.edit_game(st, name, number, values, was, badge), self._done
        )

    def _rules(self, vm: bingo.ProgramVM, text: str) -> None:
        name, badge = vm.name or "", self.operator
        self.front.call(lambda st: bingo.set_house_rules(st, name, text, badge), self._done)

    def _done(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        if outcome.ok and outcome.headline.startswith("PROGRAM"):
            self._picked("")
            self._look()
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.banner.show(outcome)


def _fitted(panel: Panel, parts: list[Widget]) -> Panel:
    """`panel` holding `parts`, as tall as they are."""
    for part in parts:
        panel.add_widget(part)

    def fit(*_: object) -> None:
        panel.height = sum(p.height for p in parts) + theme.px(t.GAP) * (len(parts) + 1)

    for part in parts:
        part.bind(height=fit)
    fit()
    return panel
