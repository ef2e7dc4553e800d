"""Issue #29, item 3: the kiosk's cash thread (kiosk.cash) with each real acceptor driver and its
protocol-level simulator on a pseudo-terminal, headless (no Kivy).

- A bill fed while the kiosk settles a validator's reset (power lost with a bill in escrow) is
  not lost: the validator stays disabled until the kiosk has settled where the held bill went,
  then takes the new bill, which ends as credit on the ledger.
- A bill the validator still holds in escrow when the kiosk starts (the kiosk died with it
  there) is given back to the player, not credited; the return is on the ledger (BillReturned)
  and on the staff's exceptions list. A bill stacked before the kiosk died is credited exactly
  once.

Waits are for events (the simulator's state, the cash thread's news), never for time."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hardware.acceptor.pty_device import BillDevice
from hardware.acceptor.ssp_device import SspDevice
from hardware.dispenser import SimulatedDispenser
from kiosk.cash import CashDesk, CashNews
from kiosk.runtime import StationRuntime
from kiosk.viewmodels.manager import exceptions_screen
from pos.services import exceptions, kiosk_cash
from pos.services.ports import AcceptorFault
from pos.services.station import Station
from tests.hardware.acceptor_rigs import PROTOCOLS, Driver, Rig, escrow, make_device, make_driver
from tests.hardware.test_acceptor_reset import CLEARS_AFTER, restarted, taking_bills
from tests.test_kiosk_self_service import ENVIRON, kiosk  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow  # validators on ptys, powered off and on in real time

WAIT = 30.0  # s: a passing test waits only as long as the kiosk takes
TWENTY = kiosk_cash.Purchase("S1", 20, "C-1", 100)  # $20: the bills fed stay credit
TWO = kiosk_cash.Purchase("S1", 2, "C-1", 100)  # $2: a $5 bill completes it


@dataclass
class Desk:
    """A kiosk's cash thread on its runtime, and what it told the pay screen."""

    runtime: StationRuntime
    cash: CashDesk
    news: list[CashNews] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def heard(self, news: CashNews) -> None:
        with self.changed:
            self.news.append(news)
            self.changed.notify_all()

    def wait_news(self, count: int) -> list[str]:
        with self.changed:
            self.changed.wait_for(lambda: len(self.news) >= count, WAIT)
            return [n.kind for n in self.news]

    def ledger(self, sql: str) -> list[Any]:
        return list(self.runtime.worker_call(lambda st: st.ledger.conn.execute(sql).fetchall()))


@pytest.fixture
def desks() -> Iterator[list[Desk]]:
    made: list[Desk] = []
    yield made
    for desk in made:
        desk.cash.stop()
        desk.runtime.stop()


def open_desk(directory: Path, driver: Driver, desks: list[Desk]) -> Desk:
    runtime = StationRuntime(
        directory,
        environ=ENVIRON,
        printer=None,
        scanner=None,
        dispenser=SimulatedDispenser("", directory),
        acceptor=driver,
        control=False,
    )
    runtime.start()
    desk = Desk(runtime, CashDesk(runtime, driver, interval=0.01))
    desk.cash.listeners.append(desk.heard)
    desks.append(desk)
    return desk


@pytest.fixture(params=PROTOCOLS)
def device(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BillDevice]:
    made = make_device(request.param, tmp_path / f"{request.param}-tty").start()
    if isinstance(made, SspDevice):  # it says where the bill went a few polls after its reset
        made.clears_after = CLEARS_AFTER
    yield made
    made.stop()


def protocol(device: BillDevice) -> str:
    return device.name


@pytest.mark.parametrize(("where", "credit"), [("front", 1000), ("cashbox", 1500)])
def test_a_bill_fed_while_a_reset_is_settled_ends_as_credit(
    kiosk: Path,  # noqa: F811
    device: BillDevice,
    desks: list[Desk],
    where: str,
    credit: int,
) -> None:
    desk = open_desk(kiosk, make_driver(protocol(device), device.port), desks)
    desk.cash.start()
    desk.cash.offer(TWENTY)
    assert device.wait_for(lambda: taking_bills(device))
    device.power_loss_next = where  # the power blips as the kiosk stacks the $5
    device.feed(500)
    assert device.wait_for(lambda: device.power_loss_next is None)  # off, or coming back
    device.feed(1000)  # the player feeds a $10 while the kiosk waits out the reset
    assert desk.wait_news(2) == ["restarted", "credit"], desk.news
    assert device.wait_for(lambda: device.pending == 0)
    assert device.cash_box == ([1000] if where == "front" else [500, 1000])
    bills = desk.ledger("SELECT amount, state FROM p_bills ORDER BY hlc")
    assert bills == [(500, "returned" if where == "front" else "stacked"), (1000, "stacked")]
    assert desk.ledger("SELECT cents FROM p_kiosk_credit") == [(credit,)]
    assert desk.ledger("SELECT count(*) FROM events WHERE type = 'ExceptionFlagged'") == [(0,)]


def killed_with_a_bill_in_escrow(kiosk: Path, device: BillDevice) -> kiosk_cash.Taken:  # noqa: F811
    """The kiosk took a $5 bill towards a $2 purchase (recorded: BillEscrowed with its sale)
    and died before stacking it; the validator still holds it in escrow."""
    rig = Rig(protocol(device), device, make_driver(protocol(device), device.port))
    rig.acceptor.enable()
    escrow(rig, 500)
    with Station(kiosk, environ=ENVIRON) as st:
        taken = kiosk_cash.take_bill(st, 500, TWO)
    assert taken.request is not None  # the sale it completes is recorded with it
    rig.acceptor.close()
    restarted(device)
    return taken


def test_a_bill_held_in_escrow_at_start_up_is_given_back_and_recorded(
    kiosk: Path,  # noqa: F811
    device: BillDevice,
    desks: list[Desk],
) -> None:
    taken = killed_with_a_bill_in_escrow(kiosk, device)
    desk = open_desk(kiosk, make_driver(protocol(device), device.port), desks)
    done = desk.cash.start()
    assert device.given_back == [500] and device.cash_box == [], "not handed back"
    assert any("given back" in line for line in done), done
    assert desk.ledger("SELECT state FROM p_bills") == [("returned",)]
    ((reason,),) = desk.ledger("SELECT json_extract(body, '$.reason') FROM events "
                               "WHERE type = 'BillReturned'")  # fmt: skip
    assert "in escrow when the kiosk stopped" in reason, reason
    assert desk.ledger("SELECT cents FROM p_kiosk_credit") in ([], [(0,)])
    assert desk.ledger("SELECT count(*) FROM events WHERE type = 'VoucherIssued'") == [(0,)]
    assert desk.ledger("SELECT count(*) FROM events WHERE type = 'BillStacked'") == [(0,)]
    assert taken.request is not None
    assert desk.ledger("SELECT state FROM p_paid_requests") == [("cancelled",)]

    def staff_list(st: Station) -> list[str]:
        return [e["kind"] for e in exceptions.open_exceptions(st)]

    assert desk.runtime.worker_call(staff_list) == ["acceptor-returned"]
    (shown,) = desk.runtime.worker_call(exceptions_screen)
    assert shown.label == "Kiosk bill given back at start-up", shown
    assert "$5.00 bill" in shown.detail and "gave it back to the player" in shown.detail, shown


def test_a_bill_stacked_before_the_kiosk_died_is_credited_once(
    kiosk: Path,  # noqa: F811
    device: BillDevice,
    desks: list[Desk],
) -> None:
    rig = Rig(protocol(device), device, make_driver(protocol(device), device.port))
    rig.acceptor.enable()
    escrow(rig, 500)
    with Station(kiosk, environ=ENVIRON) as st:
        kiosk_cash.take_bill(st, 500, TWO)
    assert rig.acceptor.stack(5).kind == "stacked"  # ... and the kiosk dies before recording it
    rig.acceptor.close()
    restarted(device)
    desk = open_desk(kiosk, make_driver(protocol(device), device.port), desks)
    done = desk.cash.start()
    assert any("not known, credited" in line for line in done), done
    polled = len(device.commands)
    assert device.wait_for(lambda: len(device.commands) >= polled + 10)  # it runs on
    assert desk.ledger("SELECT amount, state FROM p_bills") == [(500, "stacked")]
    assert desk.ledger("SELECT count(*) FROM events WHERE type = 'BillStacked'") == [(1,)]
    # credited once, and kept for staff: nothing prints to a kiosk nobody may stand at
    assert desk.ledger(
        "SELECT json_extract(body, '$.amount') FROM events WHERE type = 'KioskCreditKept'"
    ) == [(500,)]
    assert desk.ledger("SELECT count(*) FROM events WHERE type = 'VoucherIssued'") == [(0,)]
    assert desk.ledger("SELECT count(*) FROM events WHERE type = 'BillReturned'") == [(0,)]
    assert device.cash_box == [500] and device.given_back == []


def test_a_bill_the_validator_gives_back_after_a_power_cut_is_not_credited(
    kiosk: Path,  # noqa: F811
    device: BillDevice,
    desks: list[Desk],
) -> None:
    """The whole kiosk lost power as it stacked a bill: at power-up the validator hands the bill
    back (SSP: NOTE CLEARED FROM FRONT, a few polls on; ID-003: POWER UP WITH BILL IN ACCEPTOR,
    returned at RESET; EBDS: POWER UP with RETURNED), though the new driver never knew its
    value. It is returned on the ledger, not credited."""
    rig = Rig(protocol(device), device, make_driver(protocol(device), device.port))
    rig.acceptor.enable()
    escrow(rig, 500)
    with Station(kiosk, environ=ENVIRON) as st:
        kiosk_cash.take_bill(st, 500, TWO)
    device.power_loss_next = "front"
    device.off_for = 4.0  # s: longer than the driver asks before it gives up
    with pytest.raises(AcceptorFault):
        rig.acceptor.stack(0.01)  # the stack goes out; the power goes, the kiosk's too
    rig.acceptor.close()
    restarted(device)
    assert device.wait_for(lambda: device.powered)
    desk = open_desk(kiosk, make_driver(protocol(device), device.port), desks)
    done = desk.cash.start()
    assert device.given_back == [500] and device.cash_box == []
    assert any("returned at the acceptor's reset" in line for line in done), done
    assert desk.ledger("SELECT state FROM p_bills") == [("returned",)]
    assert desk.ledger("SELECT count(*) FROM events WHERE type = 'VoucherIssued'") == [(0,)]
    assert desk.ledger("SELECT cents FROM p_kiosk_credit") in ([], [(0,)])


def test_a_validator_that_restarts_idle_is_enabled_again(
    kiosk: Path,  # noqa: F811
    device: BillDevice,
    desks: list[Desk],
) -> None:
    """A power blip with no bill inside: the driver leaves the validator disabled, as it
    powered up; the kiosk, its pay screen still wanting bills, enables it again."""
    desk = open_desk(kiosk, make_driver(protocol(device), device.port), desks)
    desk.cash.start()
    desk.cash.offer(TWENTY)
    assert device.wait_for(lambda: taking_bills(device))
    device.off_for = 0.05  # s: shorter than the driver waits for an answer: no fault
    device.blip()
    assert not taking_bills(device)
    assert device.wait_for(lambda: device.powered and taking_bills(device))
    device.feed(500)
    assert desk.wait_news(1) == ["credit"], desk.news
    assert desk.ledger("SELECT cents FROM p_kiosk_credit") == [(500,)]
