"""The manager's phone without a browser: PINs, pairing links, session cookies, the dashboard's
figures against the day report, and a crawler over every route and method (nothing writes)."""

from __future__ import annotations

import http.client
import json
import re
import sqlite3
import ssl
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from pos.clock import FixedClock
from pos.domain.pins import hash_pin, verify_pin
from pos.services import dashboard, reports, web_access
from pos.services import hall as hall_service
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, flare
from tests.web.phone import request, set_pin
from web import render
from web import server as web_server
from web.server import PAIR_ROUTES, PUBLIC_ROUTES, ROUTES, SIGNIN, WebApp, phone_data

METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND")
PIN = "4321"


def _station(hall: Hall) -> Station:
    return Station(hall.directory, environ={"BOOTH_NOW": TRAINING_NOW})


@pytest.fixture
def serving(selling: Hall) -> Iterator[tuple[Hall, WebApp, ssl.SSLContext]]:
    assert selling("sell", "A123456", "--qty", "3", "--as", "S1").exit_code == 0
    with _station(selling) as st:
        set_pin(st, "M1", PIN, "M1")
    st = _station(selling)
    app = WebApp(st, "127.0.0.1:0")
    app.start()
    context = ssl.create_default_context(cadata=app.ca_pem.decode())
    try:
        yield selling, app, context
    finally:
        app.stop()
        st.close()


def _sign_in(hall: Hall, app: WebApp, context: ssl.SSLContext) -> str:
    link = web_access.create_pairing(app.station, "manager", operator="M1")["url"]
    token = link.rsplit("/", 1)[1]
    answer = request(
        f"{app.url}{SIGNIN}",
        "POST",
        context=context,
        body=f"token={token}&badge=M1&pin={PIN}".encode(),
    )
    assert answer.status == 303
    return answer.headers["set-cookie"].split(";")[0].split("=", 1)[1]


def test_a_pin_is_a_slow_salted_hash_checked_exactly() -> None:
    stored = hash_pin("2468")
    assert stored.startswith("scrypt$16384$8$1$") and "2468" not in stored
    assert hash_pin("2468") != stored  # salted
    assert verify_pin("2468", stored)
    assert not verify_pin("2469", stored)
    assert not verify_pin("2468", "")
    assert not verify_pin("2468", stored.replace("scrypt", "md5"))
    assert not verify_pin("2468", "scrypt$99999999$8$1$00$00")


def test_a_pairing_link_expires_and_opens_one_session(station: Station) -> None:
    set_pin(station, "M1", PIN, "M1")
    t0 = datetime(2026, 12, 3, 4, 0, tzinfo=UTC)
    made = web_access.create_pairing(
        station, "manager", operator="M1", base_url="https://h:1", ttl=60, clock=FixedClock(t0)
    )
    token = made["url"].rsplit("/", 1)[1]
    late = FixedClock(t0 + timedelta(seconds=61))
    with pytest.raises(web_access.SignInRefused, match="expired"):
        web_access.sign_in(station, token, "M1", PIN, clock=late)
    made = web_access.create_pairing(
        station, "manager", operator="M1", base_url="https://h:1", clock=FixedClock(t0)
    )
    token = made["url"].rsplit("/", 1)[1]
    with pytest.raises(web_access.SignInRefused, match="not right"):
        web_access.sign_in(station, token, "M1", "1111", clock=FixedClock(t0))
    with pytest.raises(web_access.SignInRefused, match="not right"):
        web_access.sign_in(station, token, "S1", PIN, clock=FixedClock(t0))  # not a manager
    session, cookie = web_access.sign_in(station, token, "M1", PIN, clock=FixedClock(t0))
    assert session.role == "manager"
    with pytest.raises(web_access.SignInRefused, match="used"):
        web_access.sign_in(station, token, "M1", PIN, clock=FixedClock(t0))
    # the cookie: good until it expires, refused when altered or revoked
    assert web_access.check_cookie(station, cookie, clock=FixedClock(t0)) == session
    sid, expires, mac = cookie.split(".")
    assert web_access.check_cookie(station, f"{sid}.{int(expires) + 9}.{mac}") is None
    assert web_access.check_cookie(station, f"{sid}x.{expires}.{mac}") is None
    after = FixedClock(t0 + timedelta(seconds=web_access.SESSION_TTL + 1))
    assert web_access.check_cookie(station, cookie, clock=after) is None
    assert web_access.revoke(station, session.id, operator="M1") == [session.id]
    assert web_access.check_cookie(station, cookie, clock=FixedClock(t0)) is None


def test_five_wrong_pins_burn_the_link(station: Station) -> None:
    set_pin(station, "M1", PIN, "M1")
    made = web_access.create_pairing(station, "manager", operator="M1", base_url="https://h:1")
    token = made["url"].rsplit("/", 1)[1]
    for _ in range(web_access.MAX_FAILURES):
        with pytest.raises(web_access.SignInRefused):
            web_access.sign_in(station, token, "M1", "0000")
    with pytest.raises(web_access.SignInRefused, match="too often"):
        web_access.sign_in(station, token, "M1", PIN)


def test_the_dashboard_shows_the_day_reports_figures(selling: Hall) -> None:
    assert selling("sell", "A123456", "--qty", "5", "--as", "S1").exit_code == 0
    with _station(selling) as st:
        data = dashboard.dashboard(st)
        report = reports.day_report(st)
    assert data["report"] == {k: report[k] for k in dashboard.REPORT_KEYS}
    assert [d["serial"] for d in data["deals"]] == ["A123456"]
    assert data["deals"][0]["gross"] == report["deals"][0]["gross"]
    assert data["deals"][0]["winners_left"] > 0


def test_exceptions_about_a_player_name_no_player_on_the_phone(selling: Hall) -> None:
    """By the exception's `person` field, never by reading its words: one that concerns a
    player shows its deal and the kind's words; one that names no player shows its own."""
    selling("player", "register", "C-9", "--dob", "1970-01-01", "--initials", "JD")
    assert selling("sell", "A123456", "--qty", "1").exit_code == 0
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 0
    assert selling("redeem", "A123456/0002/500", "--as", "S1", "--player", "C-9").exit_code == 1
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 1  # paid before
    with _station(selling) as st:
        shown = {e["kind"]: e for e in dashboard.dashboard(st)["exceptions"]}
    counterfeit = shown["probable-counterfeit"]
    assert "C-9" not in json.dumps(counterfeit) and "JD" not in json.dumps(counterfeit)
    assert counterfeit["subject"] == "A123456"
    assert counterfeit["detail"] == "a probable counterfeit was presented"
    again = shown["double-payment"]  # no player named: its own words, the staff's badge
    assert again["subject"] == "A123456/0001" and "Sam Seller (S1)" in again["detail"]


def _links(html: str) -> set[str]:
    return set(re.findall(r'(?:href|action|src)="([^"]+)"', html))


def _tables(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        conn.close()


def _first_event(url: str, context: ssl.SSLContext, cookie: str) -> tuple[int, bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPSConnection(parts.hostname or "", parts.port, context=context)
    try:
        conn.request("GET", "/live", headers={"Cookie": f"{web_access.COOKIE}={cookie}"})
        answer = conn.getresponse()
        return answer.status, answer.fp.readline() + answer.fp.readline()
    finally:
        conn.close()


def test_no_route_writes_a_crawler_over_every_route_and_method(
    serving: tuple[Hall, WebApp, ssl.SSLContext],
) -> None:
    hall, app, context = serving
    cookie = _sign_in(hall, app, context)
    ledger = hall.directory / "ledger.db"
    link = web_access.create_pairing(app.station, "manager", operator="M1")["url"]
    token = link.rsplit("/", 1)[1]
    pair_routes = [p.format(token=token) for p in PAIR_ROUTES]
    before = _tables(ledger)

    # every link on every page is a known route: the crawl covers the whole app
    seen: set[str] = set()
    for path in (*ROUTES, *pair_routes, *PUBLIC_ROUTES):
        if path == "/live":
            continue
        answer = request(app.url + path, context=context, cookie=cookie)
        assert answer.status == 200, (path, answer.status)
        if answer.headers["content-type"].startswith("text/html"):
            seen |= _links(answer.body.decode())
    known = {*ROUTES, *pair_routes, *PUBLIC_ROUTES, SIGNIN}
    assert seen <= known, seen - known
    status, first = _first_event(app.url, context, cookie)
    assert status == 200 and first.startswith(b"event: update")

    for path in (*ROUTES, *pair_routes, *PUBLIC_ROUTES, SIGNIN, "/nothing-here", "/report"):
        for method in METHODS:
            if path == "/live" and method == "GET":
                continue  # a stream: read above
            for who in (cookie, None):
                body = b"token=x&badge=M1&pin=0000" if method == "POST" else None
                answer = request(app.url + path, method, context=context, cookie=who, body=body)
                if method in ("GET", "HEAD"):
                    if path.startswith("/pair/") or path in PUBLIC_ROUTES:
                        expected = {200}  # the link authenticates these, while it is good
                    elif path == SIGNIN or path in ("/nothing-here", "/report"):
                        expected = {404, 401}
                    else:
                        expected = {200} if who else {401}
                elif method == "POST" and path == SIGNIN:
                    expected = {403, 429}  # a token that is no link; then rate-limited
                else:
                    expected = {405}
                assert answer.status in expected, (method, path, who, answer.status)
                if answer.status == 405:
                    assert answer.headers["allow"] == "GET, HEAD"
                if who is None and answer.status == 200:
                    assert path.startswith("/pair/") or path in PUBLIC_ROUTES
    # nothing was written: not an event, not a session, not a row
    assert _tables(ledger) == before
    assert web_server.SIGNIN_LIMIT == 5


def test_sign_in_is_rate_limited_per_address(
    serving: tuple[Hall, WebApp, ssl.SSLContext],
) -> None:
    _, app, context = serving
    codes = [
        request(
            f"{app.url}{SIGNIN}", "POST", context=context, body=b"token=nope&badge=M1&pin=1111"
        ).status
        for _ in range(web_server.SIGNIN_LIMIT + 2)
    ]
    assert codes == [403] * web_server.SIGNIN_LIMIT + [429, 429]


def test_the_pages_say_nothing_of_players_or_w2g(
    serving: tuple[Hall, WebApp, ssl.SSLContext],
) -> None:
    hall, app, context = serving
    cookie = _sign_in(hall, app, context)
    for path in ("/", "/data.json"):
        text = request(app.url + path, context=context, cookie=cookie).body.decode().lower()
        for word in ("w2g", "w-2g", "buyer", "date_of_birth", "tin"):
            assert re.search(rf"\b{word}\b", text) is None, (path, word)
    answer = request(app.url + "/", context=context, cookie=cookie)
    policy = answer.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
    assert answer.headers["cache-control"] == "no-store"


def test_a_kiosks_dispenser_jam_and_printer_fault_show_on_its_station(
    hall: Hall, tmp_path: Path
) -> None:
    assert hall.receive(flare()).exit_code == 0
    registered = hall("player", "register", "C-ADULT", "--dob", "1980-01-01", "--initials", "AB")
    assert registered.exit_code == 0
    assert hall("session", "open").exit_code == 0
    with _station(hall) as st:
        bundle = hall_service.add_station(st, name="kiosk-1", role="kiosk", operator="M1")
    path = tmp_path / "k.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "kiosk-1", path, environ={"BOOTH_NOW": TRAINING_NOW})
    kiosk = Hall(tmp_path / "kiosk-1", hall.tmp)
    assert kiosk("deal", "open", "A123456", "--bin", "col-1").exit_code == 0
    assert kiosk("house", "set", "kiosk-pull-tab-sales", "on").exit_code == 0
    assert kiosk("dispenser", "set", "sim:jam-every=3").exit_code == 0
    sold = kiosk("sell", "A123456", "--qty", "5", "--buyer", "C-ADULT", "--json")
    assert sold.exit_code == 0, sold.stderr
    with Station(kiosk.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        receipt = int(sold.json["receipt"])
        with st.ledger.transaction():
            st.append("PrintFailed", {"receipt": receipt, "error": "paper out"})
        data = phone_data(st)
    station = next(s for s in data["stations"] if s["station"] == "kiosk-1")
    assert [f["receipt"] for f in station["dispenser_faults"]] == [receipt]
    assert station["dispenser_faults"][0]["fault"] == "gave 2 of 5 tickets (the rest credited)"
    assert station["printer_faults"] == [{"receipt": receipt, "error": "paper out"}]
    page = render.fragment(data, "manager")
    assert "paper out" in page and "dispenser: receipt" in page
    assert "C-ADULT" not in page and "C-ADULT" not in json.dumps(data)


def test_serving_every_address_names_the_lan_address_in_link_and_certificate(
    station: Station,
) -> None:
    from cryptography import x509

    app = WebApp(station, "0.0.0.0:0")
    host = app.public_host
    assert host not in ("0.0.0.0", "")
    app.start()
    try:
        assert app.url.startswith(f"https://{host}:")
        assert web_access.served_url(station.directory) == app.url
        pem = (station.directory / "tls" / "web-cert.pem").read_bytes()
        cert = x509.load_pem_x509_certificates(pem)[0]
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert host in {str(ip) for ip in names.get_values_for_type(x509.IPAddress)}
        issuer = x509.load_pem_x509_certificate(app.ca_pem)
        assert cert.issuer == issuer.subject
        cert.verify_directly_issued_by(issuer)
    finally:
        app.stop()
    assert web_access.served_url(station.directory) is None


SUNDAY = {"BOOTH_NOW": "2026-11-29T23:00:00+00:00"}
WEDNESDAY = {"BOOTH_NOW": "2026-12-02T23:00:00+00:00"}
THURSDAY = "2026-12-03T15:00:00+00:00"  # 10:00 in the hall


def _session(hall: Hall, qty: int, count: str | None, **now: str) -> None:
    """A session of `qty` $1.00 tickets at the manager's drawer, counted at `count` or not."""
    if now:
        assert hall("session", "open", **now).exit_code == 0
    assert hall("sell", "A123456", "--qty", str(qty), "--as", "S1", **now).exit_code == 0
    if count is not None:
        counted = hall("drawer", "count", count, "--as", "S1", **now)
        assert counted.exit_code == 0, counted.stderr
    assert hall("session", "close", **now).exit_code == 0


def _deposit(hall: Hall, bag: str, session: str, cash: str, on: str) -> None:
    made = hall("deposit", "record", "--bag", bag, "--session", session, "--cash", cash,
                "--checks", "0", "--taken-by", "M1", "--on", on, "--as", "M1",
                BOOTH_NOW=THURSDAY)  # fmt: skip
    assert made.exit_code == 0, made.stderr


@pytest.fixture
def deposits_hall(selling: Hall) -> Hall:
    """Saturday 28 November: 4 tickets, the drawer counted at $4.00, deposited Wednesday 2
    December with $3.00 (due Tuesday 1: late and short). Sunday 29: 6 tickets, counted $6.00,
    deposited in full on Tuesday (on time). Wednesday 2: 7 tickets, not counted, not deposited
    (due Friday 4). Seen on Thursday 3 December."""
    _session(selling, 4, "4.00")
    _session(selling, 6, "6.00", **SUNDAY)
    _session(selling, 7, None, **WEDNESDAY)
    _deposit(selling, "B-1", "2026-11-28/1", "3.00", "2026-12-02")
    _deposit(selling, "B-2", "2026-11-29/1", "6.00", "2026-12-01")
    return selling


def test_the_cash_section_shows_deposits_due_made_late_and_short(deposits_hall: Hall) -> None:
    from kiosk.viewmodels import books as books_vm

    with Station(deposits_hall.directory, environ={"BOOTH_NOW": THURSDAY}) as st:
        cash = dashboard.dashboard(st)["cash"]
        report = reports.day_report(st)
        screen = books_vm.books_screen(st)
    # By hand: Wednesday's session is due by Friday 4 December (the second business day), not
    # overdue on Thursday; its drawer not counted, so the deposit should hold what the ledger
    # expects: 7 x $1.00 = $7.00. Thursday's own receipts go by Monday 7 (the weekend skipped).
    assert cash["deposit_by"] == report["deposit_by"] == "2026-12-07"
    [due] = cash["due"]
    assert (due["session"], due["due"], due["overdue"]) == ("2026-12-02/1", "2026-12-04", False)
    assert (due["amount"], due["basis"]) == ("7.00", "expected")
    assert [(d["session"], d["due"], d["overdue"]) for d in report["deposits_due"]] == [
        (due["session"], due["due"], due["overdue"])
    ]
    # the manager's books screen shows the same session, date and amount
    [line] = screen.deposits
    assert line.text == "Deposit due by 2026-12-04: session 2026-12-02/1"
    assert line.detail.startswith("$7.00")
    assert cash["due_more"] == 0
    # Made, newest first: Sunday's $6.00 on time (due Tuesday 1, made Tuesday 1); Saturday's
    # $3.00 of the $4.00 counted, made Wednesday 2 for Tuesday 1: late and short by $1.00.
    assert [d["bag"] for d in cash["made"]] == ["B-1", "B-2"]
    late, on_time = cash["made"]
    assert (late["due"], late["on"], late["late"]) == ("2026-12-01", "2026-12-02", True)
    assert (late["total"], late["should_hold"], late["short"], late["short_by"]) == (
        "3.00", "4.00", True, "1.00",
    )  # fmt: skip
    assert (on_time["total"], on_time["late"], on_time["short"]) == ("6.00", False, False)
    assert (cash["late"], cash["short"], cash["made_more"]) == (1, 1, 0)
    # the same deposits as `booth deposit list`
    listed = deposits_hall("deposit", "list", "--json", BOOTH_NOW=THURSDAY).json
    by_bag = {d["bag"]: d for d in listed["deposits"]}
    for shown in cash["made"]:
        for key in ("total", "due", "late", "short", "short_by", "should_hold"):
            assert shown[key] == by_bag[shown["bag"]][key], (shown["bag"], key)
    # and the page says so
    html = render.RENDERERS["cash"]({"cash": cash, "time_zone": "America/New_York"})
    assert "Due by <strong>2026-12-04</strong>: session 2026-12-02/1, $7.00 (expected)" in html
    assert "go to the bank by <strong>2026-12-07</strong>" in html
    assert "LATE; SHORT by $1.00 of $4.00" in html and "1 late, 1 short" in html
    row = re.sub(r' class="nowrap"', "", html)  # codes and dates kept on one line each
    assert "<td>B-2</td><td>2026-11-29/1</td><td>2026-12-01</td><td>$6.00</td>" in row
    assert "on time" in html


ROLE_BADGES = {"manager": "M1", "treasurer": "T1", "inspector": "I1"}
SECTION_IDS = ("takings", "deals", "stations", "exceptions", "cash", "reports")


def _signed_in_as(app: WebApp, context: ssl.SSLContext, role: str) -> str:
    link = web_access.create_pairing(app.station, role, operator="M1")["url"]
    token = link.rsplit("/", 1)[1]
    form = f"token={token}&badge={ROLE_BADGES[role]}&pin={PIN}".encode()
    answer = request(f"{app.url}{SIGNIN}", "POST", context=context, body=form)
    assert answer.status == 303, (role, answer.body[:300])
    return answer.headers["set-cookie"].split(";")[0].split("=", 1)[1]


def _pdf_text(body: bytes) -> str:
    import subprocess

    done = subprocess.run(["pdftotext", "-", "-"], input=body, capture_output=True, check=True)
    return done.stdout.decode()


def test_every_route_shows_each_role_only_its_sections(selling: Hall) -> None:
    """Each route x each role: the dashboard, its live updates and its JSON carry the role's
    sections only, and so do the PDFs (a treasurer's day report has no exceptions)."""
    for role, badge in (("treasurer", "T1"), ("inspector", "I1")):
        added = selling(
            "staff", "add", "--name", f"{role} one", "--badge", badge, "--role", role,
            "--dob", "1980-01-01",
        )  # fmt: skip
        assert added.exit_code == 0, added.stderr
    assert selling("sell", "A123456", "--qty", "3", "--as", "S1").exit_code == 0
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 0
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 1  # paid before
    with _station(selling) as st:
        for badge in ROLE_BADGES.values():
            set_pin(st, badge, PIN, "M1")
        assert [e["kind"] for e in reports.day_report(st)["exceptions"]] == ["double-payment"]
    st = _station(selling)
    app = WebApp(st, "127.0.0.1:0")
    app.start()
    context = ssl.create_default_context(cadata=app.ca_pem.decode())
    checked: set[tuple[str, str]] = set()
    try:
        for role in web_access.WEB_ROLES:
            shown = set(render.SECTIONS[role])
            cookie = _signed_in_as(app, context, role)
            for path in ROUTES:
                if path == "/live":
                    status, first = _first_event(app.url, context, cookie)
                    assert status == 200
                    html = json.loads(first.split(b"data: ", 1)[1])["html"]
                    assert {s for s in SECTION_IDS if f'id="h-{s}"' in html} == shown, role
                    checked.add((role, path))
                    continue
                answer = request(app.url + path, context=context, cookie=cookie)
                assert answer.status == 200, (role, path, answer.status)
                if path == "/":
                    html = answer.body.decode()
                    assert {s for s in SECTION_IDS if f'id="h-{s}"' in html} == shown, role
                elif path == "/data.json":
                    data = json.loads(answer.body)
                    keys = {"takings": "report"}
                    expected = {keys.get(s, s) for s in shown if s != "reports"}
                    assert set(data) - {"role", "version", "station"} == expected, role
                elif path == "/report/day.pdf":
                    text = _pdf_text(answer.body)
                    assert ("double-payment" in text) == ("exceptions" in shown), (role, text)
                    assert ("Exceptions" in text) == ("exceptions" in shown), role
                    assert ("punch not confirmed" in text) == ("exceptions" in shown), role
                    assert "Gross" in text  # the takings every role sees
                else:
                    assert path == "/report/form.pdf"
                    text = _pdf_text(answer.body)
                    assert "reconciliation" in text and "double-payment" not in text, role
                checked.add((role, path))
    finally:
        app.stop()
        st.close()
    assert checked == {(r, p) for r in web_access.WEB_ROLES for p in ROUTES}


def test_a_session_keeps_a_few_live_streams_a_new_one_ends_its_oldest(
    serving: tuple[Hall, WebApp, ssl.SSLContext],
) -> None:
    """Each live stream holds a worker thread for as long as it lasts: one session cannot open
    them without end. Past the cap its oldest stream is told `replaced` and ends."""
    hall, app, context = serving
    cookie = _sign_in(hall, app, context)
    parts = urlsplit(app.url)
    streams = []
    try:
        for _ in range(web_server.MAX_STREAMS_PER_SESSION + 1):
            conn = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, context=context, timeout=30
            )
            conn.request("GET", "/live", headers={"Cookie": f"{web_access.COOKIE}={cookie}"})
            answer = conn.getresponse()
            assert answer.status == 200
            assert answer.fp.readline().startswith(b"event: update")  # the stream is open
            streams.append((conn, answer))
        oldest = streams[0][1]
        events = []
        while (line := oldest.fp.readline()) and not line.startswith(b"event: replaced"):
            events.append(line)  # beats, until the stream ends
        assert line.startswith(b"event: replaced"), events
        assert oldest.fp.readline() == b"data: {}\n"
        assert app.streams(_session_id(app, cookie)) == web_server.MAX_STREAMS_PER_SESSION
    finally:
        for conn, _ in streams:
            conn.close()


def _session_id(app: WebApp, cookie: str) -> str:
    session = web_access.check_cookie(app.station, cookie)
    assert session is not None
    return session.id


HOSTILE = "<script>alert('x')</script>&\""


def test_a_hostile_deal_name_is_escaped_on_every_page_that_shows_it(
    hall: Hall, tmp_path: Path
) -> None:
    """A deal's name comes from its flare (a file from the distributor): on the dashboard, in
    its live updates and on the hall's title it is text, never markup."""
    assert hall.receive(flare("B765432", name=HOSTILE)).exit_code == 0
    assert hall("deal", "open", "B765432", "--bin", "drawer-1").exit_code == 0
    assert hall("session", "open").exit_code == 0
    assert hall("sell", "B765432", "--qty", "2", "--as", "S1").exit_code == 0
    with _station(hall) as st:
        set_pin(st, "M1", PIN, "M1")
    st = _station(hall)
    app = WebApp(st, "127.0.0.1:0")
    app.start()
    context = ssl.create_default_context(cadata=app.ca_pem.decode())
    escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#34;"
    try:
        cookie = _signed_in_as(app, context, "manager")
        page = request(app.url + "/", context=context, cookie=cookie).body.decode()
        _, first = _first_event(app.url, context, cookie)
        live = json.loads(first.split(b"data: ", 1)[1])["html"]
        for shown in (page, live, render.fragment(phone_data(app.reader()), "manager")):
            assert escaped in shown
            assert "<script>alert" not in shown
        assert page.count("<script") == 1  # the page's own script, with its nonce
        # every text of the dashboard's data hostile (and the receipts, numbers in practice):
        # no field of any section, however it came, is written raw
        data = {**_hostile(dashboard.dashboard(app.reader())), "time_zone": app.zone}
        data["stations"][0]["printer_faults"] = [{"receipt": HOSTILE, "error": HOSTILE}]
        data["stations"][0]["dispenser_faults"] = [{"receipt": HOSTILE, "fault": HOSTILE}]
        for role in web_access.WEB_ROLES:
            shown = render.dashboard_page(data, role, HOSTILE, HOSTILE, nonce="n")
            assert "<script>alert" not in shown and escaped in shown, role
        # the sign-in page and a refusal carry text from outside too
        zone = app.zone
        pairing = render.pairing_page(
            "manager", HOSTILE, "AA", nonce="n", error=HOSTILE, zone=zone, ca_name=HOSTILE
        )
        refusal = render.message_page(HOSTILE, HOSTILE, nonce="n", zone=zone)
        for shown in (pairing, refusal):
            assert "<script>alert" not in shown and escaped in shown
    finally:
        app.close_reader()
        app.stop()
        st.close()


def _hostile(value: Any, key: str = "") -> Any:
    """`value` with every string in it HOSTILE (the hourly sales stay figures for the chart)."""
    if isinstance(value, dict):
        return {k: v if k == "hourly" else _hostile(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_hostile(v, key) for v in value]
    return HOSTILE if isinstance(value, str) else value


def test_web_pair_expires_in_takes_what_the_service_allows(station: Station) -> None:
    """The option's range and help are the service's bound (MAX_PAIR_TTL), not a wider one."""
    from tests.conftest import run_booth

    helped = run_booth("--hall", str(station.directory), "web", "pair", "--help")
    assert f"1 to {web_access.MAX_PAIR_TTL}" in " ".join(helped.stdout.split())
    assert f"1<=x<={web_access.MAX_PAIR_TTL}" in helped.stdout
    too_long = str(web_access.MAX_PAIR_TTL + 1)
    ran = run_booth(
        "--hall", str(station.directory), "web", "pair", "--role", "manager", "--as", "M1",
        "--expires-in", too_long,
    )  # fmt: skip
    assert ran.exit_code == 2 and too_long in ran.stderr, (ran.exit_code, ran.stderr)
