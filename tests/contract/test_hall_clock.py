"""One wrong clock does not move the hall (issue #27). Three stations; booth-1's clock runs a
day ahead. Its stamps are kept but no other station's follow them, so the manager's and
booth-2's events keep their own time; every event's legal day is the hall's clock where it was
recorded (`when`), never a stamp another station moved; and the station running ahead is on
the other stations' exception lists."""

from __future__ import annotations

import json
from pathlib import Path

from pos.domain.hlc import Stamp
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.contract.conftest import Night
from tests.contract.hall_night import ENVIRON, MANAGER_DIR, ok
from tests.halls import Hall, flare

A_DAY_AHEAD = "2026-11-29T23:00:00+00:00"
HALL_DAY = "2026-11-28"  # TRAINING_NOW in the hall's time zone (America/New_York)


def _sync_all(root: Path, names: list[str]) -> None:
    for _ in range(2):  # everything reaches everyone through the manager
        for name in names:
            with (
                Station(root / MANAGER_DIR, environ=ENVIRON) as m,
                Station(root / name, environ=ENVIRON) as other,
            ):
                pull(other.ledger, m.ledger)
                pull(m.ledger, other.ledger)


def _last_event(directory: Path, origin: str) -> tuple[str, dict[str, object]]:
    with Station(directory, environ=ENVIRON) as st:
        row = st.ledger.conn.execute(
            "SELECT hlc, body FROM events WHERE origin = ? ORDER BY seq DESC LIMIT 1", (origin,)
        ).fetchone()
    return str(row[0]), json.loads(row[1])


def test_a_station_a_day_ahead_moves_neither_the_stamps_nor_the_days_of_the_others(
    night: Night,
) -> None:
    files = night.root / "files"
    ok(night.manager("station", "add", "booth-2", "--role", "booth", "--out",
                     str(files / "b2.json")))  # fmt: skip
    booth2 = Hall(night.root / "booth-2", files)
    ok(booth2("join", str(files / "b2.json")))
    ok(night.manager.receive(flare("B200")))
    _sync_all(night.root, ["booth-1", "booth-2"])
    ok(booth2("deal", "open", "B200", "--bin", "drawer-9"))

    ahead = night.booth("sell", "A123456", "--qty", "1", "--as", "S1", BOOTH_NOW=A_DAY_AHEAD)
    ok(ahead)
    _sync_all(night.root, ["booth-1", "booth-2"])

    ok(booth2("sell", "B200", "--qty", "1", "--as", "S1"))
    ok(night.manager("staff", "add", "--name", "Late Volunteer", "--badge", "V9", "--role",
                     "seller", "--dob", "1990-01-01"))  # fmt: skip
    now_ms = Stamp.parse(f"{int(_ms(TRAINING_NOW)):013d}.00000").wall_ms
    for directory, origin in ((booth2.directory, "booth-2"),
                              (night.manager.directory, "manager")):  # fmt: skip
        stamp, body = _last_event(directory, origin)
        assert Stamp.parse(stamp).wall_ms - now_ms < 5 * 60 * 1000, (origin, stamp)
        assert str(body["when"]).startswith(HALL_DAY), body
    stamp, body = _last_event(night.booth.directory, "booth-1")
    assert str(body["when"]).startswith("2026-11-29")  # its own clock: its own day, shown

    with Station(booth2.directory, environ=ENVIRON) as st:
        days = {
            day
            for (day,) in st.ledger.conn.execute(
                "SELECT day FROM p_involvement WHERE origin = 'booth-2'"
            )
        }
    assert days == {HALL_DAY}, days

    _sync_all(night.root, ["booth-1", "booth-2"])
    for hall in (night.manager, booth2):
        listed = hall("exception", "list", "--json")
        ok(listed)
        ahead_items = [e for e in listed.json if e["kind"] == "clock-ahead"]
        assert [e["origin"] for e in ahead_items] == ["booth-1"], listed.json
        assert "ahead of this station's" in ahead_items[0]["detail"]


def _ms(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso).timestamp() * 1000
