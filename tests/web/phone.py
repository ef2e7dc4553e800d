"""Helpers for the manager's phone tests: a demo hall's manager serving the web app beside a
booth, a staff PIN, HTTPS requests as a phone makes them, and Debian's chromium (headless,
driven by Selenium through chromium-driver) trusting the hall's web certificate authority the
way the pairing page tells a phone to."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pos.domain.pins import hash_pin
from pos.services import web_access
from pos.services.station import Station
from tests.live.owners import NOW, booth, owner, sync_url

MANAGER, BOOTH = "manager", "booth-1"
M = ("--as", "M100")
PINS = {"M100": "2468", "I300": "1357", "T400": "9753"}


def set_pin(st: Station, badge: str, pin: str, by: str) -> None:
    """A staff member's PIN, as `booth staff pin` records it (h-volunteer, issue 20): only its
    slow hash, in a StaffPinSet event."""
    with st.ledger.transaction():
        st.append("StaffPinSet", {"badge": badge, "hash": hash_pin(pin), "by": by})


def set_pins(manager: Path) -> None:
    """PINs for the demo's manager and inspector, and a treasurer with one (before any owner
    runs: the test process opens the station itself)."""
    added = booth(
        manager, "staff", "add", "--name", "Tess Treasurer", "--badge", "T400", "--role",
        "treasurer", "--dob", "1975-03-03", *M,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    previous = os.environ.get("BOOTH_NOW")
    os.environ["BOOTH_NOW"] = NOW  # the demo's scripted clock, as every owner here runs
    try:
        with Station(manager) as st:
            for badge, pin in PINS.items():
                set_pin(st, badge, pin, "M100")
    finally:
        if previous is None:
            del os.environ["BOOTH_NOW"]
        else:
            os.environ["BOOTH_NOW"] = previous


@dataclass
class Hall:
    root: Path
    manager: Path
    booth: Path
    url: str  # the web app's
    ca_pem: bytes
    fingerprint: str
    manager_owner: ExitStack

    def stop_manager(self) -> None:
        """End the manager's owner (and with it the web app) now."""
        self.manager_owner.close()

    def context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cadata=self.ca_pem.decode())
        return context

    def pair(self, role: str, *extra: str) -> dict[str, Any]:
        ran = booth(self.manager, "web", "pair", "--role", role, *M, "--json", *extra)
        assert ran.exit_code == 0, ran.stderr
        result: dict[str, Any] = json.loads(ran.stdout)
        return result


@contextmanager
def serving(demo: Path, into: Path) -> Iterator[Hall]:
    """A copy of the demo hall: its booth serving LAN sync, its manager pulling from the booth
    every second and serving the web app on 127.0.0.1 (a free port)."""
    shutil.copytree(demo, into)
    for name in (MANAGER, BOOTH, "kiosk-1"):
        for stale in ("control.sock", "station.lock"):
            (into / name / stale).unlink(missing_ok=True)
    manager, booth_dir = into / MANAGER, into / BOOTH
    set_pins(manager)
    with ExitStack() as owners:
        booth_log = owners.enter_context(owner(booth_dir, "serve", "--port", "0", "--no-discovery"))
        booth_url = sync_url(booth_log)
        assert booth_url is not None, booth_log.read_text()
        assert booth(manager, "sync", "peer", "add", booth_url, *M).exit_code == 0
        manager_owner = owners.enter_context(ExitStack())
        manager_owner.enter_context(
            owner(manager, "serve", "--port", "0", "--no-discovery", "--web", "127.0.0.1:0")
        )
        state = web_access.served_state(manager)
        url = str(state["url"])
        ca_pem = (manager / "tls" / "web-ca.pem").read_bytes()
        fingerprint = str(state["ca_fingerprint"])
        yield Hall(into, manager, booth_dir, url, ca_pem, fingerprint, manager_owner)


def fingerprint(pem: bytes) -> str:
    der = ssl.PEM_cert_to_DER_cert(pem.decode())
    digest = hashlib.sha256(der).hexdigest().upper()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def request(
    url: str,
    method: str = "GET",
    *,
    context: ssl.SSLContext,
    cookie: str | None = None,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10,
) -> Answer:
    parts = urlsplit(url)
    conn = http.client.HTTPSConnection(
        parts.hostname or "", parts.port, context=context, timeout=timeout
    )
    try:
        sent = dict(headers or {})
        if cookie:
            sent["Cookie"] = f"{web_access.COOKIE}={cookie}"
        if body is not None:
            sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
        conn.request(method, parts.path or "/", body=body, headers=sent)
        answer = conn.getresponse()
        data = answer.read() if method != "HEAD" else b""
        return Answer(answer.status, {k.lower(): v for k, v in answer.getheaders()}, data)
    finally:
        conn.close()


def untrusted() -> ssl.SSLContext:
    """A phone before it trusts the hall: it checks the fingerprint instead."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def sign_in(hall: Hall, role: str, badge: str) -> str:
    """A session cookie for `badge` in `role`, by the pairing link and the sign-in form."""
    link = hall.pair(role)["url"]
    token = link.rsplit("/", 1)[1]
    form = f"token={token}&badge={badge}&pin={PINS[badge]}".encode()
    answer = request(f"{hall.url}/signin", "POST", context=hall.context(), body=form)
    assert answer.status == 303, answer.body[:400]
    cookie = answer.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    return cookie


# --- the browser ---------------------------------------------------------------------------------


def trust_in_nss(home: Path, ca_pem: bytes) -> None:
    """Install the hall's web CA into the NSS store chromium reads for this HOME (what a phone
    does with the pairing page's download)."""
    db = home / ".pki" / "nssdb"
    db.mkdir(parents=True)
    pem = home / "hall-web-ca.pem"
    pem.write_bytes(ca_pem)
    subprocess.run(["certutil", "-N", "-d", f"sql:{db}", "--empty-password"], check=True)
    subprocess.run(
        ["certutil", "-A", "-d", f"sql:{db}", "-n", "booth hall", "-t", "C,,", "-i", str(pem)],
        check=True,
    )


@contextmanager
def chromium(home: Path, width: int = 360, height: int = 800) -> Iterator[Any]:
    """Debian's chromium, headless, through chromium-driver, with HOME (its NSS trust store)
    at `home`. Certificate errors are NOT ignored: the hall's CA must be trusted."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    assert binary and driver_path, "make test installs chromium and chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
        f"--user-data-dir={home / 'profile'}",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
    ):
        options.add_argument(argument)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    service = Service(executable_path=driver_path, env=env)
    driver = webdriver.Chrome(service=service, options=options)
    try:
        size(driver, width, height)
        yield driver
    finally:
        driver.quit()


def size(driver: Any, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
