"""Issue #32: the line rules of ID-003 and EBDS, held by the simulators byte for byte: EBDS's
ACK/NAK toggle (a message that repeats the last bit is answered with the last reply and not
acted on twice: a STACK heard twice stacks one bill), ID-003's COMMUNICATION ERROR for a frame
whose CRC fails, and each driver asking again when its frame was not understood."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial

from hardware.acceptor import ebds, id003
from hardware.acceptor.ebds_device import EbdsDevice
from hardware.acceptor.id003_device import Id003Device
from hardware.acceptor.id003_driver import Id003Acceptor
from hardware.acceptor.pty_device import BillDevice


@pytest.fixture
def host() -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for port in opened:
        port.close()


def talk(device: BillDevice, opened: list[Any]) -> Any:
    port = serial.serial_for_url(device.port, timeout=0.5)
    opened.append(port)
    return port


def heard(port: Any) -> bytes:
    """What came in: the first byte (or none within the port's timeout), then the rest."""
    first = port.read(1)
    return bytes(first + port.read(port.in_waiting)) if first else b""


def ebds_ask(port: Any, message: bytes) -> ebds.Message:
    port.write(message)
    reader = ebds.MessageReader()
    for _ in range(20):
        for reply in reader.feed(heard(port)):
            return reply
    raise AssertionError("no reply")


def test_ebds_a_repeated_stack_is_answered_again_not_acted_on(
    tmp_path: Path, host: list[Any]
) -> None:
    device = EbdsDevice(link=tmp_path / "ebds").start()
    try:
        port = talk(device, host)
        ack = 0
        assert ebds.Status.parse(ebds_ask(port, ebds.Command().message(ack)).data).power_up
        device.feed(500)
        for _ in range(4):  # polls, each with the bit flipped, until the bill is in escrow
            ack ^= 1
            status = ebds.Status.parse(ebds_ask(port, ebds.Command().message(ack)).data)
            if status.escrowed:
                break
        assert status.escrowed and status.note == 3  # $5
        ack ^= 1
        stack = ebds.Command(stack=True).message(ack)
        first, again = ebds_ask(port, stack), ebds_ask(port, stack)  # the reply was not heard
        assert first == again and first.ack == ack
        assert ebds.Status.parse(first.data).stacking
        ack ^= 1
        done = ebds.Status.parse(ebds_ask(port, ebds.Command().message(ack)).data)
        assert done.stacked and done.note == 3
        assert device.cash_box == [500]  # once
        assert device.commands.count(ebds.Command(stack=True).data()[1]) == 1
    finally:
        device.stop()


def test_id003_a_frame_whose_crc_fails_is_answered_communication_error(
    tmp_path: Path, host: list[Any]
) -> None:
    device = Id003Device(link=tmp_path / "id003").start()
    try:
        port = talk(device, host)
        broken = bytearray(id003.encode(id003.STATUS_REQUEST))
        broken[-1] ^= 0xFF
        port.write(bytes(broken))
        reader = id003.FrameReader()
        replies: list[id003.Frame] = []
        for _ in range(20):
            replies += reader.feed(heard(port))
            if replies:
                break
        assert replies == [id003.Frame(id003.COMMUNICATION_ERROR)]
        assert device.commands == []  # nothing was acted on
    finally:
        device.stop()


def test_id003_the_driver_asks_again_after_a_communication_error(tmp_path: Path) -> None:
    """A validator that answers COMMUNICATION ERROR once (a byte lost on the line): the driver
    sends the same frame again and carries on."""
    device = Id003Device(link=tmp_path / "id003").start()
    garbled = [True]
    receive = device.receive

    def once_garbled(chunk: bytes) -> list[bytes]:
        if garbled and chunk:
            garbled.clear()
            return [id003.encode(id003.COMMUNICATION_ERROR)]
        return receive(chunk)

    device.receive = once_garbled  # type: ignore[method-assign]
    acceptor = Id003Acceptor(device.port, reply_timeout=0.5)
    try:
        assert [e.kind for e in acceptor.poll()] == ["reset"]
        assert device.commands[:2] == [id003.STATUS_REQUEST, id003.RESET]  # asked once more
    finally:
        acceptor.close()
        device.stop()
