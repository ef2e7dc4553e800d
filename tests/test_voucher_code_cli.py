"""`booth voucher issue --json` gives the short code printed under the voucher's QR;
`booth voucher redeem` takes it typed (dashes optional, any case) as well as the QR text. A typo
reads as a typo (exit 2), a voucher paid already or not on file as a refusal (exit 1), a code
forged at another hall as an integrity failure (exit 4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import zxingcpp

from hardware.printer.escpos_image import interpret
from hardware.printer.render import render_receipt
from pos.domain import voucher_code
from pos.services import hall as hall_service
from pos.services import receipts
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import TRAINING_NOW, make_training_hall, run_booth
from tests.halls import Hall

ENVIRON = {"BOOTH_NOW": TRAINING_NOW}
GROUPED = re.compile(
    r"[34679ACDEFHJKMNPQRTUWXY]{4}-[34679ACDEFHJKMNPQRTUWXY]{4}-[34679ACDEFHJKMNPQRTUWXY]{5}"
)


def _second_station(hall: Hall, tmp_path: Path) -> Path:
    with Station(hall.directory, environ=ENVIRON) as st:
        bundle = hall_service.add_station(st, name="booth-9", role="booth", operator="M1")
    path = tmp_path / "b9.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "booth-9", path, environ=ENVIRON)
    return tmp_path / "booth-9"


def _printed(directory: Path, number: int) -> tuple[list[str], list[str]]:
    """The voucher as its printers print it, read back from the ESC/POS bytes: (text lines,
    what the QR codes say), the same on a 58 mm (image QR) and an 80 mm (native QR) printer;
    the short code's bytes come after the QR code's."""
    with Station(directory, environ=ENVIRON) as st:
        voucher = receipts.receipt(st, st.id, number)
    assert voucher.typed_code
    read = []
    for profile, qr_command in (("generic-58", b"\x1dv0"), ("epson-tm-t20", b"\x1d(k")):
        job = render_receipt(voucher, profile)
        assert job.index(voucher.typed_code.encode()) > job.rindex(qr_command)
        printout = interpret(job, profile)
        qrs = [found.text for found in zxingcpp.read_barcodes(printout.image.convert("L"))]
        read.append(([line.strip() for line in printout.lines], qrs))
    assert read[0][0][-2:] == read[1][0][-2:] and read[0][1] == read[1][1]
    return read[0]


def test_a_typed_code_pays_once(selling: Hall) -> None:
    issued = selling("voucher", "issue", "20.00", "--json")
    assert issued.exit_code == 0, issued.stderr
    code = issued.json["code"]
    assert GROUPED.fullmatch(code), code
    lines, qrs = _printed(selling.directory, issued.json["voucher"])
    assert lines[-2:] == ["Will not scan? Type this code:", code]  # under the QR code
    assert len(qrs) == 1 and qrs[0].startswith("B1.")

    human = selling("voucher", "issue", "5.00")
    assert human.exit_code == 0 and re.search(r"; code [A-Z0-9-]{15}\.$", human.stdout.strip())

    typed = code.replace("-", "").lower()  # dashes optional, lower case read
    paid = selling("voucher", "redeem", typed, "--json")
    assert paid.exit_code == 0, paid.stderr
    assert paid.json["paid"] == "20.00" and paid.json["voucher"] == issued.json["voucher"]

    again = selling("voucher", "redeem", code)
    assert again.exit_code == 1 and "already paid" in again.stderr, again.stderr
    by_qr = selling("voucher", "redeem", qrs[0])  # the QR of the same voucher: paid already
    assert by_qr.exit_code == 1 and "already paid" in by_qr.stderr


def test_a_typo_says_typo_and_a_made_up_code_is_not_paid(selling: Hall) -> None:
    issued = selling("voucher", "issue", "20.00", "--json").json
    code = voucher_code.parse(issued["code"])
    swapped = code[:3] + code[4] + code[3] + code[5:]
    if swapped == code:
        swapped = code[:6] + code[7] + code[6] + code[8:]
    wrong = code[:-1] + next(c for c in voucher_code.ALPHABET if c != code[-1])
    for typo in (swapped, wrong, code[:-1], "O" + code[1:]):
        result = selling("voucher", "redeem", typo)
        assert result.exit_code == 2, (typo, result.stdout, result.stderr)
        assert "that code has a typo" in result.stderr and "check it and try again" in result.stderr
        assert "not on file" not in result.stderr

    guessed = voucher_code.from_number(7)  # well formed, but no voucher has it
    made_up = selling("voucher", "redeem", voucher_code.grouped(guessed))
    assert made_up.exit_code == 1, made_up.stderr
    assert "no voucher of this hall on file here has the code" in made_up.stderr
    assert "(rule VOUCHER)" in made_up.stderr
    # nothing was paid: the real voucher still pays, once
    assert selling("voucher", "redeem", issued["code"]).exit_code == 0


def test_issued_at_one_station_typed_at_another_after_sync(selling: Hall, tmp_path: Path) -> None:
    other = _second_station(selling, tmp_path)
    issued = run_booth(
        "--hall",
        str(other),
        "voucher",
        "issue",
        "7.50",
        "--json",
        env={"BOOTH_OPERATOR": "S1", **ENVIRON},
    )
    assert issued.exit_code == 0, issued.stderr
    code = issued.json["code"]
    not_yet = selling("voucher", "redeem", code)  # not synced: not on file here, not paid
    assert not_yet.exit_code == 1 and "no voucher of this hall" in not_yet.stderr
    with (
        Station(selling.directory, environ=ENVIRON) as manager,
        Station(other, environ=ENVIRON) as booth,
    ):
        pull(booth.ledger, manager.ledger)
    paid = selling("voucher", "redeem", code.replace("-", " "), "--json")
    assert paid.exit_code == 0, paid.stderr
    assert paid.json["station"] == "booth-9" and paid.json["paid"] == "7.50"


def test_a_voucher_of_another_hall_is_refused(selling: Hall, tmp_path: Path) -> None:
    elsewhere = make_training_hall(tmp_path / "elsewhere")
    with Station(elsewhere, environ=ENVIRON) as st:
        from pos.services import vouchers

        issued = vouchers.issue_voucher(st, "20.00", reason="cash", operator="S1")
        qr = receipts.receipt(st, st.id, issued.voucher).qr
    assert qr is not None and issued.code
    typed = selling("voucher", "redeem", issued.code)
    assert typed.exit_code == 1 and "no voucher of this hall" in typed.stderr
    scanned = selling("voucher", "redeem", qr)
    assert scanned.exit_code == 4, scanned.stderr
