"""The manager's books: a blind count of a drawer, a kiosk's cash box or the session's cash,
verified by a second person with another badge; the session's counts (verified or not); the
deposits due at the bank; the state's reports due next."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.blind_count import BlindCount
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import Field, ListBox, OutcomeBanner, Row, Text, TouchButton, fixed, item
from kiosk.viewmodels import books, common
from pos.services.station import Station


class BooksScreen(RoleScreen):
    screen_name = "books"

    def build(self) -> None:
        self.heading = fixed(Text(size=t.BODY, bold=True, one_line=True, ident="due-next"), 26)
        self.station = Field("Station, or blank", ident="count-station")
        self.count = BlindCount(self, done=self._done, target=self._target, before=[self.station])
        deposit = Row()
        self.bag = Field("Bag no.", ident="deposit-bag")
        self.carrier = Field("Taken by", ident="deposit-by")
        self.cash = Field("Cash $", ident="deposit-cash")
        self.checks = Field("Checks $", ident="deposit-checks")
        for widget in (self.bag, self.carrier, self.cash, self.checks):
            deposit.add_widget(widget)
        deposit.add_widget(
            TouchButton("Deposit", on_press=self._deposit, colour=common.INFO, ident="deposit")
        )
        self.outcome = fixed(OutcomeBanner(ident="books"), 76)
        self.rows = ListBox(ident="books-list")
        for widget in (self.heading, *self.count.rows, deposit, self.outcome, self.rows):
            self.body.add_widget(widget)
        self.outcome.clear("Count blind: the ledger's figure shows once the count is recorded")

    def load(self, st: Station) -> books.BooksVM:
        return books.books_screen(st)

    def render(self, vm: books.BooksVM) -> None:
        self.heading.text = vm.due_next
        self.heading.set_colour(vm.due_colour)
        rows = [Text("Counts this session", size=t.LARGE, bold=True, fit=True)]
        rows += [
            item([(c.text, t.BODY, c.colour), (c.detail, t.SMALL, common.TEXT)]) for c in vm.counts
        ]
        if not vm.counts:
            rows.append(Text("No count recorded yet.", colour=common.MUTED, fit=True))
        rows.append(Text("Deposits due (11VAC20-20-80 D)", size=t.LARGE, bold=True, fit=True))
        rows += [
            item([(d.text, t.BODY, d.colour), (d.detail, t.SMALL, common.TEXT)])
            for d in vm.deposits
        ]
        if not vm.deposits:
            rows.append(Text("Every closed session is deposited.", colour=common.MUTED, fit=True))
        rows.append(Text("State reports due next", size=t.LARGE, bold=True, fit=True))
        rows += [
            item([(r.text, t.BODY, r.colour), (r.detail, t.SMALL, common.TEXT)]) for r in vm.reports
        ]
        if not vm.reports:
            rows.append(Text("No state report is due.", colour=common.MUTED, fit=True))
        self.rows.fill(rows)

    def _target(self) -> tuple[str | None, bool]:
        station = self.station.text.strip()
        return (station or None), not station

    def on_scan(self, text: str) -> None:
        self.count.on_scan(text)

    def _deposit(self) -> None:
        bag, by, cash, checks = self.bag.text, self.carrier.text, self.cash.text, self.checks.text
        badge = self.operator
        self.front.call(
            lambda st: books.record_deposit(st, bag, by, cash, checks, badge), self._done
        )

    def _done(self, outcome: common.Outcome) -> None:
        if outcome.ok:
            for field in (self.bag, self.carrier, self.cash, self.checks):
                field.text = ""
        self.show(outcome)
        self.refresh()

    def show(self, outcome: common.Outcome) -> None:
        self.outcome.show(outcome)
