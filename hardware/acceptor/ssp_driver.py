"""An ITL SSP bill validator (NV9, NV10, NV11, NV200, BV20, BV50, BV100...) on a serial line:
`booth acceptor set ssp:/dev/ttyACM0` (optionally `@BAUD` and `#ID`: `ssp:/dev/ttyUSB0@9600#0`).

The packet layer is hardware.acceptor.ssp. This driver speaks the validator's commands without
encryption (eSSP is left out: see docs/kiosk-cash.md):

- start-up: SYNC, HOST PROTOCOL 6, SETUP REQUEST (the channel values), SET INHIBITS; then
  HOLD, before any POLL (which would stack it): answered OK, the validator still holds a bill
  in escrow from before (the kiosk died with it there), reported as `escrow` of value 0 (its
  READ went to the host that died) so the kiosk can give it back;
- `enable`/`disable`: ENABLE / DISABLE (a disabled validator refuses bills at its mouth);
- `poll`: POLL, or HOLD while a bill is in escrow (HOLD keeps it there, POLL would accept it);
- `stack`: POLL until CREDIT (past recovery: in the cash box), REJECTED (given back), a jam,
  or SLAVE RESET (power lost: what it then says of the bill, NOTE CLEARED FROM FRONT or INTO
  CASHBOX, comes with the next polls). After SLAVE RESET the validator stays disabled, as it
  powered up, until the kiosk has settled where the bill went and calls `enable`;
- `return_bill`: REJECT, then POLL until REJECTED.

A packet not answered is sent again with the same sequence flag (the validator answers a
repeated packet with its last reply); a validator that stays silent is re-synchronised (SYNC and
the start-up again), as after it lost power. A line that vanishes is AcceptorUnplugged (see
hardware.acceptor.line): the port is dropped and opened again, with the start-up, when it
returns. A jam, a cash box out or full make `poll` raise AcceptorFault for as long as the
validator reports them (the kiosk shows the acceptor out of service meanwhile).
"""

from __future__ import annotations

import time
from pathlib import Path

import serial

from hardware.acceptor import faults, ssp
from hardware.acceptor.line import AcceptorUnplugged, Opener, SerialLine
from hardware.acceptor.sim import BadAcceptorSpec
from pos.services.ports import AcceptorFault, BillEvent

DEFAULT_BAUD = 9600
TROUBLES = {
    ssp.SAFE_JAM: faults.JAMMED,
    ssp.UNSAFE_JAM: faults.JAMMED,
    ssp.STACKER_FULL: faults.CASHBOX_FULL,
    ssp.CASHBOX_REMOVED: faults.CASHBOX_REMOVED,
}


class SspAcceptor:
    kind = "ssp"

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = DEFAULT_BAUD,
        address: int = 0,
        opener: Opener = serial.serial_for_url,
        reply_timeout: float = 0.5,
        retries: int = 2,
        poll_interval: float = 0.05,
    ) -> None:
        self.port_name = port
        self.baudrate = baudrate
        self.address = address
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.poll_interval = poll_interval
        self.line = SerialLine(port, opener=opener, settings={"baudrate": baudrate})
        self._reader = ssp.PacketReader()
        self._seq = 0
        self._holding: int | None = None  # channel of the bill held in escrow
        self._enabled = False
        self._queued: list[BillEvent] = []
        self._trouble = ""  # what the validator keeps reporting (a jam, the cash box out)
        self.setup: ssp.Setup | None = None

    # -- the port -----------------------------------------------------------------------------

    def enable(self) -> None:
        self._ensure_open()
        self._command(bytes([ssp.ENABLE]))
        self._enabled = True

    def disable(self) -> None:
        self._ensure_open()
        self._command(bytes([ssp.DISABLE]))
        self._enabled = False

    def poll(self) -> list[BillEvent]:
        self._ensure_open()
        if self._queued:
            queued, self._queued = self._queued, []
            return queued
        if self._holding is not None:
            reply = self._exchange(bytes([ssp.HOLD]))
            if reply[:1] == bytes([ssp.OK]):
                return []
            self._holding = None  # nothing in escrow any more: see what the poll says
        reply = self._exchange(bytes([ssp.POLL]))
        if reply[:1] == bytes([ssp.FAIL]):
            raise AcceptorFault(faults.FAILED)
        found = ssp.events(reply)
        self._trouble = next((TROUBLES[code] for code, _ in found if code in TROUBLES), "")
        translated = self._translate(found)
        if self._trouble and not translated:
            raise AcceptorFault(self._trouble)
        return translated

    def stack(self, timeout: float) -> BillEvent:
        return self._settle(timeout, reject=False)

    def return_bill(self, timeout: float) -> BillEvent:
        return self._settle(timeout, reject=True)

    def close(self) -> None:
        self.line.close()

    # -- settling a bill in escrow --------------------------------------------------------------

    def _settle(self, timeout: float, *, reject: bool) -> BillEvent:
        self._ensure_open()
        amount = self._value(self._holding)
        self._holding = None
        if reject:
            self._command(bytes([ssp.REJECT]))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                found = ssp.events(self._command(bytes([ssp.POLL])))
            except AcceptorUnplugged:
                raise
            except AcceptorFault:
                continue  # silent (power lost?): _command re-synchronised; poll again
            for index, (code, channel) in enumerate(found):
                if code == ssp.SLAVE_RESET:
                    self._queued += self._translate(found[index + 1 :])
                    self._resume()
                    return BillEvent("reset", 0, faults.POWER_LOST)
                if code == ssp.CREDIT:
                    return BillEvent("stacked", self._value(channel) or amount)
                if code == ssp.REJECTED:
                    return BillEvent("returned", amount, faults.GAVE_BACK)
                if code in (ssp.SAFE_JAM, ssp.UNSAFE_JAM):
                    where = "inside" if code == ssp.SAFE_JAM else "at the front"
                    return BillEvent("jam", amount, faults.jammed_at(where, "SSP"))
            time.sleep(self.poll_interval)
        raise AcceptorFault(f"the bill acceptor did not finish with the bill in {timeout:.0f} s")

    def _translate(self, found: list[tuple[int, int | None]]) -> list[BillEvent]:
        out: list[BillEvent] = []
        for code, channel in found:
            if code == ssp.READ and channel:
                self._holding = channel
                out.append(BillEvent("escrow", self._value(channel)))
            elif code == ssp.CREDIT:
                out.append(BillEvent("stacked", self._value(channel)))
            elif code == ssp.REJECTED:
                out.append(BillEvent("returned", 0, faults.REFUSED))
            elif code == ssp.CLEARED_FROM_FRONT:
                out.append(BillEvent("returned", self._value(channel), cleared=True))
            elif code == ssp.CLEARED_INTO_CASHBOX:
                out.append(BillEvent("stacked", self._value(channel), cleared=True))
            elif code == ssp.SLAVE_RESET:
                self._resume()
                out.append(BillEvent("reset", 0, faults.RESTARTED))
            elif code == ssp.FRAUD_ATTEMPT:
                out.append(BillEvent("fault", 0, faults.FRAUD))
        return out

    def _value(self, channel: int | None) -> int:
        return self.setup.value(channel) if self.setup is not None else 0

    # -- the line -----------------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if self.line.open():
            self._reader = ssp.PacketReader()
            try:
                self._start()
            except AcceptorUnplugged:
                raise
            except AcceptorFault:
                self.line.close()  # the start-up again next time
                raise

    def _start(self) -> None:
        self._sync()
        self._exchange(bytes([ssp.HOST_PROTOCOL, 6]))  # older firmware may refuse: fine
        self.setup = ssp.parse_setup(self._command(bytes([ssp.SETUP_REQUEST])))
        self._command(bytes([ssp.SET_INHIBITS, 0xFF, 0xFF]))
        if self._holding is None and self._exchange(bytes([ssp.HOLD]))[:1] == bytes([ssp.OK]):
            self._holding = 0  # a bill in escrow from before, of a value no longer said
            self._queued.append(BillEvent("escrow", 0, faults.HELD_AT_START))
        if self._enabled:  # a line back after it vanished: as the kiosk left it
            self._command(bytes([ssp.ENABLE]))

    def _resume(self) -> None:
        """After the validator restarted: it forgot its inhibits, and it stays disabled until
        the kiosk, having settled where the bill it held went, enables it (issue #29: enabled
        here, it took a bill while the kiosk was not listening)."""
        self._holding = None
        self._enabled = False
        self._command(bytes([ssp.SET_INHIBITS, 0xFF, 0xFF]))

    def _sync(self) -> None:
        self._seq = ssp.SEQ
        reply = self._exchange(bytes([ssp.SYNC]), resync=False)
        if reply[:1] != bytes([ssp.OK]):
            raise AcceptorFault(f"SYNC answered {ssp.status_name(reply)}")

    def _command(self, data: bytes) -> bytes:
        """Send a command; its reply must be OK."""
        reply = self._exchange(data)
        if reply[:1] != bytes([ssp.OK]):
            raise AcceptorFault(f"command 0x{data[0]:02X} answered {ssp.status_name(reply)}")
        return reply

    def _exchange(self, data: bytes, *, resync: bool = True) -> bytes:
        """One command and its reply; a lost packet is sent again with the same sequence flag;
        a validator that stays silent is re-synchronised once, then AcceptorFault."""
        packet = ssp.encode(self._seq | self.address, data)
        for _ in range(self.retries + 1):
            self.line.send(packet)
            reply = self._read_reply()
            if reply is not None:
                self._seq ^= ssp.SEQ
                return reply
        if resync:
            try:
                self._sync()
            except AcceptorUnplugged:
                raise
            except AcceptorFault:
                pass
            else:
                return self._exchange(data, resync=False)
        raise AcceptorFault(f"the bill acceptor on {self.port_name} does not answer")

    def _read_reply(self) -> bytes | None:
        deadline = time.monotonic() + self.reply_timeout
        while time.monotonic() < deadline:
            chunk = self.line.read(64)
            if not chunk:
                continue
            for packet in self._reader.feed(chunk):
                if packet.address == self.address:
                    return packet.data
        return None


def from_spec(options: str, station_dir: Path) -> SspAcceptor:
    """`PORT[@BAUD][#ID]`: a device path (or a pyserial URL) with optional baud and slave id."""
    text = options.strip()
    address = 0
    if "#" in text:
        text, _, ident = text.rpartition("#")
        if not ident.isdigit() or int(ident) > 0x7D:
            raise BadAcceptorSpec(f"slave id {ident!r} is not 0-125")
        address = int(ident)
    baud = DEFAULT_BAUD
    if "@" in text:
        text, _, rate = text.rpartition("@")
        if not rate.isdigit() or int(rate) not in serial.Serial.BAUDRATES:
            raise BadAcceptorSpec(f"baud rate {rate!r} is not one a serial line uses")
        baud = int(rate)
    if not text:
        raise BadAcceptorSpec("name the serial port, e.g. ssp:/dev/ttyACM0")
    return SspAcceptor(text, baudrate=baud, address=address)
