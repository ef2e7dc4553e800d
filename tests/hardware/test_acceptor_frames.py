"""Issue #32: the acceptors' frames, packet by packet, against implementations and statements
that are not Booth's. Facts carried over, no code: each expected frame below is written out as
the named source states or produced it.

ID-003, against lamassu-machine (github.com/lamassu/lamassu-machine, lib/id003/id003rs232.js
and lib/id003/crc.js, last changed in commit 8caac6286312ffdad63a40f2b011d2d81f80ccff; the
snapshot's head 27b25d925616948d49e2a9a3a2471a0bc4f24b14), a bitcoin ATM's host for JCM
validators. Its `send()` was run by hand with node on 2026-12-04 for each entry of its command
table; LAMASSU_FRAMES are the bytes it wrote. The simulator's replies (LAMASSU_READ) were fed to
its `_process()` the same day: its CRC check passed on every one and it read them as noted
(its reply table names 0x40 'powerUpAcceptor', a duplicate key of its own). The CRC check value
0x2189 for "123456789" is CRC-16/KERMIT's in the CRC catalogue; lamassu's crc.js calls its table
"CCITT-KERMIT" and gave 0x2189 too.

EBDS, against the `ebds` crate (github.com/decapod-atm/ebds, commit
401ea25917e5f4cf927902dbbeffbcd1f03a7af4): the frames its own tests state in
src/omnibus/command.rs (test_omnibus_command_from_buf), src/omnibus/reply.rs
(test_omnibus_reply_from_buf) and src/soft_reset.rs (test_soft_reset_from_bytes), and the bit
positions its doc comments give for the omnibus command's and reply's data bytes (src/status.rs,
src/omnibus/command.rs, src/lib.rs: Control, ACK/NAK bit 0, message type bits 4-6).

EBDS's replies, against Pyramid Technologies' PTI.Rs232Validator (github.com/
PyramidTechnologies/PTI.Rs232Validator, PTI.Rs232Validator.Test/Utility/Rs232Payloads.cs, commit
2ba28938db4ebed3b54e1155fbc5ed5aa3569d7b): the omnibus replies its tests state for each state,
each event, the cash box present or not, and each of the seven notes stacked and escrowed
(Pyramid's RS-232 protocol is EBDS's omnibus exchange); and the host's first poll in escrow mode
that Pyramid's Java host's test states, 02 08 10 7F 10 00 03 77.

SSP: ITL's own host library (the essp6 package from PyPI, which builds ITL's C SSP library) reads
the simulator's SETUP REQUEST, a protocol 6 reply, on a pty: tests/hardware/
test_acceptor_essp.py.
"""

from __future__ import annotations

import pytest

from hardware.acceptor import ebds, id003

# command -> the frame lamassu-machine's send() wrote for it
LAMASSU_FRAMES = {
    "status": (id003.STATUS_REQUEST, b"", "fc 05 11 27 56"),
    "reset": (id003.RESET, b"", "fc 05 40 2b 15"),
    "stack": (id003.STACK_1, b"", "fc 05 41 a2 04"),
    "reject": (id003.RETURN, b"", "fc 05 43 b0 27"),
    "ack": (id003.ACK, b"", "fc 05 50 aa 05"),
    "inhibit": (id003.SET_INHIBIT, b"\x01", "fc 06 c3 01 8d c7"),
    "unInhibit": (id003.SET_INHIBIT, b"\x00", "fc 06 c3 00 04 d6"),
    "enableAll": (id003.SET_DENOMINATIONS, b"\x00\x00", "fc 07 c0 00 00 2d b5"),
    "getEnabled": (id003.GET_DENOMINATIONS, b"", "fc 05 80 27 d3"),
    "denominations": (id003.GET_CURRENCY_ASSIGN, b"", "fc 05 8a 7d 7c"),
    "interruptMode": (id003.SET_COMMUNICATION_MODE, b"\x01", "fc 06 c2 01 55 de"),
}

# the simulator's reply -> its bytes, and what lamassu-machine's parser read from them
LAMASSU_READ = {
    "escrow $5": (id003.ESCROW, b"\x63", "fc 06 13 63 a2 d8", "escrow, code 99: 5 dollars"),
    "idling": (id003.IDLING, b"", "fc 05 11 27 56", "enable"),
    "vend valid": (id003.VEND_VALID, b"", "fc 05 15 03 10", "vendValid"),
    "stacker open": (id003.STACKER_OPEN, b"", "fc 05 44 0f 53", "stackerOpen"),
    "rejecting": (id003.REJECTING, b"\x79", "fc 06 17 79 19 00", "rejecting, reason inhibit"),
    "power up": (id003.POWER_UP, b"", "fc 05 40 2b 15", "powerUpAcceptor (0x40)"),
}
# GET CURRENCY ASSIGN's reply, which lamassu read as {97: 1, 98: 2, 99: 5, 100: 10, 101: 20,
# 102: 50, 103: 100} (escrow code -> dollars)
LAMASSU_CURRENCY = (
    "fc 21 8a 61 01 01 00 62 01 02 00 63 01 05 00 64 01 0a 00 65 01 14 00 66 01 32 00 67 01 64 00"
    " 16 d3"
)


def frame(text: str) -> bytes:
    return bytes.fromhex(text)


@pytest.mark.parametrize("name", LAMASSU_FRAMES)
def test_id003_host_frames_match_lamassu_machine(name: str) -> None:
    command, data, expected = LAMASSU_FRAMES[name]
    assert id003.encode(command, data) == frame(expected)
    # and Booth's simulator reads the frame lamassu's host sends
    assert list(id003.FrameReader().feed(frame(expected))) == [id003.Frame(command, data)]


@pytest.mark.parametrize("name", LAMASSU_READ)
def test_id003_replies_are_the_bytes_lamassu_machine_read(name: str) -> None:
    status, data, expected, _read_as = LAMASSU_READ[name]
    assert id003.encode(status, data) == frame(expected)


def test_id003_currency_assignment_and_crc() -> None:
    reply = id003.encode(id003.GET_CURRENCY_ASSIGN, id003.currency_assign(id003.USD_ESCROW_CODES))
    assert reply == frame(LAMASSU_CURRENCY)
    assert id003.parse_currency_assign(reply[3:-2]) == id003.USD_ESCROW_CODES
    assert id003.crc(b"123456789") == 0x2189
    # a frame cut short, then noise, then a whole one; a corrupt one is dropped
    reader = id003.FrameReader()
    whole = frame(LAMASSU_READ["escrow $5"][2])
    assert list(reader.feed(whole[:3])) == []
    assert (
        list(reader.feed(whole[3:] + b"\x00\x13" + whole))
        == [id003.Frame(id003.ESCROW, b"\x63")] * 2
    )
    corrupt = bytearray(whole)
    corrupt[3] ^= 0x01
    assert list(reader.feed(bytes(corrupt))) == [] and reader.dropped == 1


# the frames the ebds crate's tests state
EBDS_OMNIBUS_COMMAND = "02 08 10 7f 00 00 03 67"  # all denominations, nothing else set
EBDS_OMNIBUS_REPLY = "02 0b 20 00 00 00 00 00 00 03 2b"  # every data byte 0
EBDS_SOFT_RESET = "02 08 60 7f 7f 7f 03 17"


def test_ebds_frames_match_the_ebds_crate() -> None:
    assert ebds.encode(ebds.OMNIBUS_COMMAND, bytes([0x7F, 0, 0])) == frame(EBDS_OMNIBUS_COMMAND)
    assert ebds.encode(ebds.OMNIBUS_REPLY, bytes(6)) == frame(EBDS_OMNIBUS_REPLY)
    assert ebds.encode(ebds.AUXILIARY, ebds.SOFT_RESET) == frame(EBDS_SOFT_RESET)
    read = list(ebds.MessageReader().feed(frame(EBDS_OMNIBUS_COMMAND) + frame(EBDS_OMNIBUS_REPLY)))
    assert [(m.kind, m.ack) for m in read] == [(ebds.OMNIBUS_COMMAND, 0), (ebds.OMNIBUS_REPLY, 0)]
    command = ebds.Command.parse(read[0].data)
    assert command == ebds.Command(0x7F, stack=False, give_back=False, policy=ebds.POLICY_A)
    # the crate's all-zero reply: nothing set, not even the cash box (its bit 4 of byte 1)
    assert ebds.Status.parse(read[1].data) == ebds.Status(
        cassette_attached=False, model=0, revision=0
    )


def test_ebds_bits_where_the_ebds_crate_puts_them() -> None:
    """Data byte 0: idling 0, accepting 1, escrowed 2, stacking 3, stacked 4, returning 5,
    returned 6; byte 1: cheated 0, rejected 1, jammed 2, stacker full 3, cassette attached 4,
    paused 5; byte 2: power up 0, invalid command 1, failure 2, note value 3-5; byte 3: disabled
    5. The omnibus command's byte 1: orientation 2-3, escrow 4, stack 5, return 6; byte 2: the
    power-up policy in 2-3. The control byte: ACK/NAK in bit 0."""
    escrowed_5 = ebds.Status(escrowed=True, note=3, model=0, revision=0).data()
    assert escrowed_5 == bytes([1 << 2, 1 << 4, 3 << 3, 0, 0, 0])
    jammed_full = ebds.Status(jammed=True, stacker_full=True, cassette_attached=False).data()
    assert jammed_full[1] == 1 << 2 | 1 << 3
    power = ebds.Status(power_up=True, failure=True, disabled=True, returned=True).data()
    assert (power[0], power[2], power[3]) == (1 << 6, 1 << 0 | 1 << 2, 1 << 5)
    assert ebds.Status(cheated=True, rejected=True).data()[1] == 1 << 0 | 1 << 1 | 1 << 4
    # orientation four-way (0b10, the crate's OrientationControl::FourWay), escrow, stack
    assert ebds.Command(stack=True).data() == bytes([0x7F, 0b0011_1000, 0])
    assert ebds.Command(0, give_back=True, policy=2).data() == bytes([0, 0b0101_1000, 0b1000])
    stack_nak = ebds.Command(stack=True).message(1)
    assert stack_nak == frame("02 08 11 7f 38 00 03 5e")  # XOR 08^11^7f^38^00
    for status in (ebds.Status(escrowed=True, note=7), ebds.Status(stacked=True, note=1)):
        assert ebds.Status.parse(status.data()) == status  # both ways
    corrupt = bytearray(frame(EBDS_OMNIBUS_REPLY))
    corrupt[-1] ^= 0x01
    reader = ebds.MessageReader()
    assert list(reader.feed(bytes(corrupt))) == [] and reader.dropped == 1


# Pyramid's stated replies (all with ACK 1, model 0x01, revision 0x02, misc 0) -> what they say
PYRAMID = [
    ("02 0b 21 01 10 00 00 01 02 03 38", {"idling": True}),
    ("02 0b 21 02 10 00 00 01 02 03 3b", {"accepting": True}),
    ("02 0b 21 04 10 00 00 01 02 03 3d", {"escrowed": True}),
    ("02 0b 21 08 10 00 00 01 02 03 31", {"stacking": True}),
    ("02 0b 21 20 10 00 00 01 02 03 19", {"returning": True}),
    ("02 0b 21 00 14 00 00 01 02 03 3d", {"jammed": True}),
    ("02 0b 21 00 18 00 00 01 02 03 31", {"stacker_full": True}),
    ("02 0b 21 00 10 04 00 01 02 03 3d", {"failure": True}),
    ("02 0b 21 11 10 00 00 01 02 03 28", {"idling": True, "stacked": True}),
    ("02 0b 21 41 10 00 00 01 02 03 78", {"idling": True, "returned": True}),
    ("02 0b 21 01 11 00 00 01 02 03 39", {"idling": True, "cheated": True}),
    ("02 0b 21 01 12 00 00 01 02 03 3a", {"idling": True, "rejected": True}),
    ("02 0b 21 01 10 02 00 01 02 03 3a", {"idling": True, "invalid_command": True}),
    ("02 0b 21 01 10 01 00 01 02 03 39", {"idling": True, "power_up": True}),
    (
        "02 0b 21 51 13 03 00 01 02 03 68",
        {
            "idling": True,
            "stacked": True,
            "returned": True,
            "cheated": True,
            "rejected": True,
            "invalid_command": True,
            "power_up": True,
        },
    ),
    ("02 0b 21 01 00 00 00 01 02 03 28", {"idling": True, "cassette_attached": False}),
]
PYRAMID_STACKED = ["20", "38", "30", "08", "00", "18", "10"]  # checksums, notes 1 to 7
PYRAMID_ESCROWED = ["35", "2d", "25", "1d", "15", "0d", "05"]
for note, (stacked, escrowed) in enumerate(zip(PYRAMID_STACKED, PYRAMID_ESCROWED, strict=True), 1):
    PYRAMID.append(
        (
            f"02 0b 21 11 10 {note << 3:02x} 00 01 02 03 {stacked}",
            {"idling": True, "stacked": True, "note": note},
        )
    )
    PYRAMID.append(
        (f"02 0b 21 04 10 {note << 3:02x} 00 01 02 03 {escrowed}", {"escrowed": True, "note": note})
    )


@pytest.mark.parametrize(("payload", "says"), PYRAMID, ids=[p[0][9:23] for p in PYRAMID])
def test_ebds_replies_read_as_pyramid_states_them(payload: str, says: dict[str, object]) -> None:
    (message,) = ebds.MessageReader().feed(frame(payload))
    assert (message.kind, message.ack) == (ebds.OMNIBUS_REPLY, 1)
    expected = ebds.Status(model=1, revision=2, **says)  # type: ignore[arg-type]
    assert ebds.Status.parse(message.data) == expected
    assert expected.message(1) == frame(payload)  # and the simulator writes the same bytes


def test_ebds_first_poll_as_pyramid_states_it() -> None:
    assert ebds.encode(ebds.OMNIBUS_COMMAND, bytes([0x7F, ebds.ESCROW_MODE, 0])) == frame(
        "02 08 10 7f 10 00 03 77"
    )
    with_none = ebds.Command(0, stack=False)
    assert ebds.Command.parse(with_none.data()) == with_none
