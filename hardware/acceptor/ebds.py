"""MEI/CPI's EBDS protocol (Cashflow SC, SCN, SC Advance, AE2600, VN2500 and the Series 2000
family), the frame layer and the omnibus messages a bill acceptor uses. Pure functions.

Every message is `STX LEN CTRL DATA ETX CHK`: STX = 0x02, ETX = 0x03; LEN counts the whole
message; CHK is the XOR of LEN, CTRL and DATA. CTRL holds the message type in bits 4-6 (1 the
host's omnibus command, 2 the acceptor's omnibus reply, 6 auxiliary, 7 extended) and the ACK/NAK
toggle in bit 0: the host flips it for each new message and keeps it to send one again; the
acceptor answers with the same bit, and answers a message that repeats the last bit with its
last reply, without acting on it twice. The line is 9600 baud, 7 data bits, even parity.

The omnibus command's three data bytes: the denominations taken (bits 0-6: 0 refuses every
bill, which is how the host disables the acceptor), the operational mode (bits 2-3 orientation,
bit 4 escrow mode, bit 5 stack the bill in escrow, bit 6 return it) and the configuration (bits
2-3 the power-up policy: A (00) gives back a bill found in escrow at power-up and stacks one
past escrow without reporting its value). The reply's six: the state (idling, accepting,
escrowed, stacking, stacked, returning, returned), the status (cheated, rejected, jammed, cash
box full, cash box attached, paused, calibration), exceptions (power up, invalid command,
failure, the note's value index in bits 3-5, transport open), misc (stalled, flash, pre-stack,
barcode, capabilities, disabled), the model and the firmware revision.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.acceptor.framing import StartLengthReader

STX = 0x02
ETX = 0x03
OMNIBUS_COMMAND = 0x10
OMNIBUS_REPLY = 0x20
AUXILIARY = 0x60
EXTENDED = 0x70
ACK_BIT = 0x01
TYPE_MASK = 0x70

ALL_DENOMINATIONS = 0x7F
ORIENTATION_ANY = 0x08  # bits 2-3 = 0b10: notes fed any way (four-way)
ESCROW_MODE = 0x10
STACK = 0x20
RETURN = 0x40
POLICY_A = 0x00  # configuration bits 2-3

# standard note value indexes of a US dollar acceptor (extended note reporting off)
USD_NOTES = {1: 100, 2: 200, 3: 500, 4: 1000, 5: 2000, 6: 5000, 7: 10000}
SOFT_RESET = bytes([0x7F, 0x7F, 0x7F])  # an auxiliary message's data


class EbdsError(Exception):
    """A message that does not follow the protocol."""


def checksum(data: bytes) -> int:
    value = 0
    for byte in data:
        value ^= byte
    return value


def encode(control: int, data: bytes) -> bytes:
    length = len(data) + 5
    if length > 0x7F:
        raise EbdsError(f"a message holds at most 122 data bytes, not {len(data)}")
    body = bytes([length, control]) + data
    return bytes([STX]) + body + bytes([ETX, checksum(body)])


@dataclass(frozen=True)
class Message:
    control: int
    data: bytes

    @property
    def ack(self) -> int:
        return self.control & ACK_BIT

    @property
    def kind(self) -> int:
        return self.control & TYPE_MASK


def _message(raw: bytes) -> Message | None:
    """A whole message (STX, length, control, data, ETX, checksum), or None when its ETX or
    checksum is wrong."""
    if raw[-2] != ETX or checksum(raw[1:-2]) != raw[-1]:
        return None
    return Message(raw[2], raw[3:-2])


class MessageReader(StartLengthReader[Message]):
    """Bytes in, whole messages out; noise before an STX is skipped, a message whose ETX or
    checksum is wrong is dropped (counted) and the search goes on from the next byte."""

    def __init__(self) -> None:
        super().__init__(STX, range(5, 0x80), _message)


@dataclass(frozen=True)
class Command:
    """The host's omnibus command."""

    denominations: int = ALL_DENOMINATIONS
    stack: bool = False
    give_back: bool = False
    policy: int = POLICY_A

    def data(self) -> bytes:
        mode = ORIENTATION_ANY | ESCROW_MODE
        mode |= STACK if self.stack else 0
        mode |= RETURN if self.give_back else 0
        return bytes([self.denominations & 0x7F, mode, (self.policy & 0x03) << 2])

    def message(self, ack: int) -> bytes:
        return encode(OMNIBUS_COMMAND | (ack & ACK_BIT), self.data())

    @classmethod
    def parse(cls, data: bytes) -> Command:
        if len(data) < 3:
            raise EbdsError(f"an omnibus command has 3 data bytes, not {len(data)}")
        return cls(data[0] & 0x7F, bool(data[1] & STACK), bool(data[1] & RETURN), data[2] >> 2 & 3)


@dataclass(frozen=True)
class Status:
    """The acceptor's omnibus reply, bit by bit."""

    idling: bool = False
    accepting: bool = False
    escrowed: bool = False
    stacking: bool = False
    stacked: bool = False
    returning: bool = False
    returned: bool = False
    cheated: bool = False
    rejected: bool = False
    jammed: bool = False
    stacker_full: bool = False
    cassette_attached: bool = True
    paused: bool = False
    power_up: bool = False
    invalid_command: bool = False
    failure: bool = False
    note: int = 0  # the note's value index, 1-7 (0: none or unknown)
    disabled: bool = False
    model: int = 0x54  # 'T'
    revision: int = 0x11

    def data(self) -> bytes:
        state = _bits(
            self.idling,
            self.accepting,
            self.escrowed,
            self.stacking,
            self.stacked,
            self.returning,
            self.returned,
        )
        status = _bits(
            self.cheated,
            self.rejected,
            self.jammed,
            self.stacker_full,
            self.cassette_attached,
            self.paused,
        )
        exceptions = _bits(self.power_up, self.invalid_command, self.failure) | (self.note & 7) << 3
        misc = _bits(False, False, False, False, False, self.disabled)
        return bytes([state, status, exceptions, misc, self.model & 0x7F, self.revision & 0x7F])

    def message(self, ack: int) -> bytes:
        return encode(OMNIBUS_REPLY | (ack & ACK_BIT), self.data())

    @classmethod
    def parse(cls, data: bytes) -> Status:
        if len(data) < 6:
            raise EbdsError(f"an omnibus reply has 6 data bytes, not {len(data)}")
        state, status, exceptions, misc, model, revision = data[:6]
        return cls(
            idling=bool(state & 0x01),
            accepting=bool(state & 0x02),
            escrowed=bool(state & 0x04),
            stacking=bool(state & 0x08),
            stacked=bool(state & 0x10),
            returning=bool(state & 0x20),
            returned=bool(state & 0x40),
            cheated=bool(status & 0x01),
            rejected=bool(status & 0x02),
            jammed=bool(status & 0x04),
            stacker_full=bool(status & 0x08),
            cassette_attached=bool(status & 0x10),
            paused=bool(status & 0x20),
            power_up=bool(exceptions & 0x01),
            invalid_command=bool(exceptions & 0x02),
            failure=bool(exceptions & 0x04),
            note=exceptions >> 3 & 7,
            disabled=bool(misc & 0x20),
            model=model,
            revision=revision,
        )


def _bits(*flags: bool) -> int:
    return sum(1 << i for i, flag in enumerate(flags) if flag)
