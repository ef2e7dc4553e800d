"""Issue #32: the SSP simulator's SETUP REQUEST is a true protocol 6 reply. Checked against ITL's
own host library: the essp6 package (PyPI; it builds ITL's C SSP library, libessp.so) opens the
simulator's pty, syncs, asks for host protocol 6 and parses SETUP REQUEST with ITL's
ssp6_setup_request, which reads each channel's country and 4-byte value after the legacy fields
(a reply without them read garbage there); then ITL's ssp6_poll takes a note from it. Booth's
driver parses the same reply, and an older validator's (protocol 5, no expanded fields) too."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path

import eSSP
import pytest
from eSSP.eSSP import Ssp6SetupRequestData, SspPollData6

from hardware.acceptor import ssp
from hardware.acceptor.ssp_device import SspDevice
from hardware.acceptor.ssp_driver import SspAcceptor

OK = 0xF0
CHANNELS = (1, 5, 10, 20, 50, 100)


@pytest.fixture
def device(tmp_path: Path) -> Iterator[SspDevice]:
    made = SspDevice(link=tmp_path / "nv200").start()
    try:
        yield made
    finally:
        made.stop()


def test_itl_reads_the_simulators_protocol_6_setup(device: SspDevice) -> None:
    library = eSSP.eSSP.essp
    library.ssp_init.restype = ctypes.c_void_p
    command = ctypes.c_void_p(library.ssp_init(device.port.encode(), b"0", 0))
    assert command.value, "ITL's library could not open the simulator's pty"
    try:
        assert library.ssp6_sync(command) == OK
        assert library.ssp6_host_protocol(command, 6) == OK
        setup = Ssp6SetupRequestData()
        assert library.ssp6_setup_request(command, ctypes.byref(setup)) == OK
    finally:
        library.close_ssp_port()
    assert (setup.UnitType, setup.ProtocolVersion, setup.RealValueMultiplier) == (0, 6, 100)
    assert setup.NumberOfChannels == len(CHANNELS)
    channels = [setup.ChannelData[i] for i in range(setup.NumberOfChannels)]
    assert [c.value for c in channels] == list(CHANNELS)
    assert [c.cc for c in channels] == [b"USD"] * len(CHANNELS)
    assert ssp.SETUP_REQUEST in device.commands


def test_itl_takes_a_note_from_the_simulator(device: SspDevice) -> None:
    library = eSSP.eSSP.essp
    library.ssp_init.restype = ctypes.c_void_p
    command = ctypes.c_void_p(library.ssp_init(device.port.encode(), b"0", 0))
    assert command.value, "ITL's library could not open the simulator's pty"
    seen: list[tuple[int, int]] = []
    try:
        assert library.ssp6_sync(command) == OK
        assert library.ssp6_host_protocol(command, 6) == OK
        assert library.ssp6_set_inhibits(command, 0xFF, 0xFF) == OK
        assert library.ssp6_enable(command) == OK
        device.feed(500)
        for _ in range(8):  # ITL's host polls (a POLL with the note in escrow accepts it)
            poll = SspPollData6()
            assert library.ssp6_poll(command, ctypes.byref(poll)) == OK
            seen += [(poll.events[i].event, poll.events[i].data1) for i in range(poll.event_count)]
    finally:
        library.close_ssp_port()
    five = CHANNELS.index(5) + 1
    assert seen == [
        (ssp.SLAVE_RESET, 0),
        (ssp.READ, 0),
        (ssp.READ, five),
        (ssp.STACKING, 0),
        (ssp.CREDIT, five),
        (ssp.STACKED, 0),
    ]
    assert device.wait_for(lambda: device.cash_box == [500])


def test_the_driver_reads_both_layouts(device: SspDevice) -> None:
    acceptor = SspAcceptor(device.port, reply_timeout=0.2)
    try:
        acceptor.poll()
        assert acceptor.setup is not None
        assert acceptor.setup.protocol == 6
        assert acceptor.setup.channel_values == tuple(v * 100 for v in CHANNELS)
        assert acceptor.setup.channel_countries == ("USD",) * len(CHANNELS)
    finally:
        acceptor.close()
    wide = ssp.parse_setup(ssp.setup_reply((5, 500, 1000), multiplier=100, country="EUR"))
    assert wide.channel_values == (500, 50000, 100000)  # 500 and 1000 do not fit one byte
    assert wide.channel_countries == ("EUR",) * 3
    old = ssp.parse_setup(ssp.setup_reply(CHANNELS, multiplier=100, protocol=5))
    assert old.channel_values == tuple(v * 100 for v in CHANNELS) and old.protocol == 5
    with pytest.raises(ssp.SspError, match="country and 4-byte value"):
        ssp.parse_setup(ssp.setup_reply(CHANNELS, protocol=5)[:-1] + bytes([6]))
