"""One hall clock and each station's release (issue #27): every sync compares the two ends'
clocks and learns the peer's Booth version; a station more than a minute off the manager is
shown on its status bar, in `booth sync status`, on the manager's Stations and on the phone.
Booth sets no clock.

The stations run as processes (`booth serve`) on clocks of their own (a training hall's
BOOTH_NOW); every command is a `booth` process beside them.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from kiosk.runtime import DeviceState
from kiosk.viewmodels import common, manager
from pos import __version__
from pos.domain import clock_skew
from pos.services import dashboard as dashboard_service
from pos.services import link
from pos.services.station import Station
from sync import protocol
from tests.conftest import TRAINING_NOW
from tests.live.owners import booth, owner
from tests.sync.conftest import build_hall, free_port

HALL_TIME = datetime.fromisoformat(TRAINING_NOW)
SERVE = ("serve", "--no-discovery", "--interval", "3600")


def at(offset: timedelta) -> dict[str, str]:
    return {"BOOTH_NOW": (HALL_TIME + offset).isoformat()}


def ok(hall: Path, *args: str, env: dict[str, str]) -> Any:
    ran = booth(hall, *args, "--json", env=env)
    assert ran.exit_code == 0, (args, ran.stdout, ran.stderr)
    return json.loads(ran.stdout)


# --- the measure and the words (pure) ---------------------------------------------------------


def test_the_peer_clock_is_read_at_the_middle_of_the_exchange() -> None:
    sent = HALL_TIME
    received = sent + timedelta(milliseconds=400)
    peer = sent + timedelta(minutes=3, milliseconds=200)  # answered halfway, 3 min ahead
    assert clock_skew.offset(peer, sent, received) == timedelta(minutes=3)
    assert not clock_skew.off(60_000) and clock_skew.off(60_001) and clock_skew.off(-90_000)
    assert clock_skew.peer_clock(-180_000) == "clock 3 min behind this station"
    assert clock_skew.peer_clock(45_000) == "clock 45 s ahead of this station"
    assert clock_skew.own_clock(180_000, reference="manager").text == (
        "Clock 3 min behind the manager"
    )
    assert clock_skew.own_clock(30_000, reference="manager") == clock_skew.OwnClock("ok", "")
    assert clock_skew.own_clock(None, reference="manager").level == "off"


def test_a_station_tells_its_release_and_clock_and_a_peer_reads_them() -> None:
    answer = protocol.root(
        uuid="u", hall="h", station="manager", heads={}, release=__version__, now=HALL_TIME
    )
    read = protocol.read_root(json.loads(json.dumps(answer)), "https://peer")
    assert (read.release, read.clock) == (__version__, HALL_TIME)
    # a peer of a release before this one says neither: unknown, not a failure
    older = {"uuid": "u", "booth": {"station": "kiosk-1", "heads": {}}}
    assert (protocol.read_root(older, "u").release, protocol.read_root(older, "u").clock) == (
        None,
        None,
    )
    hostile = {"uuid": "u", "booth": {"release": "\x1b[2J", "clock": "2026-11-28T23:00:00"}}
    assert protocol.read_root(hostile, "u").release is None  # a control character
    assert protocol.read_root(hostile, "u").clock is None  # no time zone: no instant


# --- a hall of processes ----------------------------------------------------------------------


@pytest.mark.slow
def test_a_station_three_minutes_behind_the_manager_is_shown_everywhere(tmp_path: Path) -> None:
    hall = build_hall(tmp_path, ["booth-1"])
    manager_dir, booth_dir = hall.stations["manager"], hall.stations["booth-1"]
    manager_clock, booth_clock = at(timedelta(minutes=3)), at(timedelta(0))
    ports = {"manager": free_port(), "booth-1": free_port()}

    # booth-1 pulls from the manager, whose clock is 3 minutes ahead of its own
    with owner(manager_dir, *SERVE, "--port", str(ports["manager"]), env=manager_clock):
        url = f"https://127.0.0.1:{ports['manager']}"
        (pulled,) = ok(booth_dir, "sync", "now", "--peer", url, env=booth_clock)
    assert pulled["release"] == __version__
    assert pulled["clock_offset_ms"] == 180_000

    status = ok(booth_dir, "sync", "status", env=booth_clock)
    (peer,) = status["peers"]
    assert (peer["station"], peer["version"], peer["clock_offset_ms"]) == (
        "manager",
        __version__,
        180_000,
    )
    assert status["release"] == __version__
    assert status["clock"] == {"level": "warn", "text": "Clock 3 min behind the manager"}
    words = booth(booth_dir, "sync", "status", env=booth_clock).stdout
    assert "CLOCK OFF: Clock 3 min behind the manager: point this station's clock" in words
    assert (
        f"manager      last contact {peer['last_contact']}, Booth {__version__}, clock 3 min "
        "ahead of this station (OFF by more than a minute)"
    ) in words, words

    # booth-1's status bar, as its screen reads it
    with Station(booth_dir, environ=booth_clock) as st:
        own = link.own_clock(st)
    state = DeviceState(link="Hall link: OK", link_level="ok", clock=own.text)
    bar = common.status_bar(state, None, None)
    assert bar.link == "Hall link: OK · Clock 3 min behind the manager"
    assert bar.link_colour == common.WARN

    # the manager pulls from booth-1: its Stations tab and its phone show booth-1 behind
    with owner(booth_dir, *SERVE, "--port", str(ports["booth-1"]), env=booth_clock):
        url = f"https://127.0.0.1:{ports['booth-1']}"
        (pulled,) = ok(manager_dir, "sync", "now", "--peer", url, env=manager_clock)
    assert pulled["clock_offset_ms"] == -180_000
    with Station(manager_dir, environ=manager_clock) as st:
        rows = {row.station: row for row in manager.dashboard(st).stations}
        phone = {s["station"]: s for s in dashboard_service.dashboard(st)["stations"]}
        assert link.own_clock(st).text == ""  # the manager is the reference
    assert rows["booth-1"].release_text == f"Booth {__version__}"
    assert rows["booth-1"].clock_text == "Clock 3 min behind this station"
    assert rows["booth-1"].colour == common.WARN
    assert (rows["manager"].release_text, rows["manager"].clock_text) == (
        f"Booth {__version__}",
        "",
    )
    assert phone["booth-1"]["release"] == __version__
    assert phone["booth-1"]["clock_offset_ms"] == -180_000
    assert phone["booth-1"]["clock_text"] == "Clock 3 min behind this station"
    assert phone["manager"]["clock_text"] == ""


@pytest.mark.slow
def test_a_clock_within_a_minute_is_not_flagged(tmp_path: Path) -> None:
    hall = build_hall(tmp_path, ["booth-1"])
    manager_dir, booth_dir = hall.stations["manager"], hall.stations["booth-1"]
    port = free_port()
    with owner(manager_dir, *SERVE, "--port", str(port), env=at(timedelta(seconds=40))):
        url = f"https://127.0.0.1:{port}"
        (pulled,) = ok(booth_dir, "sync", "now", "--peer", url, env=at(timedelta(0)))
    assert pulled["clock_offset_ms"] == 40_000
    status = ok(booth_dir, "sync", "status", env=at(timedelta(0)))
    assert status["clock"] == {"level": "ok", "text": ""}
    words = booth(booth_dir, "sync", "status", env=at(timedelta(0))).stdout
    assert "clock 40 s ahead of this station" in words and "CLOCK OFF" not in words
