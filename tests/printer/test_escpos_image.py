"""The ESC/POS interpreter on its own: what it accepts, what it refuses, code pages."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from escpos.printer import Dummy

from hardware.printer.errors import UnsupportedEscPos
from hardware.printer.escpos_image import interpret
from hardware.printer.render import render_receipt
from pos.domain.receipt import Receipt


def test_text_styles_and_feeds() -> None:
    printer = Dummy(profile="TM-T20II")
    printer.hw("INIT")
    printer.set(align="center", bold=True)
    printer.textln("Centre")
    printer.set(normal_textsize=False, double_width=True, double_height=True)
    printer.textln("BIG")
    printer.ln(2)
    printer.set_with_default()
    printer.textln("x" * 50)  # wraps at 48 columns, as the printer would
    printer.cut()
    out = interpret(printer.output, "epson-tm-t20")
    assert out.lines == ["Centre", "BIG", "x" * 48, "xx"]
    assert out.cuts == 1


def test_code_pages_round_trip() -> None:
    receipt = Receipt(
        "test",
        "Société de pompiers Ålesund",
        "Straße 5",
        "s",
        1,
        datetime(2026, 1, 1, tzinfo=UTC),
        None,
    )
    for profile in ("epson-tm-t20", "generic-58"):
        lines = interpret(render_receipt(receipt, profile), profile).lines
        assert lines[0].strip() == "Société de pompiers Ålesund"
        assert lines[1].strip() == "Straße 5"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x1b@\x1b*\x00\x01\x00\xff", "ESC * at offset 2"),
        (b"\x1b@\x1d(L\x02\x000p", "GS ( L at offset 2"),
        (b"abc\x1d(k\x05\x001P0x", "ends inside GS ( k"),
        (b"\x1dv0\x00\x10\x00\x10\x00", "ends inside GS v 0 image"),
        (b"\x07", "control 0x07 at offset 0"),
    ],
)
def test_refuses_what_it_does_not_know(data: bytes, message: str) -> None:
    with pytest.raises(UnsupportedEscPos, match=message.replace("(", r"\(").replace("*", r"\*")):
        interpret(data, "epson-tm-t20")


def test_native_qr_needs_data() -> None:
    with pytest.raises(UnsupportedEscPos, match="no data stored"):
        interpret(b"\x1d(k\x03\x001Q0", "epson-tm-t20")
