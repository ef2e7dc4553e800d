"""The phone shows each station's Booth version and a clock more than a minute off (issue #27).
Needs web/templates/fragment.html (the phone's Jinja templates, landing with the web work)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pos import __version__
from pos.services.station import Station
from tests.live.owners import owner
from tests.sync.conftest import build_hall, free_port
from tests.sync.test_clock_skew import SERVE, at, ok
from web import render
from web.server import phone_data


@pytest.mark.slow
def test_the_phone_page_shows_each_release_and_a_clock_off(tmp_path: Path) -> None:
    hall = build_hall(tmp_path, ["booth-1"])
    manager_dir, booth_dir = hall.stations["manager"], hall.stations["booth-1"]
    manager_clock, booth_clock = at(timedelta(0)), at(timedelta(minutes=-2))
    port = free_port()
    with owner(booth_dir, *SERVE, "--port", str(port), env=booth_clock):
        ok(manager_dir, "sync", "now", "--peer", f"https://127.0.0.1:{port}", env=manager_clock)
    with Station(manager_dir, environ=manager_clock) as st:
        html = render.fragment(phone_data(st), "manager")
    assert f"booth · Booth {__version__}" in html, html
    assert "Clock 2 min behind this station" in html
