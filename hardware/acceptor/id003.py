"""JCM's ID-003 protocol (WBA, UBA, iVIZION, DBV, EBA...), the frame layer and the codes a bill
validator uses. Pure functions: no I/O here.

Every frame, either way, is `SYNC LNG CMD DATA CRCL CRCH`: SYNC = 0xFC; LNG counts the whole
frame, SYNC and CRC included (5 for a frame without data); the CRC is CRC-CCITT as JCM computes
it (polynomial x^16+x^12+x^5+1, reflected: 0x8408; seed 0; the "Kermit" CRC) over SYNC to the
last data byte, sent low byte first. The host polls with STATUS REQUEST; the acceptor answers
with its status (ESCROW with the bill's escrow code, and so on). An operation command (RESET,
STACK-1, RETURN, HOLD) is answered ACK; a setting command (ENABLE/DISABLE, SECURITY, INHIBIT...)
is answered with its own echo. The host acknowledges VEND VALID with ACK.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.acceptor.framing import StartLengthReader

SYNC = 0xFC

# controller -> acceptor
STATUS_REQUEST = 0x11
RESET = 0x40
STACK_1 = 0x41
STACK_2 = 0x42
RETURN = 0x43
HOLD = 0x44
WAIT = 0x45
ACK = 0x50
SET_DENOMINATIONS = 0xC0  # 2 bytes: a bit set refuses that denomination
SET_SECURITY = 0xC1  # 2 bytes
SET_COMMUNICATION_MODE = 0xC2  # 1 byte: 0 polling
SET_INHIBIT = 0xC3  # 1 byte: 0 accept bills, 1 refuse them
SET_DIRECTION = 0xC4  # 1 byte
SET_OPTIONAL_FUNCTION = 0xC5  # 2 bytes
GET_DENOMINATIONS = 0x80
GET_VERSION = 0x88
GET_CURRENCY_ASSIGN = 0x8A  # per denomination: escrow code, country, value, exponent
SETTINGS = frozenset(
    {
        SET_DENOMINATIONS,
        SET_SECURITY,
        SET_COMMUNICATION_MODE,
        SET_INHIBIT,
        SET_DIRECTION,
        SET_OPTIONAL_FUNCTION,
    }
)

# acceptor -> controller: statuses
IDLING = 0x11  # "ENABLE": waiting for a bill
ACCEPTING = 0x12
ESCROW = 0x13  # data: the bill's escrow code
STACKING = 0x14
VEND_VALID = 0x15  # past recovery: the host must ACK it
STACKED = 0x16
REJECTING = 0x17  # data: the reason
RETURNING = 0x18
HOLDING = 0x19
DISABLED = 0x1A  # "DISABLE (INHIBIT)"
INITIALIZE = 0x1B
POWER_UP = 0x40
POWER_UP_BILL_IN_ACCEPTOR = 0x41  # after RESET the bill is given back
POWER_UP_BILL_IN_STACKER = 0x42  # after RESET the bill is stacked
STACKER_FULL = 0x43
STACKER_OPEN = 0x44  # the cash box is out
JAM_IN_ACCEPTOR = 0x45
JAM_IN_STACKER = 0x46
PAUSE = 0x47
CHEATED = 0x48
FAILURE = 0x49  # data: the failure code
COMMUNICATION_ERROR = 0x4A  # the acceptor received a frame with a bad CRC
INVALID_COMMAND = 0x4B
POWER_UPS = frozenset({POWER_UP, POWER_UP_BILL_IN_ACCEPTOR, POWER_UP_BILL_IN_STACKER})

# US dollar escrow codes, as JCM assigns them (a validator says its own with GET_CURRENCY_ASSIGN)
USD_ESCROW_CODES = {
    0x61: 100,
    0x62: 200,
    0x63: 500,
    0x64: 1000,
    0x65: 2000,
    0x66: 5000,
    0x67: 10000,
}
COUNTRY_USA = 0x01


class Id003Error(Exception):
    """A frame or reply that does not follow the protocol."""


def crc(data: bytes) -> int:
    """CRC-CCITT as ID-003 uses it: reflected polynomial 0x8408, seed 0 (CRC-16/KERMIT)."""
    value = 0
    for byte in data:
        value ^= byte
        for _ in range(8):
            value = (value >> 1) ^ 0x8408 if value & 1 else value >> 1
    return value


def encode(command: int, data: bytes = b"") -> bytes:
    """One frame: SYNC, length, command, data, CRC low byte first."""
    length = len(data) + 5
    if length > 0xFF:
        raise Id003Error(f"a frame holds at most 250 data bytes, not {len(data)}")
    body = bytes([SYNC, length, command]) + data
    value = crc(body)
    return body + bytes([value & 0xFF, value >> 8])


@dataclass(frozen=True)
class Frame:
    command: int  # the command, or the status in a reply
    data: bytes = b""


def _frame(raw: bytes) -> Frame | None:
    """A whole frame (SYNC, length, command, data, CRC low byte first), or None when its CRC
    fails."""
    if crc(raw[:-2]) != raw[-2] | raw[-1] << 8:
        return None
    return Frame(raw[2], raw[3:-2])


class FrameReader(StartLengthReader[Frame]):
    """Bytes in, whole frames out: anything before a SYNC is skipped; a frame whose CRC fails
    is dropped (counted), and the search for SYNC goes on from the byte after it."""

    def __init__(self) -> None:
        super().__init__(SYNC, range(5, 256), _frame)


def currency_assign(table: dict[int, int], country: int = COUNTRY_USA) -> bytes:
    """A GET_CURRENCY_ASSIGN reply's data: per escrow code, its country, value and power of ten
    (the value in whole currency units: $5 is 5 x 10^0). `table` maps escrow codes to cents."""
    out = bytearray()
    for code, cents in sorted(table.items()):
        value, exponent = cents // 100, 0
        while value > 0xFF and value % 10 == 0:
            value, exponent = value // 10, exponent + 1
        out += bytes([code, country, value, exponent])
    return bytes(out)


def parse_currency_assign(data: bytes) -> dict[int, int]:
    """Escrow code -> cents, from a GET_CURRENCY_ASSIGN reply's data (unassigned codes left
    out)."""
    if len(data) % 4:
        raise Id003Error(f"a currency assignment is 4 bytes a denomination, not {len(data)}")
    table: dict[int, int] = {}
    for at in range(0, len(data), 4):
        code, _country, value, exponent = data[at : at + 4]
        if value:
            table[code] = value * 10**exponent * 100
    return table
