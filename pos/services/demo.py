"""The demo hall: a training hall with staff, stations, deals, and a scripted hour of selling.

Library first: `booth demo` and the tests call `run_demo`. Stations exchange events the way the
LAN sync does (a pull by high-water marks through the apply path), here in one process.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pos.clock import FixedClock
from pos.domain.money import format_money, parse_amount
from pos.errors import BadInput, RuleRefused
from pos.ledger.verify import verify
from pos.services import deals, players, sales, sessions, settings
from pos.services import hall as hall_service
from pos.services import staff as staff_service
from pos.services.ports import Dispenser
from pos.services.replicate import pull
from pos.services.station import Station, write_private

DEMO_START = datetime(2026, 11, 28, 23, 0, tzinfo=UTC)  # 18:00 in the hall's time zone
MARKER = "DEMO"

STAFF = (
    ("M100", "Alex Manager", ["manager"], "1970-04-02"),
    ("S200", "Sam Seller", ["seller", "redeemer"], "1985-09-14"),
    ("S201", "Robin Redeemer", ["redeemer"], "1991-01-30"),
    ("I300", "Ines Inspector", ["inspector"], "1978-06-21"),
)
STATIONS = (("booth-1", "booth"), ("kiosk-1", "kiosk"))
PLAYERS = (
    ("C-1001", "1962-03-14", "JD"),
    ("C-1002", "1990-07-01", "MK"),
    ("C-1003", "2010-05-05", "TY"),
)


def _flare(
    serial: str,
    game: str,
    name: str,
    tickets: int,
    price: str,
    prizes: list[tuple[str, int]],
    **extra: Any,
) -> dict[str, Any]:
    return {
        "serial": serial,
        "game": game,
        "name": name,
        "form": f"F-{serial}",
        "manufacturer": "Arrow International",
        "tickets": tickets,
        "price": price,
        "prizes": [{"amount": a, "count": c} for a, c in prizes],
        "supplier": {"name": "Commonwealth Bingo Supply", "address": "1 Main St, Richmond VA"},
        "invoice": f"INV-{serial}",
        **extra,
    }


FLARES = (
    (
        _flare(
            "A100001",
            "pull-tab",
            "Lucky 7s",
            2000,
            "1.00",
            [("250.00", 2), ("50.00", 6), ("5.00", 120)],
        ),
        "booth-1",
        "drawer-1",
    ),
    (
        _flare("A100002", "pull-tab", "Cherry Bells", 1200, "0.50", [("100.00", 2), ("2.00", 150)]),
        "booth-1",
        "drawer-2",
    ),
    (
        _flare(
            "S200001",
            "seal-card",
            "Seal the Deal",
            300,
            "1.00",
            [("25.00", 4)],
            seal={
                "lines": 30,
                "prize": "150.00",
                "progressive": False,
                "hold_tickets": ["013", "113", "213"],
            },
            sheet_and_seal_present=True,
        ),
        "booth-1",
        "drawer-3",
    ),
    (
        _flare("A100003", "pull-tab", "Kiosk Classic", 800, "1.00", [("100.00", 1), ("10.00", 20)]),
        "kiosk-1",
        "col-1",
    ),
)


class _CountingDispenser:
    """The demo kiosk's dispenser: every 25th ticket jams, so the demo shows a credit."""

    def __init__(self) -> None:
        self.pushed = 0

    def dispense(self, column: str, count: int) -> int:
        out = 0
        for _ in range(count):
            self.pushed += 1
            if self.pushed % 25 == 0:
                break
            out += 1
        return out


@contextmanager
def _stations(directory: Path, clock: FixedClock) -> Iterator[dict[str, Station]]:
    with ExitStack() as stack:
        yield {
            name: stack.enter_context(Station(directory / name, clock=clock))
            for name in ("manager", *(n for n, _ in STATIONS))
        }


def _converge(open_stations: dict[str, Station]) -> None:
    """Every station pulls from every other, twice round, so relayed events arrive too."""
    for _ in range(2):
        for target in open_stations.values():
            for source in open_stations.values():
                if source is not target:
                    pull(source.ledger, target.ledger)


def run_demo(directory: Path, *, seed: int = 7, converge: bool = True) -> dict[str, Any]:
    """Create (afresh) a demo hall under `directory`: one folder per station. With `converge`
    false the hour's events stay on the stations that made them, for the LAN sync to carry."""
    if directory.exists():
        if not (directory / MARKER).exists():
            raise BadInput("dir", f"{directory} exists and is not a demo hall; choose another")
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / MARKER).write_text("A Booth demo hall; `booth demo` replaces it.\n")
    environ = {"BOOTH_NOW": DEMO_START.isoformat()}
    hall = hall_service.init_hall(
        directory / "manager",
        organisation="Riverside Volunteer Fire Company",
        location="Riverside Bingo Hall, 40 Mill Road",
        time_zone="America/New_York",
        training=True,
        environ=environ,
    )
    clock = FixedClock(DEMO_START)
    with Station(directory / "manager", clock=clock) as st:
        for badge, name, roles, dob in STAFF:
            staff_service.add_staff(
                st, badge=badge, name=name, roles=roles, date_of_birth=dob, operator="M100"
            )
        settings.set_house_rule(st, "kiosk-pull-tab-sales", "on", operator="M100")
        for card, dob, initials in PLAYERS:
            players.register_player(
                st, card=card, date_of_birth=dob, initials=initials, id_number=None, operator="S200"
            )
        for data, _, _ in FLARES:
            deals.receive_deal(st, deals.flare_from_mapping(data), operator="M100")
        sessions.open_session(st, operator="M100")
        bundles = []
        for name, role in STATIONS:
            bundle = hall_service.add_station(st, name=name, role=role, operator="M100")
            path = directory / f"{name}.join.json"
            write_private(path, json.dumps(bundle))
            bundles.append((name, path))
    for name, path in bundles:
        hall_service.join(directory / name, path, environ=environ)

    rng = random.Random(seed)
    dispenser: Dispenser = _CountingDispenser()
    refusals: list[str] = []
    with _stations(directory, clock) as open_stations:
        _converge(open_stations)
        for data, station, bin_name in FLARES:
            deals.open_deal(
                open_stations[station], data["serial"], bin_name=bin_name, operator="M100"
            )
        booth, kiosk = open_stations["booth-1"], open_stations["kiosk-1"]
        end = DEMO_START + timedelta(hours=1)
        while clock.at < end:
            clock.at += timedelta(seconds=rng.randint(20, 150))
            try:
                if rng.random() < 0.7:
                    serial = rng.choice(["A100001", "A100001", "A100002", "S200001"])
                    sales.sell(
                        booth,
                        serial,
                        qty=rng.choice([1, 2, 3, 5, 10]),
                        operator="S200",
                        buyer=rng.choice([None, None, "C-1001", "C-1002", "C-1003"]),
                    )
                else:
                    sales.sell(
                        kiosk,
                        "A100003",
                        qty=rng.choice([1, 2, 5]),
                        operator=None,
                        buyer=rng.choice(["C-1001", "C-1002", "C-1003"]),
                        dispenser=dispenser,
                    )
            except RuleRefused as refusal:
                local = clock.at.astimezone(ZoneInfo(booth.hall.time_zone))
                refusals.append(f"{local:%H:%M} {refusal.message}")
        if converge:
            _converge(open_stations)
    return {
        "hall": hall["hall"],
        "directory": str(directory),
        "seed": seed,
        **describe(directory, hall["hall"], refusals),
    }


def describe(directory: Path, hall: str, refusals: list[str]) -> dict[str, Any]:
    """What the demo hall holds now: each deal's sales as the manager knows them, and whether
    every station verifies and holds the same events."""
    with ExitStack() as stack:
        open_stations = {
            name: stack.enter_context(Station(directory / name))
            for name in ("manager", *(n for n, _ in STATIONS))
        }
        reports = {name: verify(st.ledger) for name, st in open_stations.items()}
        totals = [
            deals.deal_summary(open_stations["manager"], data["serial"]) for data, _, _ in FLARES
        ]
    digests = {report.digest for report in reports.values()}
    gross = sum(parse_amount(t["gross"], allow_zero=True) for t in totals)
    lines = [
        f"Demo hall {hall} (TRAINING) in {directory}",
        f"  stations: manager, {', '.join(name for name, _ in STATIONS)}; "
        f"staff: {', '.join(name for _, name, _, _ in STAFF)}",
        "  a scripted hour, 18:00-19:00 hall time, session 2026-11-28/1 (as the manager sees it):",
    ]
    for t in totals:
        lines.append(
            f"    {t['serial']} {t['name']:<14} sold {t['tickets_sold']:>4} of "
            f"{t['tickets']:<5} gross ${t['gross']:>8}  ({t['bin']} at {t['holder']})"
        )
    lines.append(f"  gross {format_money(gross)}; {len(refusals)} sales refused, e.g.:")
    lines.extend(f"    {r}" for r in refusals[:3])
    ok = all(report.ok for report in reports.values()) and len(digests) == 1
    held = sum(summary.events for summary in reports["manager"].origins.values())
    lines.append(
        f"  every station verifies and holds the same {held} events: {'yes' if ok else 'NO'}"
    )
    lines.append(f"Try: .venv/bin/booth --hall {directory / 'manager'} deal show A100001")
    return {
        "verified": ok,
        "refusals": len(refusals),
        "refusal_lines": refusals,
        "gross": format_money(gross),
        "deals": totals,
        "lines": lines,
    }
