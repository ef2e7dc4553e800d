"""The PNG rendering: the same picture as the print job read back, and its QR code decodes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image

from hardware.printer.escpos_image import to_image
from hardware.printer.png import render_image, render_png
from hardware.printer.profiles import PROFILES, get_profile
from hardware.printer.render import render_receipt
from tests.printer.receipts import KINDS, genuine, redemption


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_png_is_the_paper(profile_name: str, tmp_path: Path) -> None:
    receipt = redemption()
    profile = get_profile(profile_name)
    png = render_png(receipt, profile)
    path = tmp_path / f"{receipt.station}-{receipt.number:06d}-{profile_name}.png"
    path.write_bytes(png)

    image = Image.open(io.BytesIO(png))
    assert image.width == profile.image_width_px
    assert 800 < image.height < 1400
    found = zxingcpp.read_barcodes(image.convert("L"))
    assert [code.text for code in found] == [receipt.qr]
    assert found[0].format == zxingcpp.BarcodeFormat.QRCode
    assert genuine(found[0].text).kind == "redemption"

    # Dot for dot what the printer prints from the bytes (escpos_image draws on the same canvas).
    paper = to_image(render_receipt(receipt, profile), profile)
    assert paper.size == image.size
    assert paper.convert("L").tobytes() == image.convert("L").tobytes()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_draws_and_decodes(kind: str) -> None:
    receipt = KINDS[kind]()
    image = render_image(receipt, "generic-58")
    assert [code.text for code in zxingcpp.read_barcodes(image.convert("L"))] == [receipt.qr]
    # Black ink in the top rows: the banner or the organisation, not blank paper.
    assert image.convert("L").crop((0, 0, image.width, 40)).getextrema()[0] == 0
