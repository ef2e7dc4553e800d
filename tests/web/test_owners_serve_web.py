"""`--web` on both owners: `booth run --headless --web` serves the manager's phone beside the
touch screen as `booth serve --web` does, and a station without the hall's key is refused."""

from __future__ import annotations

import shutil
import ssl
from pathlib import Path

import pytest

from pos.services import web_access
from tests.live.owners import booth, make_demo_hall, owner
from tests.web.phone import request

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_hall(tmp_path_factory.mktemp("demo") / "hall")


def test_booth_run_serves_the_phone_beside_the_screen(demo: Path, tmp_path: Path) -> None:
    manager = tmp_path / "manager"
    shutil.copytree(demo / "manager", manager)
    (manager / "control.sock").unlink(missing_ok=True)
    assert booth(manager, "web", "pair", "--role", "manager", "--as", "M100").exit_code == 2
    with owner(manager, "run", "--headless", "--web", "127.0.0.1:0"):
        ran = booth(manager, "web", "pair", "--role", "inspector", "--as", "M100")
        assert ran.exit_code == 0, ran.stderr
        link = next(w for w in ran.stdout.split() if w.startswith("https://"))
        state = web_access.served_state(manager)
        assert link.startswith(f"{state['url']}/pair/")
        assert state["ca_fingerprint"] in ran.stdout
        ca = (manager / "tls" / "web-ca.pem").read_text()
        context = ssl.create_default_context(cadata=ca)
        page = request(link, context=context)
        assert page.status == 200 and b"inspector" in page.body
        assert request(state["url"] + "/", context=context).status == 401
    assert web_access.served_state(manager) == {}  # gone with its owner
    refused = booth(manager, "web", "pair", "--role", "manager", "--as", "M100")
    assert refused.exit_code == 2 and "no web app runs" in refused.stderr


def test_a_station_without_the_hall_key_cannot_issue_the_certificate(
    demo: Path, tmp_path: Path
) -> None:
    station = tmp_path / "booth-1"
    shutil.copytree(demo / "booth-1", station)
    (station / "control.sock").unlink(missing_ok=True)
    ran = booth(station, "serve", "--port", "0", "--no-discovery", "--web", "127.0.0.1:0")
    assert ran.exit_code == 1
    assert "holds no hall key" in ran.stderr and "manager station" in ran.stderr
