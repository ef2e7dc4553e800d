"""ITL's Smiley Secure Protocol (SSP), the packet layer and the codes a bill validator uses.

As publicly documented by Innovative Technology (the SSP implementation guide, GA138; the
command pages of its open SSP documentation): every packet is `STX SEQ/ID LEN DATA CRCL CRCH`,
STX = 0x7F; SEQ/ID is the slave id (0-0x7D) with bit 7 the sequence flag, which the host
toggles for each new command and keeps for a retry (the slave answers a repeated packet with its
last reply); LEN counts DATA; the CRC-16 (polynomial 0x8005, seed 0xFFFF, not reflected) covers
SEQ/ID, LEN and DATA, low byte first; after STX every 0x7F byte is sent twice (byte stuffing).
A reply's first data byte is its status (0xF0 OK). Left out: eSSP's encryption (the key
exchange and the AES layer) and the payout commands. Pure functions: no I/O here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

STX = 0x7F
SEQ = 0x80

# host commands
RESET = 0x01
SET_INHIBITS = 0x02
SETUP_REQUEST = 0x05
HOST_PROTOCOL = 0x06
POLL = 0x07
REJECT = 0x08
DISABLE = 0x09
ENABLE = 0x0A
SYNC = 0x11
HOLD = 0x18

# reply status
OK = 0xF0
UNKNOWN_COMMAND = 0xF2
WRONG_PARAMETERS = 0xF3
PARAMETER_OUT_OF_RANGE = 0xF4
CANNOT_PROCESS = 0xF5
SOFTWARE_ERROR = 0xF6
FAIL = 0xF8
STATUS_NAMES = {
    OK: "ok",
    UNKNOWN_COMMAND: "unknown command",
    WRONG_PARAMETERS: "wrong number of parameters",
    PARAMETER_OUT_OF_RANGE: "parameter out of range",
    CANNOT_PROCESS: "command cannot be processed",
    SOFTWARE_ERROR: "software error",
    FAIL: "fail",
}

# poll events of a bill validator (the data byte, where there is one, is a channel number)
SLAVE_RESET = 0xF1
READ = 0xEF
CREDIT = 0xEE
REJECTING = 0xED
REJECTED = 0xEC
STACKING = 0xCC
STACKED = 0xEB
SAFE_JAM = 0xEA
UNSAFE_JAM = 0xE9
DISABLED = 0xE8
STACKER_FULL = 0xE7
FRAUD_ATTEMPT = 0xE6
CASHBOX_REPLACED = 0xE4
CASHBOX_REMOVED = 0xE3
CLEARED_INTO_CASHBOX = 0xE2
CLEARED_FROM_FRONT = 0xE1
NOTE_PATH_OPEN = 0xE0
CHANNEL_DISABLE = 0xB5
WITH_CHANNEL = frozenset({READ, CREDIT, FRAUD_ATTEMPT, CLEARED_INTO_CASHBOX, CLEARED_FROM_FRONT})


class SspError(Exception):
    """A packet or reply that does not follow the protocol."""


def crc16(data: bytes) -> int:
    """SSP's CRC-16: polynomial 0x8005, seed 0xFFFF, most significant bit first."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8005) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def encode(seq_id: int, data: bytes) -> bytes:
    """One packet: STX, then SEQ/ID LEN DATA CRC with every 0x7F doubled."""
    if not 0 < len(data) <= 255:
        raise SspError(f"a packet holds 1-255 data bytes, not {len(data)}")
    body = bytes([seq_id & 0xFF, len(data)]) + data
    crc = crc16(body)
    raw = body + bytes([crc & 0xFF, crc >> 8])
    return bytes([STX]) + raw.replace(bytes([STX]), bytes([STX, STX]))


@dataclass(frozen=True)
class Packet:
    seq_id: int
    data: bytes

    @property
    def address(self) -> int:
        return self.seq_id & 0x7F

    @property
    def seq(self) -> int:
        return self.seq_id & SEQ


class PacketReader:
    """Bytes in, whole packets out (CRC checked, stuffing undone). A lone 0x7F starts a new
    packet (resynchronising after noise); a packet whose CRC fails is dropped."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._in_packet = False
        self._stx_seen = False  # the previous byte was a 0x7F inside a packet
        self.dropped = 0

    def feed(self, chunk: bytes) -> Iterator[Packet]:
        for byte in chunk:
            packet = self._byte(byte)
            if packet is not None:
                yield packet

    def _byte(self, byte: int) -> Packet | None:
        if not self._in_packet:
            if byte == STX:
                self._in_packet, self._buffer, self._stx_seen = True, bytearray(), False
            return None
        if self._stx_seen:
            self._stx_seen = False
            if byte != STX:  # a lone STX: a new packet begins with this byte
                self._buffer = bytearray()
                return self._take(byte)
            return self._take(STX)
        if byte == STX:
            self._stx_seen = True
            return None
        return self._take(byte)

    def _take(self, byte: int) -> Packet | None:
        self._buffer.append(byte)
        if len(self._buffer) < 2 or len(self._buffer) < self._buffer[1] + 4:
            return None
        raw, self._in_packet = bytes(self._buffer), False
        body, crc = raw[:-2], raw[-2] | raw[-1] << 8
        if crc16(body) != crc:
            self.dropped += 1
            return None
        return Packet(raw[0], raw[2:-2])


def events(reply: bytes) -> list[tuple[int, int | None]]:
    """A POLL reply's events after its OK status: (code, channel or None)."""
    if not reply or reply[0] != OK:
        raise SspError(f"poll answered {status_name(reply)}")
    found: list[tuple[int, int | None]] = []
    index = 1
    while index < len(reply):
        code = reply[index]
        if code in WITH_CHANNEL:
            if index + 1 >= len(reply):
                raise SspError(f"event 0x{code:02X} is missing its channel byte")
            found.append((code, reply[index + 1]))
            index += 2
        else:
            found.append((code, None))
            index += 1
    return found


def status_name(reply: bytes) -> str:
    if not reply:
        return "nothing"
    return STATUS_NAMES.get(reply[0], f"status 0x{reply[0]:02X}")


@dataclass(frozen=True)
class Setup:
    """What SETUP REQUEST says of a bill validator: firmware, currency, channel values (in the
    currency's smallest unit: channel value x the real value multiplier), each channel's
    country, and the protocol version."""

    unit_type: int
    firmware: str
    country: str
    channel_values: tuple[int, ...]
    protocol: int
    channel_countries: tuple[str, ...] = ()

    def value(self, channel: int | None) -> int:
        if channel is None or not 1 <= channel <= len(self.channel_values):
            return 0
        return self.channel_values[channel - 1]


def parse_setup(reply: bytes) -> Setup:
    """OK, unit type, firmware (4 ASCII), country (3 ASCII), value multiplier (3), channels n,
    n channel values (1 byte each), n security levels, real value multiplier (3, big-endian),
    protocol version; from protocol 6 on, then each channel's country (n x 3 ASCII) and each
    channel's value (n x 4, little-endian), which are the ones to use (a 1-byte value cannot
    hold a 500-unit note)."""
    if not reply or reply[0] != OK:
        raise SspError(f"setup request answered {status_name(reply)}")
    data = reply[1:]
    if len(data) < 12:
        raise SspError(f"setup reply is {len(data)} bytes: too short")
    count = data[11]
    need = 12 + 2 * count + 4
    if len(data) < need:
        raise SspError(f"setup reply for {count} channels needs {need} bytes, has {len(data)}")
    at = 12 + 2 * count
    multiplier = int.from_bytes(data[at : at + 3], "big")
    protocol = data[at + 3]
    values = tuple(data[12 : 12 + count])
    countries: tuple[str, ...] = ()
    if protocol >= 6:
        expanded = need + 7 * count
        if len(data) < expanded:
            raise SspError(
                f"a protocol {protocol} setup reply for {count} channels needs {expanded} "
                f"bytes (with each channel's country and 4-byte value), has {len(data)}"
            )
        countries = tuple(
            data[need + 3 * i : need + 3 * i + 3].decode("ascii", "replace") for i in range(count)
        )
        start = need + 3 * count
        values = tuple(
            int.from_bytes(data[start + 4 * i : start + 4 * i + 4], "little") for i in range(count)
        )
    return Setup(
        unit_type=data[0],
        firmware=data[1:5].decode("ascii", "replace"),
        country=data[5:8].decode("ascii", "replace"),
        channel_values=tuple(v * multiplier for v in values),
        protocol=protocol,
        channel_countries=countries,
    )


def setup_reply(
    channel_values: tuple[int, ...],
    *,
    multiplier: int = 100,
    country: str = "USD",
    protocol: int = 6,
) -> bytes:
    """A bill validator's SETUP REQUEST reply (the simulator's side), as a validator running
    `protocol` sends it: from protocol 6 on with each channel's country and 4-byte value (the
    1-byte legacy values then read 0 for a note above 255 units)."""
    count = len(channel_values)
    code = country.encode("ascii")[:3]
    reply = (
        bytes([OK, 0x00])
        + b"0400"
        + code
        + (1).to_bytes(3, "big")  # the legacy value multiplier
        + bytes([count])
        + bytes(v if v <= 0xFF else 0 for v in channel_values)
        + bytes([2] * count)
        + multiplier.to_bytes(3, "big")
        + bytes([protocol])
    )
    if protocol >= 6:
        reply += code * count + b"".join(v.to_bytes(4, "little") for v in channel_values)
    return reply
