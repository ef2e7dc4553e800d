"""What the phone's pages say, without a browser: the hall's CA certificate for anyone to
install (never a key), times on the hall's clock (the hall is in America/New_York: never UTC,
never "+00:00"), none of the station's codes (no "Errno", no "rule D", no ORIGIN:SEQ), and
exception kinds in the words of the manager's exceptions screen."""

from __future__ import annotations

import re
import ssl
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from html import unescape
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from kiosk.viewmodels import manager
from pos.services import dashboard, web_access
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall
from tests.web.phone import fingerprint, request, set_pin, untrusted
from web import render
from web.server import SIGNIN, WebApp

PIN = "4321"
ZONE = ZoneInfo("America/New_York")  # the test hall's (tests/conftest.py)
#: what a busy manager should never have to read on the phone
FORBIDDEN = (
    re.compile(r"Errno"),
    re.compile(r"\b[Rr]ule [A-Z][A-Z0-9-]*(?![\w-])"),  # a rule's code
    re.compile(r"\+00:00"),
    re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*:\d+\b"),  # ORIGIN:SEQ, e.g. booth-1:42
)
#: a time as the phone shows it: 4 Dec 19:05:12
SHOWN_TIME = re.compile(r"\b(\d{1,2}) ([A-Z][a-z]{2}) (\d{2}):(\d{2}):(\d{2})\b")


def _text(html: str) -> str:
    """What a person reads on the page: no tags, no style, no script."""
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


def _forbidden(text: str) -> list[str]:
    return [m.group(0) for pattern in FORBIDDEN for m in pattern.finditer(text)]


def _shown_at(text: str, year: int) -> list[datetime]:
    return [
        datetime.strptime(f"{year} {d} {mon} {h}:{m}:{s}", "%Y %d %b %H:%M:%S").replace(tzinfo=ZONE)
        for d, mon, h, m, s in SHOWN_TIME.findall(text)
    ]


@pytest.fixture
def app(selling: Hall) -> Iterator[WebApp]:
    with Station(selling.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        set_pin(st, "M1", PIN, "M1")
    st = Station(selling.directory, environ={"BOOTH_NOW": TRAINING_NOW})
    served = WebApp(st, "127.0.0.1:0")
    served.start()
    try:
        yield served
    finally:
        served.close_reader()
        served.stop()
        st.close()


def _data(st: Station) -> dict[str, Any]:
    """The dashboard's data as the web server renders it: with the hall's time zone."""
    return {**dashboard.dashboard(st), "time_zone": st.hall.time_zone}


def _another_station(data: dict[str, Any]) -> dict[str, Any]:
    """A booth this station syncs with, as the dashboard lists it (the test hall has none)."""
    booth = {**data["stations"][0], "station": "booth-1", "role": "booth", "this_station": False}
    data["stations"].append(booth)
    return booth


def _context(app: WebApp) -> ssl.SSLContext:
    return ssl.create_default_context(cadata=app.ca_pem.decode())


def test_anyone_may_download_the_halls_ca_certificate_and_it_holds_no_key(app: WebApp) -> None:
    """A phone that has not paired yet (nor trusts the hall) installs the hall's CA from a
    fixed address, the one the Phones tab shows as a QR code."""
    answer = request(app.url + "/hall-ca.crt", context=untrusted())
    assert answer.status == 200, answer.status
    assert answer.headers["content-type"] == "application/x-x509-ca-cert"
    assert "attachment" in answer.headers["content-disposition"]
    assert b"PRIVATE" not in answer.body and b"KEY" not in answer.body
    cert = x509.load_pem_x509_certificate(answer.body)
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert fingerprint(answer.body) == app.ca_fingerprint
    # it is the authority the web server's certificate chains to, not the server's own
    chain = (app.directory / "tls" / "web-cert.pem").read_bytes()
    server = x509.load_pem_x509_certificate(chain)
    assert server.issuer == cert.subject and server.subject != cert.subject
    usage = server.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert ExtendedKeyUsageOID.SERVER_AUTH in usage
    # the pairing page links it and names it as the phone's list of certificates will
    link = web_access.create_pairing(app.station, "manager", operator="M1")["url"]
    page = request(link, context=_context(app)).body.decode()
    assert 'href="/hall-ca.crt"' in page
    assert cert.subject.rfc4514_string().split("CN=")[1].split(",")[0] in page
    for words in ("Install a certificate", "CA certificate", "Certificate Trust Settings"):
        assert words in page, words


def test_a_used_links_refusal_says_when_on_the_halls_clock(app: WebApp) -> None:
    link = web_access.create_pairing(app.station, "manager", operator="M1")["url"]
    token = link.rsplit("/", 1)[1]
    before = datetime.now(UTC).replace(microsecond=0)
    form = f"token={token}&badge=M1&pin={PIN}".encode()
    assert request(app.url + SIGNIN, "POST", context=_context(app), body=form).status == 303
    after = datetime.now(UTC)
    again = request(link, context=_context(app))
    assert again.status == 403
    text = _text(again.body.decode())
    assert "This pairing link was used at" in text, text
    assert _forbidden(text) == [] and "+00:00" not in again.body.decode(), text
    (used,) = _shown_at(text, before.astimezone(ZONE).year)
    assert before <= used <= after, (used, before, after)  # the hall's clock, not UTC's


def test_the_dashboard_words_times_errors_rules_and_events_for_a_person(app: WebApp) -> None:
    data = _data(app.reader())
    booth = _another_station(data)
    booth["last_contact"] = "2026-12-03T23:04:05+00:00"
    booth["last_error"] = "[Errno 111] Connection refused"
    booth["printer_faults"] = [{"receipt": 7, "error": "[Errno 5] Input/output error"}]
    data["exceptions"] = [
        {
            "exception": "booth-1:42",
            "kind": "late-event",
            "ticket": None,
            "subject": "A123456",
            "detail": "a purchase rule D would have refused, found after sync (rule D)",
            "hlc": "",
        },
        {
            "exception": "booth-1:43",
            "kind": "prize-paid-twice",
            "ticket": None,
            "subject": "bingo game 3",
            "detail": "paid again ($20.00) after kiosk-1:9 paid it at 2026-12-03T23:10:00+00:00",
            "hlc": "",
        },
        {
            "exception": "booth-1:44",
            "kind": "double-payment",
            "ticket": None,  # a voucher used twice: no ticket
            "subject": "K100001",
            "detail": "voucher paid twice",
            "hlc": "",
        },
    ]
    html = render.fragment(data, "manager")
    text = _text(html)
    assert _forbidden(text) == [], text
    assert "+00:00" not in html
    assert "3 Dec 18:04:05" in text  # 23:04:05 UTC on the hall's clock (EST)
    assert "3 Dec 18:10:00" in text
    assert "Connection refused" in text and "Input/output error" in text
    assert "after kiosk-1 paid it" in text
    assert "a purchase the hall's rule would have refused" in text
    # each kind in the words of the manager's exceptions screen: its very function
    for e in data["exceptions"]:
        # the manager screen's row for it, worded by pos.domain.exception_words
        words = manager.exception_vm(e["kind"], e["ticket"], e["subject"], e["detail"], None)
        assert words.label in text, words.label
    assert "late-event" not in text and "prize-paid-twice" not in text


def test_a_stale_stations_last_figures_are_dated_on_the_halls_clock(app: WebApp) -> None:
    data = _data(app.reader())
    booth = _another_station(data)
    contact = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    booth["last_contact"] = contact.isoformat()
    (said,) = [s for s in app.stale(data) if s.startswith(booth["station"])]
    local = contact.astimezone(ZONE)  # 5 minutes ago on the hall's clock
    assert said == f"{booth['station']}: as of {local.day} {local:%b %H:%M:%S}", said


def test_the_real_exceptions_read_as_on_the_manager_screen(selling: Hall) -> None:
    """A ticket presented again after it was paid: the phone says what the manager's
    exceptions screen says, from the same function, and no event number."""
    assert selling("sell", "A123456", "--qty", "3", "--as", "S1").exit_code == 0
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 0
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 1  # paid before
    with Station(selling.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        screen = [e.label for e in manager.exceptions_screen(st) if e.ref]
        html = render.fragment(_data(st), "manager")
    assert screen, "the double payment is an exception"
    text = _text(html)
    shown = re.findall(r"<li><strong>([^<]+)</strong>", html)
    assert [unescape(s) for s in shown] == screen
    assert _forbidden(text) == [], text


def test_every_table_says_when_it_scrolls_sideways(selling: Hall) -> None:
    with Station(selling.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        html = render.fragment(_data(st), "manager")
    tables = html.count("<table")
    assert tables >= 2
    box = r'<div class="scroll"[^>]*><table.*?</table></div>(<p[^>]*>[^<]*</p>)?'
    boxes = re.findall(box, html)
    assert len(boxes) == tables
    assert all("Scroll sideways for more" in hint for hint in boxes), boxes


def test_refusals_and_pages_not_found_say_no_codes(app: WebApp) -> None:
    context = _context(app)
    for path in ("/booth-1:42", "/report/rule%20D", "/Errno%202"):
        answer = request(app.url + path, context=untrusted())
        assert answer.status in (401, 404)
        assert _forbidden(_text(answer.body.decode())) == []
    link = web_access.create_pairing(app.station, "manager", operator="M1")["url"]
    token = link.rsplit("/", 1)[1]
    form = f"token={token}&badge=M1&pin={PIN}".encode()
    cookie = request(app.url + SIGNIN, "POST", context=context, body=form)
    jar = cookie.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    for path in ("/booth-1:42", "/nothing"):
        answer = request(app.url + path, context=context, cookie=jar)
        assert answer.status == 404
        text = _text(answer.body.decode())
        assert _forbidden(text) == [], text
