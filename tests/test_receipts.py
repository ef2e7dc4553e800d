"""Receipts: QR codes any station verifies offline; the print queue loses nothing; vouchers."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pos.domain.receipt import Receipt
from pos.errors import BadInput, IntegrityFailure, RuleRefused
from pos.services import hall as hall_service
from pos.services import receipts, vouchers
from pos.services.ports import PrinterFault
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import Hall

ENVIRON = {"BOOTH_NOW": TRAINING_NOW}


class RecordingPrinter:
    def __init__(self, fail: int = 0) -> None:
        self.jobs: list[tuple[str, Receipt]] = []
        self.fail = fail

    def print_receipt(self, receipt: Receipt, *, name: str, kick_drawer: bool = False) -> None:
        if self.fail:
            self.fail -= 1
            raise PrinterFault("out of paper")
        self.jobs.append((name, receipt))

    def kick_drawer(self) -> None:
        pass

    def status(self) -> dict[str, object]:
        return {"online": not self.fail}


def _second_station(hall: Hall, tmp_path: Path) -> Path:
    with Station(hall.directory, environ=ENVIRON) as st:
        bundle = hall_service.add_station(st, name="booth-9", role="booth", operator="M1")
    path = tmp_path / "b9.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "booth-9", path, environ=ENVIRON)
    return tmp_path / "booth-9"


def test_a_sale_receipt_carries_a_code_any_station_verifies(selling: Hall, tmp_path: Path) -> None:
    other_dir = _second_station(selling, tmp_path)
    sale = selling("sell", "A123456", "--qty", "3", "--json").json
    with Station(selling.directory, environ=ENVIRON) as st:
        r = receipts.receipt(st, st.id, sale["receipt"])
        assert r.kind == "sale" and r.total == 300 and r.training
        assert r.qr is not None
        checked = receipts.verify_payload(st, r.qr)
    assert checked["genuine"] and checked["amount"] == "3.00" and checked["on_file"]
    with Station(other_dir, environ=ENVIRON) as other:
        offline = receipts.verify_payload(other, r.qr)
    assert offline["genuine"] and offline["on_file"] is False, "verified offline, before sync"


def _flip(text: str, index: int) -> str:
    ch = text[index]
    return text[:index] + ("b" if ch != "b" else "c") + text[index + 1 :]


def test_altered_forged_and_foreign_codes_are_refused(selling: Hall, tmp_path: Path) -> None:
    sale = selling("sell", "A123456", "--qty", "3", "--json").json
    with Station(selling.directory, environ=ENVIRON) as st:
        code = receipts.receipt(st, st.id, sale["receipt"]).qr
        assert code is not None
        altered = ".".join([*code.split(".")[:5], "zz", *code.split(".")[6:]])
        with pytest.raises(IntegrityFailure, match="forged or altered"):
            receipts.verify_payload(st, altered)
        with pytest.raises(IntegrityFailure, match="forged or altered"):
            receipts.verify_payload(st, _flip(code, len(code) - 5))
        with pytest.raises(BadInput):
            receipts.verify_payload(st, code[:-10])
        foreign = code.replace(f"B1.{st.config.hall}.", "B1.zzzzzzzz.")
        with pytest.raises(IntegrityFailure, match=r"from hall zzzzzzzz"):
            receipts.verify_payload(st, foreign)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=300))
def test_any_string_is_genuine_refused_or_bad_input(station: Station, text: str) -> None:
    with contextlib.suppress(IntegrityFailure, BadInput):
        receipts.verify_payload(station, text)


def test_a_failing_printer_keeps_the_sale_and_prints_it_once_later_marked(selling: Hall) -> None:
    sale = selling("sell", "A123456", "--qty", "2", "--json").json
    printer = RecordingPrinter(fail=1)
    with Station(selling.directory, environ=ENVIRON) as st:
        first = receipts.print_pending(st, printer)
        assert first["error"] == "out of paper" and first["queued"] == [sale["receipt"]]
        assert st.ledger.count() > 0
        second = receipts.print_pending(st, printer)
        assert second["printed"] == [sale["receipt"]] and second["queued"] == []
        assert receipts.print_pending(st, printer)["printed"] == [], "printed once"
        [(name, printed)] = printer.jobs
        assert printed.reprint, "it may have printed when the printer failed: mark it"
        receipts.reprint(st, sale["receipt"], printer, operator="M1")
        assert printer.jobs[-1][1].reprint and printer.jobs[-1][0].endswith("reprint-1")
    assert name == f"manager-{sale['receipt']:06d}"


def test_a_clean_print_is_not_marked(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "2")
    printer = RecordingPrinter()
    with Station(selling.directory, environ=ENVIRON) as st:
        receipts.print_pending(st, printer)
    assert [r.reprint for _, r in printer.jobs] == [False]


def test_vouchers_pay_once_for_their_amount(selling: Hall, tmp_path: Path) -> None:
    other_dir = _second_station(selling, tmp_path)
    with Station(selling.directory, environ=ENVIRON) as st:
        issued = vouchers.issue_voucher(st, "20.00", reason="cash", operator="S1")
        code = receipts.receipt(st, st.id, issued.voucher).qr
        assert code is not None
    with Station(other_dir, environ=ENVIRON) as other:
        with pytest.raises(RuleRefused, match="not on file"):
            vouchers.redeem_voucher(other, code, operator="S1")
        with Station(selling.directory, environ=ENVIRON) as manager:
            pull(manager.ledger, other.ledger)
        paid = vouchers.redeem_voucher(other, code, operator="S1")
        assert paid.paid == 2000
        with pytest.raises(RuleRefused, match="already paid"):
            vouchers.redeem_voucher(other, code, operator="S1")
