"""The raffle drawing (11VAC15-40-60 F), reached from the booth's Bingo tab and the manager's
Program tab: choose the raffle; count the stubs into the receptacle on the keypad, before the
witnesses (tapped from the staff list or scanned by badge), refused unless they match the
tickets sold (F1); then, prize by prize in drawing order, the number read from the stub drawn
(refused unless sold and not voided, F1), the winning number shown large for the room; then the
claim with the code on the buyer's part, and the winner's W-2G data where the prize needs it.

A raffle held by another station is shown to read only, with the station that holds it."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from kivy.uix.widget import Widget

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.screens.booth_bingo import Card
from kiosk.ui.theme import theme
from kiosk.ui.widgets import (
    Box,
    Field,
    FitText,
    ListBox,
    NumberPad,
    OutcomeBanner,
    Panel,
    Row,
    Text,
    TouchButton,
    fixed,
)
from kiosk.viewmodels import common
from kiosk.viewmodels import raffle as vm_raffle
from pos.services.station import Station

MAX_DIGITS = 9


class Fit(FitText):
    """FitText that keeps clear of its label's own padding and wrapping margin (both), so the
    one line it fits never wraps onto a second."""

    def _room(self) -> tuple[float, float]:
        width = self.width - 4 * theme.px(4) - theme.px(4)
        return max(1.0, width), max(1.0, self.height - 3 * theme.px(2))


class RaffleDrawingScreen(RoleScreen):
    screen_name = "raffle-drawing"

    def build(self) -> None:
        self.chosen: str | None = None  # the raffle on screen, by id
        self.mode = "step"  # "step": as the raffle stands; "winner": a number just drawn;
        self.place = 0  # "claim": claiming prize `place`
        self.winner: common.Outcome | None = None
        self.typed = ""  # the keypad's digits: the stub count, or the number drawn
        self.witnesses: list[str] = []  # badges, in the order chosen
        self.asked = False  # the claim was refused for want of the W-2G data
        self.banner = OutcomeBanner(ident="raffle")
        fixed(self.banner, 72)  # a refusal's two short lines and the rule it cites
        self.body.add_widget(self.banner)
        self.stage = Box("horizontal")
        self.body.add_widget(self.stage)
        self._build_choose()
        self._build_raffle()
        self._build_steps()
        self.stage.add_widget(self.choose)
        self.banner.clear("Tap the raffle to draw")

    # -- building (once) ------------------------------------------------------------------------

    def _build_choose(self) -> None:
        self.choose = Panel(orientation="vertical", ident="raffle-choose")
        heading = Text("Raffle drawing: choose the raffle", size=t.BODY, bold=True, one_line=True)
        fixed(heading, 28)
        self.raffles = ListBox(ident="raffles")
        self.choose.add_widget(heading)
        self.choose.add_widget(self.raffles)

    def _build_raffle(self) -> None:
        self.facts = Panel(orientation="vertical", size_hint_x=0.38)
        self.details = ListBox(ident="raffle-details")
        back = TouchButton(
            "All raffles",
            on_press=self._all,
            colour=common.OFF,
            size=t.BODY,
            ident="raffle-all",
        )
        self.facts.add_widget(self.details)
        self.facts.add_widget(back)
        self.steps = Panel(orientation="vertical", size_hint_x=0.62)
        self.step_title = Fit(size=t.BODY, bold=True, halign="left", ident="step-title")
        fixed(self.step_title, 28)
        self.content = Box("horizontal")
        self.steps.add_widget(self.step_title)
        self.steps.add_widget(self.content)

    def _build_steps(self) -> None:
        # the keypad, for the stub count and for each number drawn
        self.pad_column = Box("vertical", size_hint_x=0.46)
        self.display = Fit(size=t.TITLE, bold=True, ident="typed")
        fixed(self.display, 40)
        self.pad_column.add_widget(self.display)
        self.pad_column.add_widget(NumberPad(self._key, ident="raffle-pad"))
        # the stubs: the witnesses and the count
        self.stubs_column = Box("vertical", size_hint_x=0.54)
        caption = Text("Tap or scan the witnesses", size=t.SMALL, one_line=True)
        fixed(caption, 26)
        self.staff = ListBox(ident="witnesses")
        self.count_button = TouchButton(
            "Count stubs in",
            on_press=self._count,
            colour=common.OK,
            size=t.BODY,
            ident="count-stubs",
        )
        for widget in (caption, self.staff, self.count_button):
            self.stubs_column.add_widget(widget)
        # a prize to draw
        self.draw_column = Box("vertical", size_hint_x=0.54)
        self.draw_hint = Text(size=t.BODY, fit=True, ident="draw-hint")
        self.draw_button = TouchButton(
            "Draw", on_press=self._draw, colour=common.OK, ident="draw-number"
        )
        self.draw_column.add_widget(self.draw_hint)
        self.draw_column.add_widget(Widget())
        self.draw_column.add_widget(self.draw_button)
        # the winning number, large for the room
        self.winner_column = Box("vertical")
        self.number = Fit(size=150, bold=True, ident="winning-number")
        self.wins = Text(size=t.LARGE, halign="center", fit=True, ident="winning-prize")
        self.winner_buttons = Row()
        self.claim_now = TouchButton(
            "Claim it now", on_press=self._claim_winner, colour=common.OK, ident="claim-winner"
        )
        self.draw_next = TouchButton(
            "Draw the next prize", on_press=self._next, colour=common.INFO, ident="draw-next"
        )
        for widget in (self.number, self.wins, self.winner_buttons):
            self.winner_column.add_widget(widget)
        # a claim: the buyer's part's code, and the W-2G data where needed
        self.claim_column = Box("vertical")
        code_row = Row()
        self.code = Field("Scan or type the ticket's code", ident="claim-code", size_hint_x=0.64)
        code_row.add_widget(self.code)
        code_row.add_widget(
            TouchButton(
                "Claim", on_press=self._claim, colour=common.OK, ident="claim", size_hint_x=0.36
            )
        )
        self.claim_hint = Text(size=t.SMALL, fit=True, ident="claim-hint")
        self.identity = Box("vertical", size_hint_y=None)
        self.id_fields = {
            key: Field(hint, ident=f"w2g-{key}")
            for key, hint in (
                ("name", "Winner's name"),
                ("address", "Address"),
                ("tin", "Taxpayer ID"),
                ("id", "Photo ID shown"),
            )
        }
        rows: list[Widget] = []
        for pair in (("name", "tin"), ("address", "id")):
            row = Row()
            for key in pair:
                row.add_widget(self.id_fields[key])
            rows.append(row)
        sealed = Text("W-2G: the winner's data, sealed to the hall's key", size=t.SMALL, fit=True)
        rows.append(sealed)
        for row in rows:
            self.identity.add_widget(row)

        def fit(*_: object) -> None:
            self.identity.height = sum(r.height for r in rows) + theme.px(t.GAP) * len(rows)

        for row in rows:
            row.bind(height=fit)
        fit()
        for widget in (code_row, self.claim_hint, self.identity):
            self.claim_column.add_widget(widget)
        self.claim_column.add_widget(Widget())
        # every prize claimed, or a raffle held elsewhere
        self.note = Text(size=t.BODY, fit=True, ident="raffle-note")
        self.outcomes = ListBox(ident="raffle-outcomes")

    # -- loading and showing --------------------------------------------------------------------

    def load(self, st: Station) -> vm_raffle.DrawingVM:
        return vm_raffle.drawing_screen(st, self.operator)

    def render(self, vm: vm_raffle.DrawingVM) -> None:
        chosen = vm.find(self.chosen)
        if chosen is None:
            self.chosen = None
            self._stage(self.choose)
            self.raffles.fill(
                [self._raffle_card(r) for r in vm.raffles]
                or [Text(vm.empty_text, colour=common.MUTED, fit=True, ident="no-raffles")]
            )
            return
        self._stage(self.facts, self.steps)
        self.details.fill(self._details(chosen))
        self._show_step(vm, chosen)

    def _stage(self, *widgets: Widget) -> None:
        if list(reversed(self.stage.children)) == list(widgets):
            return
        self.stage.clear_widgets()
        for widget in widgets:
            self.stage.add_widget(widget)

    def _raffle_card(self, r: vm_raffle.RaffleVM) -> Card:
        prizes = "Prizes: " + "; ".join(f"{p.place}. {p.description} {p.value}" for p in r.prizes)
        return Card(
            [(r.title, t.BODY, True), (r.summary, t.SMALL, False), (prizes, t.SMALL, False)],
            r.ident,
            common.PANEL_HI if r.held_here else common.BACKGROUND,
            partial(self._choose, r.raffle),
        )

    def _details(self, r: vm_raffle.RaffleVM) -> list[Widget]:
        facts = [f"Drawing {r.drawing_date} · {r.price} a ticket", r.tickets, r.where]
        if r.stubs is not None:
            facts.append(f"{r.stubs:,} stubs in, witnessed by {', '.join(r.witnesses)}")
        shown: list[Widget] = [
            Card(
                [(r.title, t.BODY, True), ("\n".join(facts), t.SMALL, False)],
                "raffle-summary",
                common.PANEL_HI,
                lambda: None,
            )
        ]
        for prize in r.prizes:
            text: list[tuple[str, float, bool]] = [
                (prize.title, t.SMALL, True),
                (prize.detail, t.SMALL, False),
            ]
            if r.held_here and prize.ticket is not None and not prize.claimed:
                shown.append(
                    Card(text, prize.ident, common.INFO, partial(self._claim_place, prize.place))
                )
            else:
                shown.append(Card(text, prize.ident, common.PANEL, lambda: None))
        return shown

    def _content(self, *widgets: Widget) -> None:
        if list(reversed(self.content.children)) == list(widgets):
            return
        self.content.clear_widgets()
        for widget in widgets:
            self.content.add_widget(widget)

    def _show_step(self, vm: vm_raffle.DrawingVM, r: vm_raffle.RaffleVM) -> None:
        who = "" if vm.manager else " · a manager's step"
        if self.mode == "claim":
            prize = r.prize(self.place)
            if prize is None or prize.claimed or prize.ticket is None:
                self.mode = "step"
        if self.mode == "winner" and self.winner is not None:
            self._show_winner(r)
            return
        if self.mode == "claim":
            prize = r.prize(self.place)
            assert prize is not None
            self._show_claim(r, prize)
            return
        step = r.step
        if step == "claim":
            claim = r.to_claim
            assert claim is not None
            self.place = claim.place
            self._show_claim(r, claim)
        elif step == "stubs":
            self.step_title.text = f"Count the stubs in the receptacle{who}"
            self.staff.fill(
                [
                    TouchButton(
                        w.text,
                        on_press=partial(self._witness, w.badge),
                        colour=common.INFO if w.badge in self.witnesses else common.PANEL_HI,
                        size=t.SMALL,
                        height=t.MIN_TARGET,
                        ident=w.ident,
                    )
                    for w in vm.staff
                ]
            )
            chosen = len(self.witnesses)
            self.count_button.text = f"Count in: {chosen} witness{'es' if chosen != 1 else ''}"
            self._content(self.pad_column, self.stubs_column)
            self._show_typed("Type the stubs counted")
        elif step == "draw":
            prize = r.to_draw
            assert prize is not None
            self.place = prize.place
            self.step_title.text = f"Draw the {prize.title}{who}"
            self.draw_hint.text = (
                f"Draw one stub from the receptacle, read its number out, type it and "
                f"tap Draw. {r.stubs:,} stubs are in."
            )
            self.draw_button.text = f"Draw the {prize.name}"
            self._content(self.pad_column, self.draw_column)
            self._show_typed("Type the number drawn")
        else:
            self.step_title.text = (
                "Read only: held by another station" if step == "elsewhere" else "Drawing done"
            )
            self.note.text = (
                f"Raffle {r.raffle} is held by station {r.held_by}: its stubs are counted, its "
                "numbers drawn and its prizes claimed there. Here it is shown to read only."
                if step == "elsewhere"
                else "Every prize is drawn and claimed. The drawing is on the record, with its "
                "witnesses: the manager's reports show it."
            )
            prizes = [
                Text(f"{p.title}: {p.status}", size=t.BODY, fit=True, ident=f"outcome-{p.ident}")
                for p in r.prizes
            ]
            self.outcomes.fill([self.note, *prizes])
            self._content(self.outcomes)

    def _show_typed(self, hint: str) -> None:
        self.display.text = self.typed or hint
        self.display.set_colour(common.TEXT if self.typed else common.MUTED)

    def _show_winner(self, r: vm_raffle.RaffleVM) -> None:
        outcome = self.winner
        assert outcome is not None
        place = int(outcome.get("place"))
        prize = r.prize(place)
        self.step_title.text = f"The winning number · raffle {r.raffle}"
        self.number.text = str(outcome.get("ticket"))
        self.wins.text = f"wins the {prize.title}" if prize else ""
        self.winner_buttons.clear_widgets()
        if prize is not None and not prize.claimed:
            self.winner_buttons.add_widget(self.claim_now)
        nxt = r.to_draw
        if nxt is not None:
            self.draw_next.text = f"Draw the {nxt.name}"
            self.winner_buttons.add_widget(self.draw_next)
        self._content(self.winner_column)

    def _show_claim(self, r: vm_raffle.RaffleVM, prize: vm_raffle.PrizeVM) -> None:
        self.step_title.text = f"Claim the {prize.title}"
        asking = prize.reportable or self.asked
        self.claim_hint.text = (
            f"Ticket {prize.ticket} won. Scan the code on the winner's part of the ticket; "
            + (
                "then fill in the winner's data below for Form W-2G."
                if asking
                else "it must carry that number."
            )
        )
        if asking and self.identity.parent is None:
            self.claim_column.add_widget(self.identity, index=1)
        elif not asking and self.identity.parent is not None:
            self.claim_column.remove_widget(self.identity)
        self._content(self.claim_column)

    # -- touches --------------------------------------------------------------------------------

    def _choose(self, raffle_id: str) -> None:
        self._reset()
        self.chosen = raffle_id
        found = self.vm.find(raffle_id) if self.vm is not None else None
        self.banner.clear(
            "Shown to read only"
            if found is not None and not found.held_here
            else "Follow the steps on the right, one touch at a time"
        )
        if self.vm is not None:
            self.render(self.vm)

    def _all(self) -> None:
        self._reset()
        self.chosen = None
        self.banner.clear("Tap the raffle to draw")
        if self.vm is not None:
            self.render(self.vm)

    def _reset(self) -> None:
        self.mode, self.place, self.winner, self.typed = "step", 0, None, ""
        self.witnesses = []
        self._clear_claim()

    def _clear_claim(self) -> None:
        self.asked = False
        self.code.text = ""
        for field in self.id_fields.values():
            field.text = ""

    def _key(self, key: str) -> None:
        if key == "C":
            self.typed = ""
        elif key == "DEL":
            self.typed = self.typed[:-1]
        elif len(self.typed) < MAX_DIGITS:
            self.typed = (self.typed + key).lstrip("0") or ("0" if key == "0" else "")
        hint = "Type the stubs counted" if self.stubs_column.parent else "Type the number drawn"
        self._show_typed(hint)

    def _witness(self, badge: str) -> None:
        if badge in self.witnesses:
            self.witnesses.remove(badge)
        else:
            self.witnesses.append(badge)
        if self.vm is not None:
            self.render(self.vm)

    def _count(self) -> None:
        raffle_id, typed, badge = self.chosen or "", self.typed, self.operator
        chosen = list(self.witnesses)
        self.front.call(
            lambda st: vm_raffle.count_stubs(st, raffle_id, typed, chosen, badge), self._counted
        )

    def _counted(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        if outcome.ok:
            self.typed, self.witnesses = "", []
        self.refresh()

    def _draw(self) -> None:
        raffle_id, place, typed, badge = self.chosen or "", self.place, self.typed, self.operator
        self.front.call(lambda st: vm_raffle.draw(st, raffle_id, place, typed, badge), self._drawn)

    def _drawn(self, outcome: common.Outcome) -> None:
        self.show(outcome)
        self.typed = ""
        if outcome.ok:
            self.mode, self.winner = "winner", outcome
        self.refresh()

    def _next(self) -> None:
        self.mode, self.winner = "step", None
        if self.vm is not None:
            self.render(self.vm)

    def _claim_winner(self) -> None:
        if self.winner is not None:
            self._claim_place(int(self.winner.get("place")))

    def _claim_place(self, place: int) -> None:
        if self.place != place or self.mode != "claim":
            self._clear_claim()
        self.mode, self.place, self.winner = "claim", place, None
        if self.vm is not None:
            self.render(self.vm)

    def _claim(self) -> None:
        raffle_id, place, code, badge = self.chosen or "", self.place, self.code.text, self.operator
        ids = {k: f.text for k, f in self.id_fields.items()}
        identity = vm_raffle.Identity(ids["name"], ids["address"], ids["tin"], ids["id"])
        self.front.call(
            lambda st: vm_raffle.claim(st, raffle_id, place, code, badge, identity),
            self._claimed,
            prints=True,
        )

    def _claimed(self, outcome: common.Outcome) -> None:
        if vm_raffle.needs_identity(outcome):  # the fields say what to do; the banner, why
            self.show(replace(outcome, detail=""))
        else:
            self.show(outcome)
        if outcome.ok:
            self.mode = "step"
            self._clear_claim()
        elif vm_raffle.needs_identity(outcome):
            self.asked = True
        self.refresh()

    def on_scan(self, text: str) -> None:
        """A badge scanned while the stubs are counted picks a witness; a code scanned at a
        claim is the winner's part of the ticket."""
        if self.claim_column.parent is not None:
            self.code.text = text.strip()
            return
        if self.stubs_column.parent is None:
            return
        self.front.call(lambda st: vm_raffle.scan_kind(st, text), partial(self._scanned, text))

    def _scanned(self, text: str, kind: str) -> None:
        badge = text.strip()
        if kind != "badge":
            self.show(
                common.Outcome(
                    False,
                    "Not a staff badge",
                    "A witness is someone on the staff list: scan their badge or tap their name.",
                    common.WARN,
                )
            )
            return
        if self.vm is not None:
            known = {w.badge.casefold(): w.badge for w in self.vm.staff}
            badge = known.get(badge.casefold(), badge)
        if badge not in self.witnesses:
            self.witnesses.append(badge)
        if self.vm is not None:
            self.render(self.vm)

    def show(self, outcome: common.Outcome) -> None:
        self.banner.show(outcome)
