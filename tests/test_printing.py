"""Receipts on a real ESC/POS path: printed, read back from the bytes, verified; a printer
that fails loses nothing and prints each receipt once, a reprint marked."""

from __future__ import annotations

from pathlib import Path

import pytest
import zxingcpp

from hardware.printer.escpos_image import interpret
from tests.halls import Hall


def _printed(directory: Path, name: str, profile: str) -> tuple[list[str], str]:
    printout = interpret((directory / f"{name}.bin").read_bytes(), profile)
    [decoded] = zxingcpp.read_barcodes(printout.image)
    return printout.lines, decoded.text


@pytest.mark.parametrize("profile", ["generic-58", "epson-tm-t20"])
def test_a_printed_code_verifies_and_one_changed_bit_is_refused(
    selling: Hall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    prints = tmp_path / "prints"
    monkeypatch.setenv("BOOTH_PRINTER_SPOOL", str(prints))
    assert selling("printer", "set", f"dir:{prints}", "--profile", profile).exit_code == 0
    sale = selling("sell", "A123456", "--qty", "3", "--json").json
    lines, code = _printed(prints, f"manager-{sale['receipt']:06d}", profile)
    assert any("TOTAL" in line and "$3.00" in line for line in lines)
    assert any("TRAINING" in line for line in lines)
    verified = selling("receipt", "verify", code, "--json")
    assert verified.exit_code == 0, verified.stderr
    assert verified.json["genuine"] and verified.json["amount"] == "3.00"
    raw = bytearray(code.encode())
    raw[len("B1.") + 2] ^= 0x01  # one bit of the hall id
    refused = selling("receipt", "verify", raw.decode())
    assert refused.exit_code in (2, 4) and "GENUINE" not in refused.stdout
    flipped = code[:-3] + ("A" if code[-3] != "A" else "B") + code[-2:]
    assert selling("receipt", "verify", flipped).exit_code == 4


def test_a_failing_printer_keeps_the_sale_and_prints_once_when_back(
    selling: Hall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prints = tmp_path / "prints"
    monkeypatch.setenv("BOOTH_PRINTER_SPOOL", str(prints))
    prints.mkdir()
    assert selling("printer", "set", f"dir:{prints}").exit_code == 0
    (prints / ".fail").write_text("paper-out")
    sold = selling("sell", "A123456", "--qty", "2", "--json")
    assert sold.exit_code == 0, "the sale is kept whatever the printer does"
    assert "stay queued" in sold.stderr
    status = selling("printer", "status", "--json").json
    assert status["queued"] == [sold.json["receipt"]] and "paper" in status["last_error"]
    (prints / ".fail").unlink()
    # any command that writes prints the queue after it (a read opens the ledger read-only)
    assert selling("printer", "set", f"dir:{prints}").exit_code == 0
    name = f"manager-{sold.json['receipt']:06d}"
    assert (prints / f"{name}.bin").exists()
    assert not list(prints.glob(f"{name}~*")), "printed once"
    lines, _ = _printed(prints, name, "epson-tm-t20")
    assert any("REPRINT" in line for line in lines), "it may have printed when it failed"
    assert selling("receipt", "reprint", str(sold.json["receipt"])).exit_code == 0
    again = interpret((prints / f"{name}-reprint-1.bin").read_bytes(), "epson-tm-t20")
    assert any("REPRINT" in line for line in again.lines)


def test_a_rental_receipt_carries_every_e1e_field(
    hall: Hall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prints = tmp_path / "prints"
    monkeypatch.setenv("BOOTH_PRINTER_SPOOL", str(prints))
    hall("printer", "set", f"dir:{prints}", "--profile", "epson-tm-t20")
    hall("device", "add", "D1")
    hall("device", "package", "basic", "--faces", "12", "--games", "10", "--price", "20.00")
    hall("session", "open")
    rented = hall("rent", "--faces", "12", "--games", "10", "--json")
    assert rented.exit_code == 0, rented.stderr
    text = "\n".join(_printed(prints, f"manager-{rented.json['receipt']:06d}", "epson-tm-t20")[0])
    for field in (
        "Test Fire Company",  # organisation
        "1 Test Road",  # location
        "2026-11-28",  # date
        "18:00",  # time of the transaction
        f"RENTAL #{rented.json['receipt']}",  # sequential receipt number
        "Cards loaded: ",
        "12",  # number of cards loaded
        "Cost:",
        "$20.00",  # their cost
        "Transaction:",
    ):
        assert field in text, f"{field!r} missing from the receipt:\n{text}"


def test_printed_faces_equal_stored_faces(
    hall: Hall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prints = tmp_path / "prints"
    monkeypatch.setenv("BOOTH_PRINTER_SPOOL", str(prints))
    hall("printer", "set", f"dir:{prints}", "--profile", "epson-tm-t20")
    hall("device", "add", "D1")
    hall("device", "package", "basic", "--faces", "3", "--games", "2", "--price", "5.00")
    hall("session", "open")
    hall("rent", "--faces", "3", "--games", "2")
    shown = hall("device", "faces", "D1", "--game", "2", "--print", "--json")
    assert shown.exit_code == 0, shown.stderr
    printout = interpret((prints / "manager-faces-D1-g2.bin").read_bytes(), "epson-tm-t20")
    printed = [line.split() for line in printout.lines]
    for card in shown.json["faces"]:
        start = printed.index(["FACE", str(card["serial"])])
        assert printed[start + 1] == list("BINGO")
        rows = [[0 if n == "FR" else int(n) for n in row] for row in printed[start + 2 : start + 7]]
        assert rows == card["rows"]
