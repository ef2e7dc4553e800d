"""A JCM bill validator speaking ID-003 (WBA, UBA, iVIZION, DBV, EBA, Tournament...) on a serial
line: `booth acceptor set id003:/dev/ttyUSB0` (optionally `@BAUD`: `id003:/dev/ttyS0@19200`).

The frame layer is hardware.acceptor.id003. The line is 8 data bits, even parity, 1 stop bit.
The host polls; the validator only answers:

- start-up: STATUS REQUEST; a validator that says POWER UP (with or without a bill inside) gets
  RESET; then the settings: all denominations, no extra security, polling mode, INHIBIT as the
  kiosk wants it; and GET CURRENCY ASSIGN, the escrow code of each denomination;
- `enable`/`disable`: INHIBIT 0 / 1 (an inhibited validator refuses bills at its mouth);
- `poll`: STATUS REQUEST; ESCROW with its code is a bill held in escrow (the validator keeps
  it there until told: no HOLD needed while the sale is recorded);
- `stack`: STACK-1, then STATUS REQUEST until VEND VALID (past recovery: acknowledged with ACK,
  the bill is the hall's), a jam, or POWER UP (the power went: after RESET the validator gives
  back a bill it held in its acceptor, 0x41, and stacks one it held in its stacker, 0x42);
  after a POWER UP the validator is left inhibited until the kiosk, having settled where the
  bill went, calls `enable`;
- `return_bill`: RETURN, then STATUS REQUEST until the validator is idle again.

A frame not answered (or answered COMMUNICATION ERROR) is sent again; a validator that stays
silent is AcceptorFault, and one that keeps reporting a jam, its cash box out or full, or a
failure makes `poll` raise AcceptorFault for as long as it does. A vanished line is
AcceptorUnplugged; the next call opens it again and runs the start-up.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import serial

from hardware.acceptor import faults, id003
from hardware.acceptor.line import AcceptorUnplugged, Opener, SerialLine, parse_port
from pos.services.ports import AcceptorFault, BillEvent

DEFAULT_BAUD = 9600
TROUBLES = {
    id003.STACKER_OPEN: faults.CASHBOX_REMOVED,
    id003.STACKER_FULL: faults.CASHBOX_FULL,
    id003.JAM_IN_ACCEPTOR: faults.JAMMED,
    id003.JAM_IN_STACKER: faults.JAMMED,
    id003.FAILURE: faults.FAILED,
    id003.CHEATED: faults.FRAUD,
}
QUIET = frozenset(
    {
        id003.IDLING,
        id003.ACCEPTING,
        id003.STACKING,
        id003.STACKED,
        id003.RETURNING,
        id003.HOLDING,
        id003.DISABLED,
        id003.INITIALIZE,
        id003.PAUSE,
    }
)


class Id003Acceptor:
    kind = "id003"

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = DEFAULT_BAUD,
        opener: Opener = serial.serial_for_url,
        reply_timeout: float = 0.3,
        retries: int = 2,
        poll_interval: float = 0.02,
    ) -> None:
        self.port_name = port
        self.baudrate = baudrate
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.poll_interval = poll_interval
        settings = {"baudrate": baudrate, "parity": serial.PARITY_EVEN, "bytesize": 8}
        self.line = SerialLine(port, opener=opener, settings=settings)
        self.denominations = dict(id003.USD_ESCROW_CODES)  # escrow code -> cents
        self._reader = id003.FrameReader()
        self._enabled = False
        self._holding = 0  # cents: the bill in escrow (or being stacked), as the kiosk knows it
        self._reported = False  # the bill in escrow was reported
        self._queued: list[BillEvent] = []
        self._last = -1  # the last status seen

    # -- the port -----------------------------------------------------------------------------

    def enable(self) -> None:
        self._ensure_open()
        self._setting(id003.SET_INHIBIT, b"\x00")
        self._enabled = True

    def disable(self) -> None:
        self._ensure_open()
        self._setting(id003.SET_INHIBIT, b"\x01")
        self._enabled = False

    def poll(self) -> list[BillEvent]:
        self._ensure_open()
        if self._queued:
            queued, self._queued = self._queued, []
            return queued
        reply = self._status()
        status, previous = reply.command, self._last
        self._last = status
        if status in id003.POWER_UPS:
            return self._powered_up(status)
        if status == id003.ESCROW:
            if self._reported:
                return []
            cents = self.denominations.get(reply.data[0], 0) if reply.data else 0
            self._holding, self._reported = cents, True
            return [BillEvent("escrow", cents)]
        if status == id003.REJECTING and previous != id003.REJECTING:
            return [BillEvent("returned", 0, faults.REFUSED)]
        if status == id003.VEND_VALID:  # a stack that the line cut short: it went through
            self._send(id003.encode(id003.ACK))
            cents, self._holding, self._reported = self._holding, 0, False
            return [BillEvent("stacked", cents)]
        if status in TROUBLES:
            raise AcceptorFault(self._trouble(reply))
        return []

    def stack(self, timeout: float) -> BillEvent:
        return self._settle(id003.STACK_1, timeout)

    def return_bill(self, timeout: float) -> BillEvent:
        return self._settle(id003.RETURN, timeout)

    def close(self) -> None:
        self.line.close()

    # -- settling a bill in escrow --------------------------------------------------------------

    def _settle(self, command: int, timeout: float) -> BillEvent:
        self._ensure_open()
        cents, self._reported = self._holding, False
        try:
            self._operation(command)
        except AcceptorUnplugged:
            raise
        except AcceptorFault:
            pass  # silent (the power went?): what the status says next tells
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                reply = self._status()
            except AcceptorUnplugged:
                raise
            except AcceptorFault:
                continue  # silent (power lost?): ask again
            status = self._last = reply.command
            if status in id003.POWER_UPS:
                self._queued += self._powered_up(status)[1:]
                return BillEvent("reset", 0, faults.POWER_LOST)
            if command == id003.STACK_1 and status in (id003.VEND_VALID, id003.STACKED):
                if status == id003.VEND_VALID:
                    self._send(id003.encode(id003.ACK))
                self._holding = 0
                return BillEvent("stacked", cents)
            if command == id003.RETURN and status in (id003.IDLING, id003.DISABLED):
                self._holding = 0
                return BillEvent("returned", cents, faults.GAVE_BACK)
            if status == id003.REJECTING:
                self._holding = 0
                return BillEvent("returned", cents, faults.GAVE_BACK)
            if status in (id003.JAM_IN_ACCEPTOR, id003.JAM_IN_STACKER):
                where = "inside" if status == id003.JAM_IN_STACKER else "at the front"
                self._holding = 0
                return BillEvent("jam", cents, faults.jammed_at(where, "ID-003"))
            if status in TROUBLES:  # the cash box pulled mid-stack, a fraud: nobody can say
                self._holding = 0
                return BillEvent("jam", cents, self._trouble(reply))
            time.sleep(self.poll_interval)
        raise AcceptorFault(f"the bill acceptor did not finish with the bill in {timeout:.0f} s")

    def _powered_up(self, status: int) -> list[BillEvent]:
        """After POWER UP: RESET and the settings again; what became of a bill it held."""
        cents, self._holding, self._reported = self._holding, 0, False
        self._enabled = False  # until the kiosk has settled the reset: it calls enable
        self._operation(id003.RESET)
        self._settings()
        events = [BillEvent("reset", 0, faults.RESTARTED)]
        if status == id003.POWER_UP_BILL_IN_ACCEPTOR:
            events.append(BillEvent("returned", cents, cleared=True))
        elif status == id003.POWER_UP_BILL_IN_STACKER:
            events.append(BillEvent("stacked", cents, cleared=True))
        return events

    def _trouble(self, reply: id003.Frame) -> str:
        words = TROUBLES[reply.command]
        if reply.command == id003.FAILURE and reply.data:
            return f"{words} (ID-003 failure 0x{reply.data[0]:02X})"
        return words

    # -- the line -----------------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if not self.line.open():
            return
        self._reader = id003.FrameReader()
        try:
            status = self._status().command
            if status in id003.POWER_UPS:
                self._queued += self._powered_up(status)
            else:
                self._settings()
        except AcceptorUnplugged:
            raise
        except AcceptorFault:
            self.line.close()  # the start-up again next time
            raise

    def _settings(self) -> None:
        self._setting(id003.SET_DENOMINATIONS, b"\x00\x00")
        self._setting(id003.SET_SECURITY, b"\x00\x00")
        self._setting(id003.SET_COMMUNICATION_MODE, b"\x00")
        self._setting(id003.SET_INHIBIT, b"\x00" if self._enabled else b"\x01")
        reply = self._exchange(id003.GET_CURRENCY_ASSIGN)
        if reply.command == id003.GET_CURRENCY_ASSIGN and reply.data:
            with contextlib.suppress(id003.Id003Error):  # else the US dollar table stays
                self.denominations = id003.parse_currency_assign(reply.data)

    def _status(self) -> id003.Frame:
        return self._exchange(id003.STATUS_REQUEST)

    def _operation(self, command: int) -> None:
        reply = self._exchange(command)
        if reply.command != id003.ACK:
            raise AcceptorFault(f"ID-003 command 0x{command:02X} answered 0x{reply.command:02X}")

    def _setting(self, command: int, data: bytes) -> None:
        reply = self._exchange(command, data)
        if reply.command != command:
            raise AcceptorFault(f"ID-003 setting 0x{command:02X} answered 0x{reply.command:02X}")

    def _send(self, frame: bytes) -> None:
        self.line.send(frame)

    def _exchange(self, command: int, data: bytes = b"") -> id003.Frame:
        """One frame and its answer; sent again when not answered or answered COMMUNICATION
        ERROR; AcceptorFault when the validator stays silent."""
        frame = id003.encode(command, data)
        for _ in range(self.retries + 1):
            self._reader = id003.FrameReader()  # nothing said before this frame is its answer
            self._send(frame)
            reply = self._read_reply()
            if reply is not None and reply.command != id003.COMMUNICATION_ERROR:
                return reply
        raise AcceptorFault(f"the bill acceptor on {self.port_name} does not answer")

    def _read_reply(self) -> id003.Frame | None:
        deadline = time.monotonic() + self.reply_timeout
        while time.monotonic() < deadline:
            chunk = self.line.read(64)
            for frame in self._reader.feed(chunk):
                return frame
        return None


def from_spec(options: str, station_dir: Path) -> Id003Acceptor:
    """`PORT[@BAUD]`: a device path (or a pyserial URL) with an optional baud rate."""
    port, baud = parse_port(options, "id003", DEFAULT_BAUD)
    return Id003Acceptor(port, baudrate=baud)
