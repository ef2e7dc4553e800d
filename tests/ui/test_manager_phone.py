"""The manager screen pairs a phone: the QR code on the screen carries the pairing link, the
phone signs in through it, and the manager revokes the phone's session from the screen."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import pytest
import zxingcpp
from PIL import Image

from tests.web.phone import request, set_pin
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
