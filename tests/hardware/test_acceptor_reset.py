"""Issue #29, item 3, each driver (SSP, ID-003, EBDS) against its protocol-level simulator on a
pseudo-terminal: a validator that lost power with a bill in escrow comes back disabled, and
stays so while the kiosk settles the reset (where the bill it held went), however the kiosk had
left it; only the kiosk's `enable` makes it take bills again. A bill fed meanwhile waits at its
mouth and is taken once enabled. And a driver that starts while its validator holds a bill in
escrow (the kiosk died with a bill there) says so, without stacking it, so the kiosk can give
it back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hardware.acceptor.ebds_device import EbdsDevice
from hardware.acceptor.id003_device import Id003Device
from hardware.acceptor.pty_device import BillDevice
from hardware.acceptor.ssp_device import SspDevice
from pos.services.ports import BillEvent
from tests.hardware.acceptor_rigs import PROTOCOLS, Rig, escrow, make_device, make_driver

pytestmark = pytest.mark.slow  # validators on ptys, reset and settled in real time

CLEARS_AFTER = 3  # polls an SSP validator takes, after SLAVE RESET, to say where the bill went


def taking_bills(device: BillDevice) -> bool:
    """Whether the host has the validator taking bills, as the validator itself holds it."""
    with device.lock:
        if isinstance(device, SspDevice):
            return device.enabled
        if isinstance(device, Id003Device):
            return not device.inhibit
        assert isinstance(device, EbdsDevice)
        return bool(device.denominations)


def restarted(device: BillDevice) -> None:
    """The kiosk's process is gone and a new one opens the port: a fresh pty under the same
    name (a pty once set to even parity refuses the same settings when opened again), the
    validator's state kept."""
    device.pull()
    device.plug()


@pytest.fixture(params=PROTOCOLS)
def line(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    device = make_device(request.param, tmp_path / f"{request.param}-tty").start()
    if isinstance(device, SspDevice):
        device.clears_after = CLEARS_AFTER
    made = Rig(request.param, device, make_driver(request.param, device.port))
    try:
        yield made
    finally:
        made.close()


@pytest.mark.parametrize(("where", "kind"), [("front", "returned"), ("cashbox", "stacked")])
def test_the_validator_stays_disabled_while_its_reset_is_settled(
    line: Rig, where: str, kind: str
) -> None:
    device, acceptor = line.device, line.acceptor
    acceptor.enable()
    escrow(line, 1000)
    device.power_loss_next = where
    assert acceptor.stack(10).kind == "reset"
    assert not taking_bills(device), f"the {line.protocol} driver enabled it again at once"
    device.feed(500)  # a player feeds a bill while the kiosk settles the reset
    heard: list[BillEvent] = []
    for _ in range(CLEARS_AFTER + 4):  # until it has said where the bill went, and more
        heard += acceptor.poll()
    assert BillEvent(kind, 1000, cleared=True) in heard, heard
    assert [e for e in heard if e.kind == "escrow"] == []
    assert not taking_bills(device)
    assert device.fed == [500]  # waiting at the mouth: neither taken nor refused
    acceptor.enable()  # the kiosk has settled the reset
    taken = next(e for _ in range(20) for e in acceptor.poll() if e.kind == "escrow")
    assert taken == BillEvent("escrow", 500)
    assert acceptor.stack(5) == BillEvent("stacked", 500)
    assert device.wait_for(lambda: device.pending == 0)
    assert (device.given_back, device.cash_box) == (
        ([1000], [500]) if where == "front" else ([], [1000, 500])
    )


def test_a_bill_held_when_the_driver_starts_is_reported_not_stacked(line: Rig) -> None:
    device = line.device
    line.acceptor.enable()
    escrow(line, 2000)
    line.acceptor.close()  # the kiosk dies with the bill in escrow; the validator holds it
    restarted(device)
    again = make_driver(line.protocol, device.port)
    line.acceptor = again  # closed with the rig
    said = again.poll()
    held = [e for e in said if e.kind == "escrow"]
    assert len(held) == 1 and held[0].amount in (2000, 0), said  # SSP cannot say its value
    assert again.poll() == []  # still held: not stacked by a poll
    assert device.cash_box == [] and device.pending == 1
    back = again.return_bill(5)
    assert back.kind == "returned", back
    assert device.given_back == [2000] and device.cash_box == []
