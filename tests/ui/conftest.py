"""UI tests: Kivy renders offscreen (SDL's offscreen driver over Mesa's EGL: no X server).

The environment is set here, before anything imports Kivy. Screenshots of every screen at
800x480 and 1920x1080 go to $BOOTH_UI_SCREENSHOTS, or to `screenshots/` under pytest's base
temporary directory (printed at the end of the run).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from kiosk import env

os.environ["BOOTH_UI_STRICT"] = "1"
KIVY_HOME = Path(tempfile.mkdtemp(prefix="booth-kivy-home-"))
# The offscreen surface keeps the size it was created with: create it at the largest size the
# tests use and shrink the window (the 800x480 shots use its lower-left corner).
env.prepare(headless=True, home=KIVY_HOME, quiet=True, max_fps=0, size=(1920, 1080))

from kiosk.local import LocalSettings  # noqa: E402
from pos.clock import FixedClock  # noqa: E402
from pos.errors import RuleRefused  # noqa: E402
from pos.services import deals, devices_rental, receipts, roster, winners  # noqa: E402
from pos.services.demo import DEMO_START, run_demo  # noqa: E402
from pos.services.replicate import pull  # noqa: E402
from pos.services.station import Station  # noqa: E402
from tests.ui.driver import Driver  # noqa: E402

#: The demo's scripted hour ends at 19:00 hall time; the tests run a few minutes later.
NOW = DEMO_START + timedelta(hours=1, minutes=5)
SELLER_PIN = "2468"


KIOSK_SEAL = {
    "serial": "S300001",
    "game": "seal-card",
    "name": "Kiosk Seal",
    "form": "F-S300001",
    "manufacturer": "Arrow International",
    "tickets": 200,
    "price": "1.00",
    "prizes": [{"amount": "20.00", "count": 3}],
    "supplier": {"name": "Commonwealth Bingo Supply", "address": "1 Main St, Richmond VA"},
    "invoice": "INV-S300001",
    "seal": {"lines": 24, "prize": "100.00", "progressive": False, "hold_tickets": ["007", "107"]},
    "sheet_and_seal_present": True,
}


class _Paper:
    """A printer that takes every job at once."""

    def print_receipt(self, receipt: object, *, name: str, kick_drawer: bool = False) -> None:
        pass

    def kick_drawer(self) -> None:
        pass

    def status(self) -> dict[str, object]:
        return {"online": True}


def _converge(directory: Path, clock: FixedClock) -> None:
    names = ("manager", "booth-1", "kiosk-1")
    stations = [Station(directory / name, clock=clock) for name in names]
    try:
        for _ in range(2):
            for target in stations:
                for source in stations:
                    if source is not target:
                        pull(source.ledger, target.ledger)
    finally:
        for st in stations:
            st.close()


def build_hall(directory: Path) -> Path:
    """The demo hall, plus bingo devices and packages, a shift on the roster, a PIN for the
    seller at booth-1, and one exception for the manager (a ticket paid twice)."""
    run_demo(directory)
    clock = FixedClock(NOW)
    with Station(directory / "manager", clock=clock) as st:
        devices_rental.add_devices(st, ["D-01", "D-02", "D-03"], model="Pad", operator="M100")
        devices_rental.define_package(
            st, "Starter", faces="6", games="1", price="5.00", operator="M100"
        )
        devices_rental.define_package(
            st, "Big night", faces="18", games="3", price="15.00", operator="M100"
        )
        roster.add_shift(
            st,
            {
                "name": "Sam Seller",
                "badge": "S200",
                "organisation": st.hall.organisation,
                "date": "2026-11-28",
                "start": "17:30",
                "end": "22:00",
                "duty": "sell",
            },
            operator="M100",
        )
        deals.receive_deal(st, deals.flare_from_mapping(KIOSK_SEAL), operator="M100")
    _converge(directory, clock)
    with Station(directory / "kiosk-1", clock=clock) as st:
        deals.open_deal(st, "S300001", bin_name="col-2", operator="M100")
    with Station(directory / "booth-1", clock=clock) as st:
        winners.redeem(st, "A100001/0007/500", operator="S200")
        with contextlib.suppress(RuleRefused):  # refused and flagged: the manager's exception
            winners.redeem(st, "A100001/0007/500", operator="S200")
    _converge(directory, clock)
    for name in ("manager", "booth-1", "kiosk-1"):  # the demo's receipts are on paper already
        with Station(directory / name, clock=clock) as st:
            receipts.print_pending(st, _Paper())
    local = LocalSettings.load(directory / "booth-1")
    local.set_pin("S200", SELLER_PIN)
    local.save(directory / "booth-1")
    return directory


@pytest.fixture(autouse=True)
def kiosk_language() -> Iterator[None]:
    """Each test starts in the kiosk's own language: one a test chose (a Spanish screen, the
    player's tap) is process-wide, and would be the next test's on the same worker when the
    test ended before its front did (a failure)."""
    from kiosk import i18n

    i18n.set_language(i18n.DEFAULT)
    yield
    i18n.set_language(i18n.DEFAULT)


@pytest.fixture(scope="session")
def hall_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_hall(tmp_path_factory.mktemp("template") / "hall")


@pytest.fixture
def demo_hall(hall_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "hall"
    shutil.copytree(hall_template, target)
    return target


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("BOOTH_UI_SCREENSHOTS")
    path = Path(chosen) if chosen else tmp_path_factory.getbasetemp() / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def open_front(screenshot_dir: Path) -> Iterator[object]:
    """open_front(station_dir, **runtime options) -> a Driver on that station's role."""
    drivers: list[Driver] = []

    def start(directory: Path, **options: object) -> Driver:
        driver = Driver(directory, FixedClock(NOW), screenshot_dir, **options)
        drivers.append(driver)
        return driver

    yield start
    for driver in drivers:
        driver.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    chosen = os.environ.get("BOOTH_UI_SCREENSHOTS")
    base = getattr(terminalreporter.config, "_tmp_path_factory", None)
    where = chosen or (str(base.getbasetemp() / "screenshots") if base else "")
    if where and Path(where).exists():
        terminalreporter.write_line(f"UI screenshots: {where}")
