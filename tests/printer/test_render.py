"""Receipts rendered to ESC/POS bytes through python-escpos's Dummy: golden bytes per kind for a
58 mm (image QR) and an 80 mm (native QR) profile, and the bytes read back: text and QR code.

Regenerate the golden files after an intended layout change with
`UPDATE_GOLDEN=1 .venv/bin/pytest tests/printer/test_render.py` and review the diff of the
PNGs it describes; without UPDATE_GOLDEN a mismatch fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import zxingcpp
from escpos.capabilities import get_profile as escpos_profile
from PIL import Image

from hardware.printer.escpos_image import interpret
from hardware.printer.layout import TextRow, rows, text_of
from hardware.printer.profiles import PROFILES, PrinterProfile, get_profile
from hardware.printer.render import kick_drawer_bytes, render_receipt
from pos.domain.receipt import Receipt
from tests.printer.receipts import KINDS, ORGANISATION, genuine, sale

GOLDEN = Path(__file__).with_name("golden")
GOLDEN_PROFILES = ("generic-58", "epson-tm-t20")  # 58 mm image QR, 80 mm native QR
GS_V_0 = b"\x1dv0"
GS_K = b"\x1d(k"


def qr_texts(image: Image.Image) -> list[str]:
    return [found.text for found in zxingcpp.read_barcodes(image.convert("L"))]


@pytest.mark.parametrize("profile_name", GOLDEN_PROFILES)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_golden_bytes(kind: str, profile_name: str) -> None:
    data = render_receipt(KINDS[kind](), profile_name)
    path = GOLDEN / f"{kind}-{profile_name}.bin"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
    assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1 once"
    expected = path.read_bytes()
    if data != expected:
        at = next(
            (i for i, (a, b) in enumerate(zip(data, expected, strict=False)) if a != b),
            min(len(data), len(expected)),
        )
        pytest.fail(
            f"{path.name}: the bytes differ from offset {at} ({len(data)} bytes, golden "
            f"{len(expected)}): got {data[at : at + 24]!r}, golden {expected[at : at + 24]!r}; "
            f"lines now: {interpret(data, profile_name).lines}. If the change is intended, "
            "regenerate with UPDATE_GOLDEN=1."
        )


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_same_receipt_same_bytes(profile_name: str) -> None:
    assert render_receipt(sale(), profile_name) == render_receipt(sale(), profile_name)


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_bytes_read_back_say_what_the_receipt_says(kind: str, profile_name: str) -> None:
    receipt: Receipt = KINDS[kind]()
    profile = get_profile(profile_name)
    printout = interpret(render_receipt(receipt, profile), profile)

    # Line for line the layout of Receipt.text_lines (long banner lines wrapped to the paper).
    assert [line.strip() for line in printout.lines] == text_of(rows(receipt, profile))
    assert all(len(line) <= profile.columns for line in printout.lines)
    text = "\n".join(printout.lines)
    assert ORGANISATION in text
    assert f"#{receipt.number}" in text
    assert ("TRAINING" in text) is receipt.training
    assert ("REPRINT" in text) is receipt.reprint
    if receipt.total is not None:
        lines = receipt.text_lines(profile.columns)
        total = [line for line in lines if line.startswith(receipt.total_label)]
        assert total and total[-1].rstrip() in printout.lines
    if receipt.headline:
        assert receipt.headline in printout.lines

    # The QR code: natively stored, or a raster image; either way it decodes to the payload.
    if profile.native_qr:
        assert printout.qr_codes == [receipt.qr]
        assert printout.images == 0
    else:
        assert printout.qr_codes == []
        assert printout.images == 1
    assert qr_texts(printout.image) == [receipt.qr]
    assert receipt.qr is not None
    assert genuine(qr_texts(printout.image)[0]).number == receipt.number
    assert printout.cuts == (1 if profile.has_cutter else 0)
    assert printout.drawer_kicks == []


def test_rental_receipt_carries_every_field_of_rule_e1e() -> None:
    for name in GOLDEN_PROFILES:
        lines = interpret(render_receipt(KINDS["rental"](), name), name).lines
        pairs = [line.split(":", 1) for line in lines if ":" in line]
        fields = {label: value.strip() for label, value in pairs}
        assert fields["Cards loaded"] == "12"
        assert fields["Cost"] == "$30.00"
        assert fields["Transaction"] == "2026-11-28 18:30:05"


def test_native_qr_only_where_the_profile_says_so() -> None:
    """GS ( k prints as garbage on printers without it (python-escpos #113, #598)."""
    for profile in PROFILES.values():
        data = render_receipt(sale(), profile)
        assert (GS_K in data) is profile.native_qr, profile.name
        assert (GS_V_0 in data) is not profile.native_qr, profile.name


def test_training_and_reprint_marks_are_emphasised() -> None:
    receipt = KINDS["training-reprint"]()
    for name in ("generic-58", "epson-tm-t20"):
        profile = get_profile(name)
        laid_out = rows(receipt, profile)
        count = 3 if profile.columns < 41 else 2  # the training mark is 41 characters
        banner = [row for row in laid_out[:count] if isinstance(row, TextRow)]
        assert " ".join(row.text for row in banner) == " ".join(receipt.banner())
        organisation = laid_out[count]
        assert isinstance(organisation, TextRow)
        assert organisation.text.strip() == receipt.organisation
        assert all(row.bold and row.double_height and row.align == "center" for row in banner)
    data = render_receipt(receipt, "epson-tm-t20")
    # Bold (ESC E 1) and double height (ESC ! 0x10) come before the first mark.
    start = data.index(b"*** TRAINING")
    assert b"\x1bE\x01" in data[:start] and b"\x1b!\x10" in data[:start]


def test_headline_is_double_size() -> None:
    data = render_receipt(KINDS["redemption"](), "epson-tm-t20")
    start = data.index(b"PUNCH NOW")
    assert data[:start].endswith(b"\x1b!\x00\x1b!0\x1bE\x01\x1ba\x01")


def test_drawer_kick() -> None:
    assert kick_drawer_bytes("epson-tm-t20") == b"\x1bp\x0022"  # ESC p, pin 2, 100 ms on/off
    kicked = render_receipt(sale(), "epson-tm-t20", kick_drawer=True)
    assert kicked.startswith(b"\x1b@\x1bp\x0022")
    assert interpret(kicked, "epson-tm-t20").drawer_kicks == [2]


def test_profiles_agree_with_python_escpos() -> None:
    for profile in PROFILES.values():
        media = escpos_profile(profile.escpos_profile).profile_data["media"]["width"]
        assert media["pixels"] == profile.image_width_px, profile.name
        assert profile.columns * profile.cell_px <= profile.image_width_px


def test_a_long_code_still_fits_a_58mm_line() -> None:
    long_qr = "B1." + "x" * 300
    profile: PrinterProfile = get_profile("generic-58")
    receipt = Receipt("test", "Org", "Loc", "s", 1, sale().issued_at, None, qr=long_qr)
    printout = interpret(render_receipt(receipt, profile), profile)
    assert qr_texts(printout.image) == [long_qr]
