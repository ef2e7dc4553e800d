"""The blind count and its verification, as the two rows the booth's Close tab and the manager's
Books tab share: the operator's count first (the ledger's figure shows only once it is recorded),
then a second person's count under their own badge, scanned (or typed on the on-screen keyboard
when no scanner answers)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kiosk.ui.widgets import Field, Row, TouchButton
from kiosk.viewmodels import books, common

if TYPE_CHECKING:
    from kiosk.ui.screens.base import RoleScreen
    from pos.services.station import Station

# (station, whole session's cash): whose cash the count is of
Target = Callable[[], tuple[str | None, bool]]


def this_station() -> tuple[str | None, bool]:
    return None, False


class BlindCount:
    def __init__(
        self,
        screen: RoleScreen,
        *,
        done: Callable[[common.Outcome], None],
        target: Target = this_station,
        before: Sequence[Any] = (),
    ) -> None:
        """`before`: widgets ahead of the amount on the first row (the Books tab's station)."""
        self.screen = screen
        self.done = done
        self.target = target
        self.amount = Field("Counted $", ident="count-amount")
        self.badge = Field("Scan 2nd badge", ident="verify-badge")
        self.recount = Field("Their count $", ident="verify-amount")
        self.count_row = Row()
        for widget in (*before, self.amount):
            self.count_row.add_widget(widget)
        self.count_row.add_widget(
            TouchButton("Record count", on_press=self._count, colour=common.INFO, ident="count")
        )
        self.verify_row = Row()
        self.verify_row.add_widget(self.badge)
        self.verify_row.add_widget(self.recount)
        self.verify_row.add_widget(
            TouchButton("Verify", on_press=self._verify, colour=common.OK, ident="verify")
        )

    @property
    def rows(self) -> tuple[Row, Row]:
        return self.count_row, self.verify_row

    def on_scan(self, text: str) -> None:
        """A badge scanned at this screen is the second person's."""
        self.badge.text = text.strip()

    def _count(self) -> None:
        amount, badge = self.amount.text, self.screen.operator
        station, whole = self.target()
        self._call(lambda st: books.record_count(st, amount, badge, station=station, whole=whole))

    def _verify(self) -> None:
        amount, badge = self.recount.text, self.badge.text
        station, whole = self.target()
        self._call(lambda st: books.verify_count(st, amount, badge, station=station, whole=whole))

    def _call(self, fn: Callable[[Station], common.Outcome]) -> None:
        self.screen.front.call(fn, self._counted)

    def _counted(self, outcome: common.Outcome) -> None:
        if outcome.ok:
            self.amount.text = self.recount.text = self.badge.text = ""
        self.done(outcome)
