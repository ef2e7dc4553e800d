"""One clock: nothing in Booth reads the wall time but pos/clock.py. Everything else takes the
station's clock (`st.clock`) or a `now` parameter, so a training hall's BOOTH_NOW and the tests'
fixed clocks reach every timestamp. Monotonic timers (time.monotonic, time.perf_counter)
measure durations, not the time of day, and are allowed."""

from __future__ import annotations

import ast
import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pos.clock import FixedClock
from pos.errors import IntegrityFailure
from pos.ledger import Ledger
from pos.services.devices_rental import faces_receipt
from pos.services.station import LEDGER_FILE, Station, StationConfig

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pos", "kiosk", "hardware", "sync", "web")
THE_CLOCK = "pos/clock.py"

# Still reading the wall time: sync/ is being moved onto pos.clock in its own change, which
# removes these entries. Nothing else may be added here.
NOT_YET: set[str] = set()

# datetime.now(), datetime.datetime.utcnow(), date.today(), time.time(), ...
WALL_TIME_CALLS = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "time_ns"),
}
# time.localtime(), time.gmtime(), time.ctime(), time.asctime(): the current time when called
# without a time; time.strftime(fmt) likewise.
WALL_TIME_WITHOUT_ARGUMENT = {"localtime": 0, "gmtime": 0, "ctime": 0, "asctime": 0, "strftime": 1}
WALL_TIME_NAMES = {"time", "time_ns", "localtime", "gmtime", "ctime", "asctime", "strftime"}


def _dotted(node: ast.expr) -> list[str]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return parts[::-1]


def wall_time_reads(source: str, filename: str = "<source>") -> list[str]:
    """`line: expression` for every read of the wall time in a module."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom) and node.module == "time":
            found += [
                f"{node.lineno}: from time import {alias.name}"
                for alias in node.names
                if alias.name in WALL_TIME_NAMES
            ]
        if not isinstance(node, ast.Call):
            continue
        parts = _dotted(node.func)
        if len(parts) < 2:
            continue
        owner, name = parts[-2], parts[-1]
        arguments = len(node.args) + len(node.keywords)
        if (owner, name) in WALL_TIME_CALLS or (
            owner == "time" and WALL_TIME_WITHOUT_ARGUMENT.get(name, -1) == arguments
        ):
            found.append(f"{node.lineno}: {'.'.join(parts)}()")
    return found


def test_the_scan_finds_each_way_of_reading_the_time() -> None:
    source = (
        "import time, datetime as dt\n"
        "from datetime import UTC, date, datetime\n"
        "from time import monotonic, strftime\n"
        "a = datetime.now(UTC)\n"
        "b = dt.datetime.utcnow()\n"
        "c = date.today()\n"
        "d = time.time()\n"
        "e = time.strftime('%H')\n"
        "f = time.localtime()\n"
        "ok = (time.monotonic(), time.perf_counter(), time.strftime('%H', f), monotonic())\n"
        "ok2 = datetime.fromisoformat('2026-01-01T00:00:00+00:00').astimezone(UTC)\n"
    )
    assert wall_time_reads(source) == [
        "3: from time import strftime",
        "4: datetime.now()",
        "5: dt.datetime.utcnow()",
        "6: date.today()",
        "7: time.time()",
        "8: time.strftime()",
        "9: time.localtime()",
    ]


def test_only_pos_clock_reads_the_wall_time() -> None:
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative == THE_CLOCK or relative in NOT_YET:
                continue
            offenders += [f"{relative}:{read}" for read in wall_time_reads(path.read_text())]
    assert not offenders, "read the time through pos.clock instead:\n" + "\n".join(offenders)
    assert wall_time_reads((ROOT / THE_CLOCK).read_text())  # the one place it is read


# -- what used to read the wall time now reads the station's clock ------------------------------

AT = datetime(2026, 11, 28, 23, 5, tzinfo=UTC)


def test_a_faces_receipt_is_stamped_by_the_station_clock(hall_dir: Path) -> None:
    with Station(hall_dir, clock=FixedClock(AT)) as st:
        faces = {"device": "D-1", "session": "2026-11-28/1", "game": 1, "series": 1, "faces": []}
        receipt = faces_receipt(st, faces)
        assert receipt.issued_at == AT
        assert receipt.issued_at.tzinfo == ZoneInfo(st.hall.time_zone)


def test_an_incident_is_stamped_by_the_ledgers_clock(hall_dir: Path) -> None:
    with Station(hall_dir, clock=FixedClock(AT)) as st:
        event = st.append("TamperProbe", {"probe": 1})
    config = StationConfig.load(hall_dir)
    ledger = Ledger.open(
        hall_dir / LEDGER_FILE,
        station="someone-else",
        key=None,
        hall_public_key=config.hall_public_key,
        clock=FixedClock(AT),
    )
    try:
        edited = dataclasses.replace(event, seq=event.seq + 1)  # its hash no longer matches
        with pytest.raises(IntegrityFailure):
            ledger.apply(edited)
        [incident] = ledger.incidents()
        assert incident["recorded_at"] == AT.isoformat()
    finally:
        ledger.close()
