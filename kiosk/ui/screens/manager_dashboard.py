"""The manager's overview: every station and what this ledger holds of it, the day's totals per
deal, and the sales per hour drawn as a bar chart."""

from __future__ import annotations

from kiosk.ui import theme as t
from kiosk.ui.screens.base import RoleScreen
from kiosk.ui.widgets import BarChart, Box, ListBox, Panel, Text, fixed, item
from kiosk.viewmodels import common, manager
from pos.services.station import Station


class DashboardScreen(RoleScreen):
    screen_name = "dashboard"

    def build(self) -> None:
        columns = Box("horizontal")
        left = Box("vertical", size_hint_x=0.5)
        self.session = Text(size=t.BODY, bold=True, one_line=True, size_hint_y=None)
        fixed(self.session, 26)
        self.lists = ListBox(ident="dashboard-list")
        left.add_widget(self.session)
        left.add_widget(self.lists)
        right = Panel(orientation="vertical", size_hint_x=0.5)
        self.chart_title = Text(size=t.BODY, bold=True, one_line=True, size_hint_y=None)
        fixed(self.chart_title, 26)
        self.chart = BarChart()
        self.total = Text(size=t.TITLE, bold=True, one_line=True, size_hint_y=None, ident="gross")
        fixed(self.total, 40)
        for widget in (self.chart_title, self.chart, self.total):
            right.add_widget(widget)
        columns.add_widget(left)
        columns.add_widget(right)
        self.body.add_widget(columns)

    def load(self, st: Station) -> manager.DashboardVM:
        return manager.dashboard(st)

    def render(self, vm: manager.DashboardVM) -> None:
        self.session.text = vm.session_text
        rows = [Text("Stations", size=t.LARGE, bold=True, fit=True)]
        for s in vm.stations:
            lines: list[tuple[str, float, str]] = [
                (f"{s.station} ({s.role}) · {s.release_text}", t.BODY, common.TEXT),
                (f"{s.events_text} · {s.last_text}", t.SMALL, s.colour),
            ]
            if s.clock_text:  # more than a minute off: someone points it at the manager
                lines.append((s.clock_text, t.SMALL, common.WARN))
            rows.append(item(lines))
        rows.append(Text(vm.sync_note, size=t.SMALL, colour=common.MUTED, fit=True))
        rows.append(Text("Totals per deal", size=t.LARGE, bold=True, fit=True))
        rows += [
            item(
                [
                    (f"{d.serial} {d.name}: {d.sold_text}", t.BODY, common.TEXT),
                    (f"gross {d.gross} · prizes {d.prizes} · net {d.net}", t.SMALL, common.MUTED),
                ]
            )
            for d in vm.totals
        ]
        self.lists.fill(rows)
        self.chart_title.text = vm.chart.title
        self.chart.show(vm.chart)
        self.total.text = vm.total_text
