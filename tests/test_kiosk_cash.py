"""Issue #20: a kiosk's cash, step by step in the ledger (pos.services.kiosk_cash). A bill is
escrowed and recorded with the sale it completes, then stacked, then the tickets dispensed; a
bill that comes back cancels the sale; a kiosk that stopped between two steps settles them when
it starts (reconcile): the customer's money is never lost and nothing is dispensed unpaid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hardware.dispenser import SimulatedDispenser
from pos.services import exceptions, kiosk_cash, print_queue
from pos.services.ports import BillEvent
from pos.services.station import Station
from tests.test_kiosk_self_service import ENVIRON, kiosk  # noqa: F401  (the fixture)

PURCHASE = kiosk_cash.Purchase("S1", 2, "C-1", 100)


def states(st: Station) -> list[tuple[str, str]]:
    return list(st.ledger.conn.execute("SELECT state, coalesce(sale, '') FROM p_bills"))


def flags(st: Station) -> list[str]:
    return sorted(e["kind"] for e in exceptions.open_exceptions(st))


def sold(st: Station) -> int:
    return int(
        st.ledger.conn.execute("SELECT count(*) FROM events WHERE type = 'TicketsSold'").fetchone()[
            0
        ]
    )


def test_escrow_sale_stack_dispense_and_the_credit_left(kiosk: Path) -> None:  # noqa: F811
    with Station(kiosk, environ=ENVIRON) as st:
        small = kiosk_cash.take_bill(st, 100, PURCHASE)  # does not pay: credit only
        assert small.request is None
        kiosk_cash.bill_stacked(st, small.bill, 100)
        assert kiosk_cash.credit(st) == 100
        taken = kiosk_cash.take_bill(st, 500, PURCHASE)  # completes: the sale is recorded
        assert taken.request is not None and taken.request.credit == 200
        assert sold(st) == 0  # recorded as requested, nothing sold or dispensed yet
        kiosk_cash.bill_stacked(st, taken.bill, 500)
        result = kiosk_cash.sell_paid(st, taken, SimulatedDispenser("", kiosk))
        assert result.qty == 2 and sold(st) == 1
        assert kiosk_cash.credit(st) == 400
        paid = kiosk_cash.cash_out(st, "the player left")
        assert paid is not None and paid.amount == 400
        assert kiosk_cash.credit(st) == 0 and kiosk_cash.cash_out(st, "again") is None


def test_a_bill_given_back_cancels_its_sale(kiosk: Path) -> None:  # noqa: F811
    with Station(kiosk, environ=ENVIRON) as st:
        taken = kiosk_cash.take_bill(st, 500, PURCHASE)
        kiosk_cash.bill_returned(st, taken, "the acceptor gave it back")
        assert states(st)[0][0] == "returned" and kiosk_cash.credit(st) == 0
        assert kiosk_cash.reconcile(st, []) == []  # nothing half-done
        assert sold(st) == 0


def test_a_sale_refused_while_the_bill_waits_gives_it_back(kiosk: Path) -> None:  # noqa: F811
    with Station(kiosk, environ=ENVIRON) as st:
        too_many = kiosk_cash.Purchase("S1", 500, "C-1", 100)  # more than the deal holds
        taken = kiosk_cash.take_bill(st, 100_00 * 5, too_many)
        assert taken.refused is not None and taken.request is None
        kiosk_cash.bill_returned(st, taken, taken.refused.message)
        assert kiosk_cash.credit(st) == 0 and sold(st) == 0


def test_a_jammed_bill_is_credited_as_a_voucher_and_staff_called(kiosk: Path) -> None:  # noqa: F811
    with Station(kiosk, environ=ENVIRON) as st:
        taken = kiosk_cash.take_bill(st, 500, PURCHASE)
        paid = kiosk_cash.bill_jammed(st, taken, "the bill jammed in escrow")
        assert paid is not None and paid.amount == 500
        assert kiosk_cash.credit(st) == 0 and sold(st) == 0
        assert "acceptor-jam" in flags(st)


def test_a_crash_with_a_bill_in_escrow_is_settled_at_start_up(kiosk: Path) -> None:  # noqa: F811
    with Station(kiosk, environ=ENVIRON) as st:
        kiosk_cash.take_bill(st, 500, PURCHASE)  # ... and the kiosk stops here
    with Station(kiosk, environ=ENVIRON) as st:  # started again; the acceptor says nothing
        done = kiosk_cash.reconcile(st, [])
        assert any("not known, credited" in line for line in done)
        assert any("$5.00 kept for staff" in line for line in done)
        assert states(st)[0][0] == "stacked" and sold(st) == 0
        assert kiosk_cash.credit(st) == 0  # kept for staff: the next player cannot spend it
        assert [c.amount for c in kiosk_cash.credit_left_open(st)] == [500]
        assert not print_queue.pending(st)  # nothing prints to a kiosk nobody may stand at
        assert {"acceptor-unknown", "dispense-unknown", "kiosk-credit-left"} <= set(flags(st))


def test_after_a_reset_the_acceptor_says_where_the_bill_went(kiosk: Path) -> None:  # noqa: F811
    with Station(kiosk, environ=ENVIRON) as st:
        kiosk_cash.take_bill(st, 500, PURCHASE)
        done = kiosk_cash.reconcile(st, [BillEvent("returned", 500, cleared=True)])
        assert states(st)[0][0] == "returned" and kiosk_cash.credit(st) == 0
        assert not any("voucher" in line for line in done)
        kiosk_cash.take_bill(st, 1000, PURCHASE)
        done = kiosk_cash.reconcile(st, [BillEvent("stacked", 1000, cleared=True)])
        assert any("stacked: credited" in line for line in done)
        assert any("$10.00 kept for staff" in line for line in done)


def test_a_crash_after_stacking_before_dispensing(kiosk: Path) -> None:  # noqa: F811
    with Station(kiosk, environ=ENVIRON) as st:
        taken = kiosk_cash.take_bill(st, 200, PURCHASE)
        kiosk_cash.bill_stacked(st, taken.bill, 200)  # ... and the kiosk stops here
    with Station(kiosk, environ=ENVIRON) as st:
        done = kiosk_cash.reconcile(st, [])
        assert sold(st) == 0 and kiosk_cash.credit(st) == 0
        assert any("cancelled and credited" in line for line in done)
        assert "dispense-unknown" in flags(st)


def test_booth_acceptor_set(hall: Any) -> None:
    done = hall("acceptor", "set", "sim:fail=jam", "--json")
    assert done.exit_code == 0, done.stderr
    assert done.json == {"device": "acceptor", "spec": "sim:fail=jam"}
    assert json.loads((hall.directory / "devices.json").read_text())["acceptor"] == "sim:fail=jam"
    assert hall("acceptor", "set", "none").exit_code == 0  # vouchers only
    bad = hall("acceptor", "set", "sim:fail=boom")
    assert bad.exit_code == 2 and "fail='boom'" in bad.stderr
    unknown = hall("acceptor", "set", "jcm:/dev/ttyS0")
    assert unknown.exit_code == 2 and "jcm" in unknown.stderr
    speed = hall("acceptor", "set", "ssp:/dev/ttyACM0@12")
    assert speed.exit_code == 2 and "baud rate '12'" in speed.stderr
    assert json.loads((hall.directory / "devices.json").read_text())["acceptor"] == "none"
