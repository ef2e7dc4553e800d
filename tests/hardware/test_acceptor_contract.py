"""Issue #32: one contract for every bill acceptor driver (SSP, ID-003, EBDS), each against its
protocol-level simulator on a pseudo-terminal: a bill held in escrow and stacked, given back,
refused while disabled; power lost with a bill in escrow; a jam; the cash box removed or full;
a fraud attempt; a failure; the line pulled and plugged back. The same faults come out in the
same words whatever the protocol (hardware.acceptor.faults)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hardware.acceptor import faults
from hardware.acceptor.ebds_driver import from_spec as ebds_spec
from hardware.acceptor.id003_driver import from_spec as id003_spec
from hardware.acceptor.line import AcceptorUnplugged
from pos.services.ports import BillEvent
from tests.hardware.acceptor_rigs import (
    PROTOCOLS,
    Rig,
    escrow,
    rig,
    said,
    until_answers,
    until_fault,
)

pytestmark = pytest.mark.slow  # validators on ptys: escrow, stacking, power cuts in real time


@pytest.fixture(params=PROTOCOLS)
def line(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    made = rig(request.param, tmp_path)
    try:
        yield made
    finally:
        made.close()


def test_a_bill_is_held_then_stacked(line: Rig) -> None:
    device, acceptor = line.device, line.acceptor
    assert [e.kind for e in acceptor.poll()] == ["reset"]  # the validator's power-up
    acceptor.enable()
    assert escrow(line, 500) == BillEvent("escrow", 500)
    assert acceptor.poll() == [] and acceptor.poll() == []  # held while the sale is recorded
    assert device.cash_box == [] and device.pending == 1
    assert acceptor.stack(5) == BillEvent("stacked", 500)
    assert device.wait_for(lambda: device.pending == 0)
    assert device.cash_box == [500] and device.given_back == []


def test_a_bill_is_given_back_and_refused_while_disabled(line: Rig) -> None:
    device, acceptor = line.device, line.acceptor
    acceptor.enable()
    escrow(line, 2000)
    result = acceptor.return_bill(5)
    assert (result.kind, result.amount) == ("returned", 2000)
    assert device.wait_for(lambda: device.pending == 0)
    assert device.given_back == [2000] and device.cash_box == []
    acceptor.disable()
    device.feed(100)  # fed while disabled: refused at the mouth
    kinds = [kind for _ in range(6) for kind in said(line, 1)]
    assert "escrow" not in kinds
    assert device.wait_for(lambda: device.given_back == [2000, 100])


@pytest.mark.parametrize(("where", "kind"), [("front", "returned"), ("cashbox", "stacked")])
def test_power_lost_with_a_bill_in_escrow(line: Rig, where: str, kind: str) -> None:
    device, acceptor = line.device, line.acceptor
    acceptor.enable()
    escrow(line, 1000)
    device.power_loss_next = where
    result = acceptor.stack(10)  # silent while off, then the power-up
    assert (result.kind, result.detail) == ("reset", faults.POWER_LOST)
    assert acceptor.poll() == [BillEvent(kind, 1000, cleared=True)]
    assert device.wait_for(lambda: device.pending == 0)
    assert (device.given_back if where == "front" else device.cash_box) == [1000]
    # the validator works again once the kiosk, the reset settled, enables it (issue #29)
    acceptor.enable()
    assert escrow(line, 500).amount == 500
    assert acceptor.stack(5).kind == "stacked"


def test_a_bill_jammed_in_escrow(line: Rig) -> None:
    device, acceptor = line.device, line.acceptor
    acceptor.enable()
    escrow(line, 500)
    device.jam_next = True
    result = acceptor.stack(5)
    assert result.kind == "jam" and result.amount == 500 and "jammed inside" in result.detail
    assert device.jammed == [500] and device.cash_box == [] and device.given_back == []
    fault = until_fault(line)  # jammed until staff clear it: out of service meanwhile
    assert fault is not None and str(fault) == faults.JAMMED
    device.clear_jam()
    until_answers(line)
    assert escrow(line, 100).amount == 100


@pytest.mark.parametrize(
    ("state", "words"), [("removed", faults.CASHBOX_REMOVED), ("full", faults.CASHBOX_FULL)]
)
def test_the_cash_box_removed_or_full(line: Rig, state: str, words: str) -> None:
    device, acceptor = line.device, line.acceptor
    acceptor.enable()
    until_answers(line)
    device.set_cashbox(state)
    fault = until_fault(line)
    assert fault is not None and str(fault) == words
    assert not isinstance(fault, AcceptorUnplugged)
    device.set_cashbox("in")
    until_answers(line)
    assert escrow(line, 2000).amount == 2000


def test_a_fraud_attempt_is_told_and_the_bill_refused(line: Rig) -> None:
    device, acceptor = line.device, line.acceptor
    acceptor.enable()
    until_answers(line)
    device.cheat_next = True
    device.feed(2000)
    heard = said(line, 8)
    assert any(words in (f"fault: {faults.FRAUD}", "fault") for words in heard), heard
    assert "escrow" not in heard
    assert device.wait_for(lambda: device.given_back == [2000])


def test_a_failure_is_a_fault_until_it_clears(line: Rig) -> None:
    device = line.device
    line.acceptor.enable()
    until_answers(line)
    device.failure = True
    fault = until_fault(line)
    assert fault is not None and str(fault).startswith(faults.FAILED)
    device.failure = False
    until_answers(line)


def test_the_line_pulled_and_plugged_back(line: Rig) -> None:
    """A vanished line is the driver's fault (not termios.error or OSError), the dead port is
    dropped, and the driver opens the device again, with its start-up, when it returns."""
    device, acceptor = line.device, line.acceptor
    acceptor.enable()
    escrow(line, 500)
    assert acceptor.stack(5).kind == "stacked"
    device.pull()
    with pytest.raises(AcceptorUnplugged, match="is gone"):
        acceptor.poll()
    assert not acceptor.line.is_open  # dropped
    with pytest.raises(AcceptorUnplugged, match="not there"):
        acceptor.poll()  # looked for again: not back yet
    device.plug()
    until_answers(line)
    assert acceptor.line.is_open and device.plugs == 2
    assert escrow(line, 1000).amount == 1000  # enabled again, as the kiosk left it
    assert acceptor.stack(5).kind == "stacked"
    assert device.wait_for(lambda: device.cash_box == [500, 1000])


@pytest.mark.parametrize(("spec", "kind"), [(id003_spec, "id003"), (ebds_spec, "ebds")])
def test_settings(spec: object, kind: str) -> None:
    chosen = spec("/dev/ttyUSB0@19200", Path("."))  # type: ignore[operator]
    assert (chosen.port_name, chosen.baudrate, chosen.kind) == ("/dev/ttyUSB0", 19200, kind)
    assert spec("/dev/ttyS0", Path(".")).baudrate == 9600  # type: ignore[operator]
    with pytest.raises(ValueError, match="baud rate"):
        spec("/dev/ttyUSB0@123", Path("."))  # type: ignore[operator]
    with pytest.raises(ValueError, match=f"name the serial port, e.g. {kind}:"):
        spec(" ", Path("."))  # type: ignore[operator]


def test_booth_acceptor_set_takes_each_protocol(hall: Any) -> None:
    for spec in ("id003:/dev/ttyUSB0", "ebds:/dev/ttyUSB1@9600", "ssp:/dev/ttyACM0#0"):
        done = hall("acceptor", "set", spec, "--json")
        assert done.exit_code == 0, done.stderr
        assert done.json == {"device": "acceptor", "spec": spec}
    speed = hall("acceptor", "set", "id003:/dev/ttyUSB0@12")
    assert speed.exit_code == 2 and "baud rate '12'" in speed.stderr
    nothing = hall("acceptor", "set", "ebds:")
    assert nothing.exit_code == 2 and "name the serial port, e.g. ebds:" in nothing.stderr
    saved = json.loads((hall.directory / "devices.json").read_text())
    assert saved["acceptor"] == "ssp:/dev/ttyACM0#0"  # the refused settings changed nothing
