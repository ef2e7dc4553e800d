"""A voucher prints its short code under its QR code: the label, then the code in double size,
on a 58 mm printer (image QR) and an 80 mm one (native QR). Golden bytes hold the layout;
the bytes read back say the code under the QR, and the QR still reads as the voucher's.

Regenerate the golden files after an intended layout change with
`UPDATE_GOLDEN=1 .venv/bin/pytest tests/printer/test_voucher_code_print.py`."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
import zxingcpp

from hardware.printer.escpos_image import interpret
from hardware.printer.layout import QrCode, TextRow, rows
from hardware.printer.profiles import get_profile
from hardware.printer.render import render_receipt
from pos.domain import voucher_code
from pos.domain.receipt import Receipt
from tests.printer.receipts import genuine, sale, voucher

GOLDEN = Path(__file__).with_name("golden")
PROFILES = {"generic-58": b"\x1dv0", "epson-tm-t20": b"\x1d(k"}  # image QR, native QR
CODE = voucher_code.grouped(voucher_code.derive(b"the golden voucher's secret, 32 b"))
LABEL = "Will not scan? Type this code:"


def coded() -> Receipt:
    return replace(voucher(), typed_code=CODE)


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_golden_bytes(profile_name: str) -> None:
    data = render_receipt(coded(), profile_name)
    path = GOLDEN / f"voucher-code-{profile_name}.bin"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_bytes(data)
    assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1 once"
    assert data == path.read_bytes(), interpret(data, profile_name).lines


@pytest.mark.parametrize("profile_name", sorted(PROFILES))
def test_the_code_prints_under_the_qr_large(profile_name: str) -> None:
    receipt = coded()
    profile = get_profile(profile_name)
    data = render_receipt(receipt, profile)
    assert data.index(CODE.encode()) > data.rindex(PROFILES[profile_name])
    printout = interpret(data, profile)
    assert [line.strip() for line in printout.lines[-2:]] == [LABEL, CODE]
    found = [hit.text for hit in zxingcpp.read_barcodes(printout.image.convert("L"))]
    assert found == [receipt.qr] and genuine(found[0]).kind == "voucher"
    laid = rows(receipt, profile)
    assert isinstance(laid[-3], QrCode)
    code_row = laid[-1]
    assert isinstance(code_row, TextRow) and code_row.text == CODE
    assert code_row.bold and code_row.double_height and code_row.align == "center"
    assert code_row.double_width is (len(CODE) * 2 <= profile.columns)
    assert voucher_code.parse(CODE) == CODE.replace("-", "")


def test_only_a_voucher_with_a_code_prints_one() -> None:
    for receipt in (voucher(), sale()):
        assert receipt.code_lines() == []
        assert LABEL not in interpret(render_receipt(receipt, "generic-58"), "generic-58").lines
