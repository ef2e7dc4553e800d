"""The demo hall: a training hall with staff and stations, and a scripted stretch of activity.

Library first: `booth demo` and the tests call `run_demo`; later issues grow the script.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pos.clock import FixedClock
from pos.ledger.verify import verify
from pos.services import hall as hall_service
from pos.services import staff as staff_service
from pos.services.station import Station, write_private

DEMO_START = datetime(2026, 11, 28, 23, 0, tzinfo=UTC)  # 18:00 in the hall's time zone

STAFF = (
    ("M100", "Alex Manager", ["manager"], "1970-04-02"),
    ("S200", "Sam Seller", ["seller", "redeemer"], "1985-09-14"),
    ("S201", "Robin Redeemer", ["redeemer"], "1991-01-30"),
    ("I300", "Ines Inspector", ["inspector"], "1978-06-21"),
)
STATIONS = (("booth-1", "booth"), ("kiosk-1", "kiosk"))


def run_demo(directory: Path, *, seed: int = 7) -> dict[str, Any]:
    """Create (afresh) a demo hall under `directory`: one folder per station."""
    if directory.exists():
        marker = directory / "DEMO"
        if not marker.exists():
            from pos.errors import BadInput

            raise BadInput("dir", f"{directory} exists and is not a demo hall; choose another")
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    (directory / "DEMO").write_text("A Booth demo hall; `booth demo` replaces it.\n")
    manager_dir = directory / "manager"
    environ = {"BOOTH_NOW": DEMO_START.isoformat()}
    hall = hall_service.init_hall(
        manager_dir,
        organisation="Riverside Volunteer Fire Company",
        location="Riverside Bingo Hall, 40 Mill Road",
        time_zone="America/New_York",
        training=True,
        environ=environ,
    )
    clock = FixedClock(DEMO_START)
    with Station(manager_dir, clock=clock) as st:
        for badge, name, roles, dob in STAFF:
            staff_service.add_staff(
                st, badge=badge, name=name, roles=roles, date_of_birth=dob, operator="M100"
            )
            clock.at += timedelta(minutes=1)
        bundles = []
        for name, role in STATIONS:
            bundle = hall_service.add_station(st, name=name, role=role, operator="M100")
            path = directory / f"{name}.join.json"
            write_private(path, json.dumps(bundle))
            bundles.append((name, path))
    for name, path in bundles:
        hall_service.join(directory / name, path, environ=environ)
    with Station(manager_dir) as st:
        report = verify(st.ledger)
    lines = [
        f"Demo hall {hall['hall']} (TRAINING) in {directory}",
        f"  stations: manager, {', '.join(name for name, _ in STATIONS)}",
        f"  staff: {', '.join(name for _, name, _, _ in STAFF)}",
        f"  manager ledger: {sum(s.events for s in report.origins.values())} events, "
        f"verified {'OK' if report.ok else 'FAILED'}",
        f"Try: booth --hall {manager_dir} staff list",
    ]
    return {
        "hall": hall["hall"],
        "directory": str(directory),
        "verified": report.ok,
        "seed": seed,
        "lines": lines,
    }
