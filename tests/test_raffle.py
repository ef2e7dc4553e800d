"""Issue #18, raffles (11VAC15-40-60 F): numbered two-part tickets printed with a signed QR code
that verifies offline, the stubs counted against the tickets sold (F1), each number drawn sold
and not voided (F1), prizes at fair market value (F2), claims with W-2G identity, and the raffle
line of the day report and the reconciliation form."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import zxingcpp

from hardware.printer.escpos_image import interpret
from hardware.printer.profiles import get_profile
from hardware.printer.render import render_receipt
from pos.services import receipts
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall, refused

QUILT = "Handmade quilt;250.00;appraisal by Riverside Quilters"
CARD = "Gift card;50.00;face value of the card"


@pytest.fixture
def raffle(hall: Hall) -> Hall:
    """Raffle QUILT26 ($5 a ticket, drawn on the training day), a seller S1 and witness W1."""
    assert hall("staff", "add", "--name", "Wendy Witness", "--badge", "W1", "--role", "seller",
                "--dob", "1980-02-02").exit_code == 0  # fmt: skip
    created = hall("raffle", "create", "QUILT26", "--name", "Quilt raffle", "--drawing",
                   "2026-11-28", "--price", "5.00", "--prize", QUILT, "--prize", CARD,
                   "--json")  # fmt: skip
    assert created.exit_code == 0, created.stderr
    return hall


def _sell(hall: Hall, qty: int) -> list[dict[str, object]]:
    sold = hall("raffle", "sell", "QUILT26", "--qty", str(qty), "--as", "S1", "--json")
    assert sold.exit_code == 0, sold.stderr
    tickets: list[dict[str, object]] = sold.json["tickets"]
    return tickets


def _decode(job: bytes, profile: str) -> tuple[list[str], int, str]:
    """The printed lines, the cuts and the one QR code read back from an ESC/POS job."""
    printout = interpret(job, profile)
    [found] = zxingcpp.read_barcodes(printout.image)
    return printout.lines, printout.cuts, found.text


@pytest.mark.rule("F1")
@pytest.mark.parametrize("profile", ["generic-58", "epson-tm-t20"])
def test_a_raffle_ticket_prints_stub_and_buyers_part_and_its_qr_verifies(
    raffle: Hall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    prints = tmp_path / "prints"
    monkeypatch.setenv("BOOTH_PRINTER_SPOOL", str(prints))
    assert raffle("printer", "set", f"dir:{prints}", "--profile", profile).exit_code == 0
    first, second = _sell(raffle, 2)
    # The print queue's job: python-escpos (its Dummy printer) made these bytes.
    job = (prints / f"manager-{first['receipt']:06d}.bin").read_bytes()
    lines, cuts, code = _decode(job, profile)
    # The stub comes off (cut, or torn where the printer has no cutter), then the buyer's part.
    assert cuts == (2 if get_profile(profile).has_cutter else 0)
    assert any("tear here" in line for line in lines)
    stub_at = next(i for i, line in enumerate(lines) if line.startswith("RAFFLE STUB"))
    numbers = [i for i, line in enumerate(lines) if line.strip() == "No. 000001"]
    assert len(numbers) == 2 and numbers[0] > stub_at  # the same number on both parts
    assert any("Name: ___" in line for line in lines[: numbers[1]])
    assert any("$5.00" in line for line in lines[numbers[0] :])
    # The same bytes from the receipt as data, through python-escpos's Dummy directly.
    with Station(raffle.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        ticket = receipts.receipt(st, st.id, int(str(first["receipt"])))
    assert ticket.kind == "raffle-ticket" and ticket.stub
    assert _decode(render_receipt(ticket, profile), profile)[2] == code == ticket.qr

    verified = raffle("receipt", "verify", code, "--json")
    assert verified.exit_code == 0, verified.stderr
    assert verified.json["genuine"] and verified.json["kind"] == "raffle-ticket"
    assert verified.json["raffle"]["raffle"] == "QUILT26"
    assert verified.json["raffle"]["number"] == "000001"
    assert verified.json["raffle"]["status"] == "sold"
    human = raffle("receipt", "verify", code)
    assert "raffle QUILT26 (Quilt raffle) ticket 000001: SOLD" in human.stdout

    flipped = code[:-3] + ("A" if code[-3] != "A" else "B") + code[-2:]
    assert raffle("receipt", "verify", flipped).exit_code == 4
    raw = bytearray(code.encode())
    raw[len("B1.") + 2] ^= 0x01  # one bit of the hall id
    assert raffle("receipt", "verify", raw.decode()).exit_code in (2, 4)

    # Voided, then drawn: the ticket's code says so.
    assert raffle("raffle", "void", "QUILT26", "2", "--reason", "misprint").exit_code == 0
    code2 = _decode((prints / f"manager-{second['receipt']:06d}.bin").read_bytes(), profile)[2]
    assert raffle("receipt", "verify", code2, "--json").json["raffle"]["status"] == "voided"
    assert raffle("raffle", "stubs", "QUILT26", "--count", "1", "--witness", "W1").exit_code == 0
    assert raffle("raffle", "draw", "QUILT26", "1").exit_code == 0
    drawn = raffle("receipt", "verify", code, "--json").json["raffle"]
    assert drawn["status"] == "drawn" and drawn["prize"]["description"] == "Handmade quilt"
    claimed = raffle("raffle", "claim", "QUILT26", "--place", "1", "--code", code, "--json")
    assert claimed.exit_code == 0, claimed.stderr
    assert claimed.json["presented"] and claimed.json["ticket"] == "000001"


def test_a_stub_count_that_does_not_match_the_sales_is_refused_and_flagged(raffle: Hall) -> None:
    _sell(raffle, 5)
    assert raffle("raffle", "void", "QUILT26", "3", "--reason", "rung in error").exit_code == 0
    before = raffle.count()
    result = raffle("raffle", "stubs", "QUILT26", "--count", "5", "--witness", "W1")
    refused(result, "F1")
    assert "5 stubs counted" in result.stderr and "4 tickets were sold and not voided" in (
        result.stderr
    )
    assert raffle.count() == before + 1  # the flag only: no drawing started
    assert raffle("raffle", "show", "QUILT26", "--json").json["stubs"] is None
    flags = raffle("exception", "list", "--json").json
    assert [f["kind"] for f in flags] == ["raffle-stubs"]
    assert flags[0]["serial"] == "QUILT26" and "(rule F1)" in flags[0]["detail"]
    # No number is drawn before the stubs are in.
    refused(raffle("raffle", "draw", "QUILT26", "1"), "F1")
    # The right count starts the drawing, with its witnesses; no sale or void after it.
    ok = raffle("raffle", "stubs", "QUILT26", "--count", "4", "--witness", "W1", "--witness",
                "S1", "--json")  # fmt: skip
    assert ok.exit_code == 0, ok.stderr
    assert ok.json["witnesses"] == ["W1", "S1"]
    refused(raffle("raffle", "sell", "QUILT26", "--as", "S1"), "F1")
    refused(raffle("raffle", "void", "QUILT26", "1", "--reason", "late"), "F1")
    refused(raffle("raffle", "stubs", "QUILT26", "--count", "4", "--witness", "W1"), "F1")


def test_a_number_drawn_must_be_sold_and_not_voided(raffle: Hall) -> None:
    _sell(raffle, 3)
    assert raffle("raffle", "void", "QUILT26", "2", "--reason", "torn").exit_code == 0
    assert raffle("raffle", "stubs", "QUILT26", "--count", "2", "--witness", "W1").exit_code == 0
    refused(raffle("raffle", "draw", "QUILT26", "9"), "F1")  # never sold
    refused(raffle("raffle", "draw", "QUILT26", "2"), "F1")  # voided
    flagged = [f["ticket"] for f in raffle("exception", "list", "--json").json]
    assert sorted(flagged) == ["000002", "000009"]
    won = raffle("raffle", "draw", "QUILT26", "3", "--json")
    assert won.exit_code == 0 and won.json["place"] == 1 and won.json["ticket"] == "000003"
    refused(raffle("raffle", "draw", "QUILT26", "3"), "RAFFLE")  # its stub is out
    refused(raffle("raffle", "draw", "QUILT26", "1", "--place", "1"), "RAFFLE")  # drawn already
    assert raffle("raffle", "draw", "QUILT26", "1", "--json").json["place"] == 2
    shown = raffle("raffle", "show", "QUILT26", "--json").json
    assert [p["ticket"] for p in shown["prizes"]] == ["000003", "000001"]


def test_prizes_need_a_fair_market_value_and_its_basis(hall: Hall) -> None:
    base = ("raffle", "create", "R1", "--name", "TV raffle", "--drawing", "2026-12-05",
            "--price", "2.00")  # fmt: skip
    refused(hall(*base, "--prize", "Television;;"), "F2")
    refused(hall(*base, "--prize", "Television;400.00;"), "F2")
    assert hall(*base, "--prize", "Television;400.00").exit_code == 2  # not D;V;B
    assert hall(*base, "--prize", "Television;400.00;Best Buy retail price").exit_code == 0
    refused(hall(*base, "--prize", "Radio;40.00;retail price"), "RAFFLE")  # the id is taken
    # Drawn on its date, not before.
    assert hall("raffle", "sell", "R1", "--as", "S1").exit_code == 0
    refused(hall("raffle", "stubs", "R1", "--count", "1", "--witness", "S1"), "RAFFLE")


def test_a_prize_reportable_on_w2g_is_claimed_with_the_winners_identity(hall: Hall) -> None:
    created = hall("raffle", "create", "CAR", "--name", "Car raffle", "--drawing", "2026-11-28",
                   "--price", "5.00", "--prize", "Used car;9500.00;Kelley Blue Book value",
                   "--prize", "Dinner;20.00;menu price")  # fmt: skip
    assert created.exit_code == 0, created.stderr
    assert hall("raffle", "sell", "CAR", "--qty", "2", "--as", "S1").exit_code == 0
    assert hall("raffle", "stubs", "CAR", "--count", "2", "--witness", "S1").exit_code == 0
    assert hall("raffle", "draw", "CAR", "2").exit_code == 0
    assert hall("raffle", "draw", "CAR", "1").exit_code == 0
    refused(hall("raffle", "claim", "CAR", "--place", "1", "--as", "S1"), "W2G")
    assert hall("raffle", "claim", "CAR", "--place", "3", "--as", "S1").exit_code == 2  # none
    claimed = hall("raffle", "claim", "CAR", "--place", "1", "--as", "S1", "--winner-name",
                   "Pat Winner", "--winner-address", "1 Elm St", "--winner-tin", "123-45-6789",
                   "--winner-id", "VA DL T12345678", "--json")  # fmt: skip
    assert claimed.exit_code == 0, claimed.stderr
    assert claimed.json["w2g"] is True
    small = hall("raffle", "claim", "CAR", "--place", "2", "--as", "S1", "--json")
    assert small.exit_code == 0 and small.json["w2g"] is False
    refused(hall("raffle", "claim", "CAR", "--place", "2", "--as", "S1"), "PAID")  # once


def test_the_day_report_and_the_form_carry_the_raffle_line(raffle: Hall, tmp_path: Path) -> None:
    _sell(raffle, 7)  # $35.00 at the manager's drawer
    assert raffle("raffle", "void", "QUILT26", "4", "--reason", "rung in error").exit_code == 0
    assert raffle("raffle", "stubs", "QUILT26", "--count", "6", "--witness", "W1").exit_code == 0
    assert raffle("raffle", "draw", "QUILT26", "6").exit_code == 0  # the $250.00 quilt
    day = raffle("report", "day", "--date", "2026-11-28", "--json").json
    [line] = day["raffles"]
    # By hand: 7 sold and 1 voided at $5.00 = $30.00; the quilt drawn, $250.00 fair value.
    assert (line["tickets_sold"], line["tickets_voided"]) == (7, 1)
    assert (line["gross"], line["prizes"], line["net"]) == ("30.00", "250.00", "-220.00")
    [product] = [p for p in day["products"] if p["line"] == "raffles"]
    assert product == {"line": "raffles", "tickets_sold": 6, "gross": "30.00",
                       "prizes_paid": "250.00", "net": "-220.00"}  # fmt: skip
    [drawer] = [c for c in day["cash"] if c["station"] == "manager"]
    assert drawer["expected"] == "30.00"
    text = raffle("report", "day", "--date", "2026-11-28")
    assert "raffle QUILT26" in text.stdout and "$-220.00" in text.stdout.replace(" ", "")
    form = tmp_path / "form.pdf"
    assert raffle("report", "form", "--date", "2026-11-28", "--pdf", str(form)).exit_code == 0
    printed = subprocess.run(
        ["pdftotext", "-layout", str(form), "-"], capture_output=True, text=True, check=True
    ).stdout
    [row] = [r for r in printed.splitlines() if "Raffle QUILT26" in r]
    assert row.split()[-3:] == ["30.00", "250.00", "-220.00"]
    pdf = tmp_path / "day.pdf"
    assert raffle("report", "day", "--date", "2026-11-28", "--pdf", str(pdf)).exit_code == 0
    day_text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    [row] = [r for r in day_text.splitlines() if "Raffle QUILT26" in r]
    assert row.split()[-3:] == ["30.00", "250.00", "-220.00"]
