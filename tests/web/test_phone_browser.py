"""The manager's phone in a real browser: Debian's chromium, headless, driven by Selenium
through chromium-driver, against a demo hall's manager serving `--web` beside its booth, each a
process of its own (issue #21)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import zxingcpp
from PIL import Image
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By

from tests.live.owners import booth, make_demo_hall
from tests.web.phone import (
    PINS,
    Hall,
    M,
    chromium,
    fingerprint,
    request,
    serving,
    size,
    trust_in_nss,
    untrusted,
)

pytestmark = pytest.mark.slow

SIZES = ((360, 800), (1280, 800))

#: What the page breaks of accessibility: inputs without a label, text under 12 px, text whose
#: contrast with its background is under 4.5:1 (WCAG AA), and no language or viewport.
ACCESSIBLE = """
var problems = [];
function rgb(c) { var m = c.match(/[\\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 0]; }
function lum(c) {
  var v = c.slice(0, 3).map(function (x) {
    x = x / 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
  return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}
function background(e) {
  for (; e; e = e.parentElement) {
    var c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length < 4 || c[3] > 0) { return c; }
  }
  return [255, 255, 255, 1];
}
if (!document.documentElement.lang) { problems.push("no lang"); }
if (!document.querySelector("meta[name=viewport]")) { problems.push("no viewport"); }
document.querySelectorAll("input:not([type=hidden])").forEach(function (i) {
  if (!i.id || !document.querySelector("label[for='" + i.id + "']")) {
    problems.push("input " + i.name);
  }
});
document.querySelectorAll("body *").forEach(function (e) {
  var own = Array.prototype.some.call(e.childNodes, function (n) {
    return n.nodeType === 3 && n.textContent.trim(); });
  if (!own || e.closest("svg") || !e.getClientRects().length) { return; }
  var style = getComputedStyle(e);
  if (parseFloat(style.fontSize) < 12) {
    problems.push("small " + e.tagName + " " + style.fontSize);
  }
  var a = lum(rgb(style.color)), b = lum(background(e));
  var ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  if (ratio < 4.5) {
    problems.push("contrast " + ratio.toFixed(2) + " " + e.textContent.trim().slice(0, 30));
  }
});
return problems;
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


def _qr_link(hall: Hall, role: str, into: Path, *extra: str) -> dict[str, Any]:
    """`booth web pair --png`: the QR code, decoded as a phone's camera does."""
    png = into / f"pair-{role}-{time.monotonic_ns()}.png"
    result = hall.pair(role, "--png", str(png), *extra)
    decoded = zxingcpp.read_barcodes(Image.open(png))
    assert len(decoded) == 1 and decoded[0].format == zxingcpp.BarcodeFormat.QRCode
    assert decoded[0].text == result["url"]
    return {**result, "url": decoded[0].text}


def _trust(hall: Hall, link: str, home: Path) -> None:
    """What the pairing page tells the phone: download the hall's certificate, check its
    fingerprint against the one `booth web pair` showed, install it."""
    download = request(f"{link}/hall-web-ca.pem", context=untrusted())
    assert download.status == 200
    assert fingerprint(download.body) == hall.fingerprint
    trust_in_nss(home, download.body)


def _sign_in(driver: Any, badge: str, pin: str) -> None:
    """Fill in and send the sign-in form; returns once the answer's page has loaded."""
    driver.find_element(By.ID, "badge").send_keys(badge)
    driver.find_element(By.ID, "pin").send_keys(pin)
    driver.execute_script("window.boothOldPage = true;")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    _wait(
        lambda: driver.execute_script(
            "return !window.boothOldPage && document.readyState === 'complete';"
        ),
        15,
    )


def _text(driver: Any, selector: str) -> str:
    """An element's text, read at once by the page (a live update may swap it any time)."""
    text: str = driver.execute_script(
        "var e = document.querySelector(arguments[0]); return e ? e.textContent : null;",
        selector,
    )
    return text


def _figure(driver: Any, name: str) -> str:
    return _text(driver, f"[data-figure={name}]")


def _wait(predicate: Any, timeout: float, step: float = 0.02) -> float:
    """Seconds until `predicate()` holds; a page in the middle of loading is asked again."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            if predicate():
                return time.monotonic() - start
        except WebDriverException:
            pass  # the document was being replaced
        time.sleep(step)
    raise AssertionError(f"not within {timeout} s")


def test_pair_by_qr_sign_in_figures_equal_the_report_and_a_sale_shows_live(
    demo: Path, tmp_path: Path, shots: Path
) -> None:
    with serving(demo, tmp_path / "hall") as hall:
        pairing = _qr_link(hall, "manager", tmp_path)
        assert pairing["ca_fingerprint"] == hall.fingerprint
        home = tmp_path / "phone"
        home.mkdir()
        _trust(hall, pairing["url"], home)
        with chromium(home) as driver:
            driver.get(pairing["url"])  # TLS verified against the hall's CA, nothing ignored
            assert "Sign in to the hall" in driver.page_source
            assert driver.find_element(By.ID, "fingerprint").text == hall.fingerprint
            assert driver.find_element(By.CSS_SELECTOR, "label[for=pin]").text == "PIN"
            assert driver.execute_script(ACCESSIBLE) == []
            size(driver, 360, 800)
            driver.save_screenshot(str(shots / "pairing-360x800.png"))
            _sign_in(driver, "M100", PINS["M100"])
            _wait(lambda: driver.current_url.rstrip("/") == hall.url, 10)
            _wait(lambda: "Live" in _text(driver, "#status"), 10)
            # kiosk-1 runs nowhere here: its figures are called stale
            assert "kiosk-1: not reached from here yet" in _text(driver, "#status")
            assert driver.execute_script(ACCESSIBLE) == []

            # the dashboard's figures are those of `booth report day --json`
            report = json.loads(booth(hall.manager, "report", "day", "--json", *M).stdout)
            assert _figure(driver, "gross") == f"${report['gross']}"
            assert _figure(driver, "prizes_paid") == f"${report['prizes_paid']}"
            assert _figure(driver, "net") == f"${report['net']}"
            for deal in report["deals"]:
                shown = _text(driver, f"[data-deal-gross={deal['serial']}]")
                assert shown == f"${deal['gross']}"
            assert driver.find_element(By.CSS_SELECTOR, "svg.chart rect")

            # the first page is light: under 100 KB over the wire, all of it
            weight = driver.execute_script(
                "return performance.getEntriesByType('navigation')[0].transferSize + "
                "performance.getEntriesByType('resource')"
                ".reduce(function (n, r) { return n + r.transferSize; }, 0);"
            )
            assert 0 < weight < 100_000, weight
            for width, height in SIZES:
                size(driver, width, height)
                time.sleep(0.3)
                scroll = driver.execute_script("return document.documentElement.scrollWidth")
                assert scroll <= width, f"{scroll} px wide at {width}"
                driver.save_screenshot(str(shots / f"dashboard-{width}x{height}.png"))
            size(driver, 360, 800)

            # a sale acknowledged at the booth (its own process) reaches the open page by its
            # stream, without a reload. The 2 s target is measured by bench/web.py (p99), not
            # asserted here: this machine is shared and its timing noisy.
            driver.execute_script("window.boothPageMark = 'before the sale';")
            before = _figure(driver, "gross")
            sold = booth(hall.booth, "sell", "A100001", "--qty", "4", "--as", "S200", "--json")
            sale_wall = time.time()
            assert sold.exit_code == 0, sold.stderr
            latency = _wait(lambda: _figure(driver, "gross") != before, 20.0)
            print(f"the sale reached the page {latency:.2f} s after its acknowledgement")
            assert driver.execute_script("return window.boothPageMark;") == "before the sale"
            report = json.loads(booth(hall.manager, "report", "day", "--json", *M).stdout)
            assert _figure(driver, "gross") == f"${report['gross']}"
            full = driver.execute_script("return document.body.scrollHeight")
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 360, "height": int(full), "deviceScaleFactor": 1, "mobile": True},
            )
            driver.save_screenshot(str(shots / "dashboard-360-full.png"))
            size(driver, 360, 800)

            # the station goes away: the page says its figures are stale, and since when:
            # the last update it had, which came after the sale and before the stop
            hall.stop_manager()
            stopped = time.time()
            _wait(lambda: "Not live" in _text(driver, "#status"), 15)
            status = _text(driver, "#status")
            as_of = driver.execute_script(
                "var s = document.querySelector('#status').getAttribute('data-as-of');"
                "var d = new Date(s); return [d.getTime() / 1000, d.toLocaleTimeString([],"
                " {hour: '2-digit', minute: '2-digit', second: '2-digit',"
                " timeZone: 'America/New_York'})];"  # the hall's clock, not the phone's
            )
            assert sale_wall - 1 <= as_of[0] <= stopped + 1, (status, as_of, sale_wall, stopped)
            assert status == f"Not live: figures as of {as_of[1]}, reconnecting...", status
            driver.save_screenshot(str(shots / "stale-360x800.png"))


def test_a_wrong_pin_and_an_expired_link_are_refused(
    demo: Path, tmp_path: Path, shots: Path
) -> None:
    with serving(demo, tmp_path / "hall") as hall:
        home = tmp_path / "phone"
        home.mkdir()
        good = _qr_link(hall, "manager", tmp_path)
        _trust(hall, good["url"], home)
        expired = _qr_link(hall, "manager", tmp_path, "--expires-in", "1")
        with chromium(home) as driver:
            driver.get(good["url"])
            _sign_in(driver, "M100", "0000")
            _wait(lambda: "not right" in (_text(driver, "[role=alert]") or ""), 10)
            assert driver.get_cookies() == []
            driver.save_screenshot(str(shots / "wrong-pin-360x800.png"))
            # the right PIN, but for a role the person does not hold
            _sign_in(driver, "I300", PINS["I300"])
            _wait(lambda: "not right" in (_text(driver, "[role=alert]") or ""), 10)
            assert driver.get_cookies() == []
            # the link expired: refused, the form is not even shown
            time.sleep(1.5)
            driver.get(expired["url"])
            assert "expired" in driver.find_element(By.TAG_NAME, "main").text
            assert driver.find_elements(By.ID, "pin") == []
            # and the dashboard refuses a browser without a session
            driver.get(hall.url + "/")
            assert "Not signed in" in driver.page_source
            # the good link still works once, and only once
            driver.get(good["url"])
            _sign_in(driver, "M100", PINS["M100"])
            _wait(lambda: driver.current_url.rstrip("/") == hall.url, 10)
            driver.get(good["url"])
            assert "was used" in driver.find_element(By.TAG_NAME, "main").text


def test_a_revoked_session_is_signed_out_at_once(demo: Path, tmp_path: Path) -> None:
    with serving(demo, tmp_path / "hall") as hall:
        home = tmp_path / "phone"
        home.mkdir()
        pairing = _qr_link(hall, "treasurer", tmp_path)
        _trust(hall, pairing["url"], home)
        with chromium(home) as driver:
            driver.get(pairing["url"])
            _sign_in(driver, "T400", PINS["T400"])
            _wait(lambda: "Live" in _text(driver, "#status"), 10)
            # a treasurer sees takings, deals and cash, not the stations or exceptions
            assert driver.find_elements(By.ID, "h-cash")
            assert driver.find_elements(By.ID, "h-exceptions") == []
            sessions = json.loads(booth(hall.manager, "web", "sessions", "--json", *M).stdout)
            active = [s for s in sessions if s["state"] == "active"]
            assert [s["badge"] for s in active] == ["T400"]
            ran = booth(hall.manager, "web", "revoke", active[0]["id"], "--as", "M100")
            assert ran.exit_code == 0, ran.stderr
            _wait(lambda: "Signed out" in _text(driver, "#status"), 8)
            driver.get(hall.url + "/")
            assert "Not signed in" in driver.page_source
