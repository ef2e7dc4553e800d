"""Every page the manager's phone can reach, in Debian's chromium at 360x800 (and 1280 wide):
the page never scrolls sideways (a table too wide scrolls in its box and says so), times are
on the hall's clock (the demo hall is in America/New_York), and no page says "Errno", a rule's
code, "+00:00" or an event's ORIGIN:SEQ. The phone first installs the hall's certificate from
/hall-ca.crt, the address the Phones tab shows, and checks its fingerprint."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.live.owners import booth, make_demo_hall
from tests.web.phone import (
    PINS,
    Hall,
    chromium,
    fingerprint,
    request,
    serving,
    size,
    trust_in_nss,
    untrusted,
)
from tests.web.test_phone_browser import _sign_in, _text, _wait

pytestmark = pytest.mark.slow

ZONE = ZoneInfo("America/New_York")  # the demo hall's
FORBIDDEN = (
    re.compile(r"Errno"),
    re.compile(r"\b[Rr]ule [A-Z][A-Z0-9-]*(?![\w-])"),
    re.compile(r"\+00:00"),
    re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*:\d+\b"),  # ORIGIN:SEQ, e.g. booth-1:42
)
SHOWN_TIME = re.compile(r"\b(\d{1,2}) ([A-Z][a-z]{2}) (\d{2}):(\d{2}):(\d{2})\b")

#: each table: [fits its box, its box scrolls sideways, its hint is shown and says so]
TABLES = """
return Array.prototype.map.call(document.querySelectorAll("table"), function (t) {
  var box = t.parentElement, hint = box.nextElementSibling;
  var shown = !!hint && hint.offsetParent !== null && !hint.hidden;
  return [t.scrollWidth <= box.clientWidth + 1, getComputedStyle(box).overflowX === "auto",
          shown && /Scroll sideways for more/.test(hint.textContent)];
});
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_hall(tmp_path_factory.mktemp("demo") / "hall")


@pytest.fixture
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("BOOTH_WEB_SCREENSHOTS")
    path = Path(chosen) if chosen else tmp_path_factory.getbasetemp() / "web-screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _at(text: str, year: int) -> list[datetime]:
    return [
        datetime.strptime(f"{year} {d} {mon} {h}:{m}:{s}", "%Y %d %b %H:%M:%S").replace(tzinfo=ZONE)
        for d, mon, h, m, s in SHOWN_TIME.findall(text)
    ]


def _check(driver: Any, name: str, shots: Path) -> str:
    """The page at 360x800 and 1280x800: no sideways scroll, no forbidden words, each table
    fits or says it scrolls; screenshots of both (the 360 one the whole page). Its text."""
    for width in (360, 1280):
        size(driver, width, 800)
        _wait(lambda w=width: driver.execute_script("return window.innerWidth") == w, 5)
        scroll = driver.execute_script("return document.documentElement.scrollWidth")
        assert scroll <= width, f"{name}: {scroll} px wide at {width}"
        for fits, scrolls, hinted in driver.execute_script(TABLES):
            assert fits or (scrolls and hinted), (name, width, fits, scrolls, hinted)
            assert not (fits and hinted), (name, width, "a hint under a table that fits")
        if width == 360:
            full = int(driver.execute_script("return document.documentElement.scrollHeight"))
            size(driver, 360, max(800, full))
            driver.save_screenshot(str(shots / f"phone-{name}-360.png"))
        else:
            driver.save_screenshot(str(shots / f"phone-{name}-1280x800.png"))
    size(driver, 360, 800)
    text: str = driver.execute_script("return document.body.innerText")
    source: str = driver.page_source
    found = [m.group(0) for p in FORBIDDEN for m in p.finditer(text)]
    assert found == [], (name, found, text)
    assert "+00:00" not in source and "Errno" not in source, name
    return text


def _trust(hall: Hall, home: Path) -> None:
    """The Phones tab's second QR code: the hall's certificate, for anyone, checked by its
    fingerprint before it is installed."""
    download = request(f"{hall.url}/hall-ca.crt", context=untrusted())
    assert download.status == 200
    assert download.headers["content-type"] == "application/x-x509-ca-cert"
    assert fingerprint(download.body) == hall.fingerprint
    assert b"PRIVATE" not in download.body
    trust_in_nss(home, download.body)


def test_every_page_fits_360_px_says_hall_times_and_no_codes(
    demo: Path, tmp_path: Path, shots: Path
) -> None:
    with serving(demo, tmp_path / "hall") as hall:
        home = tmp_path / "phone"
        home.mkdir()
        _trust(hall, home)
        link = hall.pair("manager")["url"]
        with chromium(home) as driver:
            driver.get(hall.url + "/")  # before pairing: refused, in plain words
            assert "Not signed in" in _check(driver, "not-signed-in", shots)

            driver.get(link)
            text = _check(driver, "pairing", shots)
            for words in ("Install a certificate", "CA certificate", "Certificate Trust"):
                assert words in text, words
            _sign_in(driver, "M100", "0000")
            _wait(lambda: "not right" in (_text(driver, "[role=alert]") or ""), 10)
            _check(driver, "wrong-pin", shots)

            before = datetime.now(UTC).replace(microsecond=0)
            _sign_in(driver, "M100", PINS["M100"])
            after = datetime.now(UTC)
            _wait(lambda: driver.current_url.rstrip("/") == hall.url, 10)
            _wait(lambda: "Live" in _text(driver, "#status"), 10)
            # a station the manager pulls from: its last contact on the hall's clock
            _wait(lambda: _text(driver, "[data-contact=booth-1]") is not None, 15)
            shown = _text(driver, "[data-contact=booth-1]")
            data = json.loads(driver.execute_script(
                "var r = new XMLHttpRequest(); r.open('GET', '/data.json', false); r.send();"
                "return r.responseText;"
            ))  # fmt: skip
            contact = next(s for s in data["stations"] if s["station"] == "booth-1")
            stored = datetime.fromisoformat(contact["last_contact"])
            (at,) = _at(shown, stored.astimezone(ZONE).year)
            assert abs((at - stored).total_seconds()) < 15, (shown, contact["last_contact"])
            # a deposit made: its table has six columns, too many for 360 px
            session = data["report"]["sessions"][0]
            made = booth(
                hall.manager, "deposit", "record", "--bag", "B-104", "--session", session,
                "--cash", "100.00", "--taken-by", "M100", "--as", "M100",
            )  # fmt: skip
            assert made.exit_code == 0, made.stderr
            _wait(lambda: "B-104" in (_text(driver, "#dash") or ""), 15)
            text = _check(driver, "dashboard", shots)
            hinted = [t for t in driver.execute_script(TABLES) if t[2]]
            assert hinted, "at 360 px the deposits' table scrolls in its box and says so"
            status = _text(driver, "#status")
            assert "UTC" not in status and "+00:00" not in status
            for e in data["exceptions"]:  # their words, never their event's ORIGIN:SEQ
                assert e["exception"] not in text
            assert ("Exceptions to read (0)" in text) == (data["exceptions"] == [])

            driver.get(link)  # the link again: used, and when, on the hall's clock
            text = _check(driver, "link-used", shots)
            assert "This pairing link was used at" in text, text
            (used,) = _at(text, before.astimezone(ZONE).year)
            assert before <= used <= after, (used, before, after)

            driver.get(hall.url + "/booth-1:42")
            assert "Not found" in _check(driver, "not-found", shots)
