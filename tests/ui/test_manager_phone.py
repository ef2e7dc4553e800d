"""The manager screen pairs a phone: the QR code on the screen carries the pairing link, the
phone signs in through it, and the manager revokes the phone's session from the screen."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import pytest
import zxingcpp
from PIL import Image

from tests.web.phone import fingerprint, request, set_pin, untrusted
from web.server import WebApp

pytestmark = pytest.mark.slow  # Kivy renders every screen

PIN = "2468"


def test_the_manager_screen_pairs_a_phone_and_revokes_it(demo_hall: Path, open_front: Any) -> None:
    ui = open_front(demo_hall / "manager")
    ui.runtime.worker_call(lambda st: set_pin(st, "M100", PIN, "M100"))
    ui.type("login-entry", "M100", enter=True)
    ui.tap("tab-phone")
    assert "not running here" in ui.find("phone-served").text
    ui.tap("pair-manager")  # no web app: refused, said so
    assert ui.find("phone-headline").text == "Cannot pair"
    station = ui.runtime.worker_call(lambda st: st)
    app = WebApp(station, "127.0.0.1:0")
    app.start()
    try:
        ui.tap("tab-dashboard")
        ui.tap("tab-phone")
        assert app.url in ui.find("phone-served").text
        ui.tap("pair-manager")
        assert ui.find("phone-headline").text == "SCAN TO PAIR"
        assert ui.find("phone-detail").text.startswith("A manager: one sign-in, until ")
        assert app.ca_fingerprint in ui.find("phone-served").text.replace("\n", "")
        shots = ui.shot("manager-phone-pairing")
        # the phone's camera: the QR code on the screen, at both sizes, is the link
        links = set()
        for shot in shots:
            found = zxingcpp.read_barcodes(Image.open(shot))
            assert [f.format for f in found] == [zxingcpp.BarcodeFormat.QRCode], shot
            links.add(found[0].text)
        assert links == {ui.find("pair-link").text}
        link = links.pop()
        assert link.startswith(f"{app.url}/pair/")
        context = ssl.create_default_context(cadata=app.ca_pem.decode())
        token = link.rsplit("/", 1)[1]
        signed = request(
            f"{app.url}/signin",
            "POST",
            context=context,
            body=f"token={token}&badge=M100&pin={PIN}".encode(),
        )
        assert signed.status == 303
        cookie = signed.headers["set-cookie"].split(";")[0].split("=", 1)[1]
        assert request(app.url + "/", context=context, cookie=cookie).status == 200
        ui.tap("tab-dashboard")
        ui.tap("tab-phone")
        revoke = next(i for i in ui.idents() if i.startswith("revoke-"))
        assert "manager M100 · active" in ui.text()
        ui.shot("manager-phone-signed-in", both=False)
        ui.tap(revoke)
        assert ui.find("phone-headline").text == "REVOKED"
        assert "manager M100 · revoked" in ui.text()
        assert request(app.url + "/", context=context, cookie=cookie).status == 401
    finally:
        app.stop()


def test_the_phones_tab_prepares_the_manager_for_the_certificate_warning(
    demo_hall: Path, open_front: Any
) -> None:
    """The phone's first scan lands on its browser's warning of the hall's own certificate: the
    tab says what to tap on Android and on an iPhone, and shows the hall's certificate as a QR
    code for the phone to install (the certificate the web server chains to, no key)."""
    ui = open_front(demo_hall / "manager")
    ui.runtime.worker_call(lambda st: set_pin(st, "M100", PIN, "M100"))
    ui.type("login-entry", "M100", enter=True)
    station = ui.runtime.worker_call(lambda st: st)
    app = WebApp(station, "127.0.0.1:0")
    app.start()
    try:
        ui.tap("tab-phone")
        ui.tap("pair-manager")
        detail = ui.find("phone-detail").text
        assert "UTC" not in detail and "+00:00" not in detail  # until when, on the hall's clock
        ui.tap("phone-warns")
        said = ui.text()
        for words in (
            "Your connection is not private",
            "Advanced > Proceed to 127.0.0.1 (unsafe)",
            "This Connection Is Not Private",
            "Show Details > visit this website > Visit Website",
            "Install a certificate > CA certificate",
            "Certificate Trust Settings > turn on full trust",
        ):
            assert words in said, words
        assert ui.find("pair-title").text == "The hall's certificate"
        assert ui.find("phone-headline").text == "CERTIFICATE"
        assert "pair-manager" not in ui.idents()  # this code pairs nobody
        ca_url = f"{app.url}/hall-ca.crt"
        assert ui.find("pair-link").text == ca_url
        shots = ui.shot("manager-phone-warns")
        ui.tap("trust-step-6")  # a finger scrolls the steps to their last line
        ui.shot("manager-phone-warns-end", both=False)
        for shot in shots:  # the phone's camera reads the certificate's address
            found = zxingcpp.read_barcodes(Image.open(shot))
            assert [f.text for f in found] == [ca_url], shot
        # what the phone downloads there, before it trusts the hall: the hall's web CA, whose
        # fingerprint is the one the tab shows
        download = request(ca_url, context=untrusted())
        assert download.status == 200
        assert download.headers["content-type"] == "application/x-x509-ca-cert"
        assert b"PRIVATE KEY" not in download.body
        assert fingerprint(download.body) == app.ca_fingerprint
        assert app.ca_fingerprint in ui.find("phone-served").text.replace("\n", "")
        # back to the phones signed in: the pairing code again
        ui.tap("phone-show-sessions")
        assert ui.find("pair-title").text == "Pair a phone"
        assert ui.find("phone-headline").text == "SCAN TO PAIR"
        assert ui.find("pair-link").text.startswith(f"{app.url}/pair/")
        ui.shot("manager-phone-back", both=False)
    finally:
        app.stop()
