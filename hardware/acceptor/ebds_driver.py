"""An MEI/CPI bill acceptor speaking EBDS (Cashflow SC, SCN, SC Advance, AE2600, VN2500...) on a
serial line: `booth acceptor set ebds:/dev/ttyUSB0` (optionally `@BAUD`).

The message layer is hardware.acceptor.ebds; the line is 7 data bits, even parity. Everything
is one omnibus command, answered by one omnibus reply:

- `poll`: the omnibus command with every denomination taken (enabled) or none (disabled), in
  escrow mode, power-up policy A; ESCROWED with a note value is a bill held in escrow (the
  acceptor keeps it there while the host sends neither STACK nor RETURN);
- `stack`: the command with STACK while the bill is escrowed, then plain polls until the
  STACKED event (the bill is the hall's), a jam, or POWER UP (the power went: under policy A
  the acceptor gives back a bill it held in escrow, RETURNED, and stacks one it had taken past
  escrow, STACKED without a value: the driver says which bill it was); from POWER UP on, the
  commands take no denomination until the kiosk, having settled the reset, calls `enable`;
- `return_bill`: the same with RETURN, until RETURNED.

A reply that does not come, or comes with the wrong ACK/NAK bit, is asked for again with the
same bit (the acceptor answers a repeat with its last reply and does not act twice); the bit
flips after each good reply. Jammed, the cash box missing or full, or a failure make `poll`
raise AcceptorFault for as long as the acceptor reports them; a vanished line is
AcceptorUnplugged, and the next call opens the line again.
"""

from __future__ import annotations

import time
from pathlib import Path

import serial

from hardware.acceptor import ebds, faults
from hardware.acceptor.line import AcceptorUnplugged, Opener, SerialLine, parse_port
from pos.services.ports import AcceptorFault, BillEvent

DEFAULT_BAUD = 9600


def trouble(status: ebds.Status) -> str:
    """What the acceptor keeps reporting that stops it taking bills ("" for nothing)."""
    if status.jammed:
        return faults.JAMMED
    if not status.cassette_attached:
        return faults.CASHBOX_REMOVED
    if status.stacker_full:
        return faults.CASHBOX_FULL
    if status.failure:
        return faults.FAILED
    return ""


class EbdsAcceptor:
    kind = "ebds"

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = DEFAULT_BAUD,
        opener: Opener = serial.serial_for_url,
        reply_timeout: float = 0.3,
        retries: int = 2,
        poll_interval: float = 0.02,
        notes: dict[int, int] | None = None,
    ) -> None:
        self.port_name = port
        self.baudrate = baudrate
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.poll_interval = poll_interval
        self.notes = dict(notes or ebds.USD_NOTES)  # value index -> cents
        settings = {
            "baudrate": baudrate,
            "bytesize": serial.SEVENBITS,
            "parity": serial.PARITY_EVEN,
            "stopbits": serial.STOPBITS_ONE,
        }
        self.line = SerialLine(port, opener=opener, settings=settings)
        self._reader = ebds.MessageReader()
        self._ack = 0
        self._enabled = False
        self._holding = 0  # cents: the bill in escrow, as the kiosk knows it
        self._reported = False
        self._after_power: int | None = None  # the bill held when the power went
        self._queued: list[BillEvent] = []
        self._powered_up = False  # the last reply said POWER UP

    # -- the port -----------------------------------------------------------------------------

    def enable(self) -> None:
        self._ensure_open()
        self._enabled = True
        self._queued += self._events(self._omnibus(self._command()))

    def disable(self) -> None:
        self._ensure_open()
        self._enabled = False
        self._queued += self._events(self._omnibus(self._command()))

    def poll(self) -> list[BillEvent]:
        self._ensure_open()
        if self._queued:
            queued, self._queued = self._queued, []
            return queued
        status = self._omnibus(self._command())
        events = self._events(status)
        problem = trouble(status)
        if problem and not events:
            raise AcceptorFault(problem)
        return events

    def stack(self, timeout: float) -> BillEvent:
        return self._settle(timeout, stack=True)

    def return_bill(self, timeout: float) -> BillEvent:
        return self._settle(timeout, stack=False)

    def close(self) -> None:
        self.line.close()

    # -- settling a bill in escrow --------------------------------------------------------------

    def _settle(self, timeout: float, *, stack: bool) -> BillEvent:
        self._ensure_open()
        cents, self._reported = self._holding, False
        ordered = False  # the acceptor took the order: stacking or returning
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            order = not ordered
            command = self._command(stack=stack and order, give_back=not stack and order)
            try:
                status = self._omnibus(command)
            except AcceptorUnplugged:
                raise
            except AcceptorFault:
                continue  # silent (power lost?): ask again
            if status.power_up:
                self._after_power = cents
                self._queued += self._events(status)[1:]
                return BillEvent("reset", 0, faults.POWER_LOST)
            ordered = ordered or status.stacking or status.returning or not status.escrowed
            if status.stacked:
                self._holding = 0
                return BillEvent("stacked", cents)
            if status.returned:
                self._holding = 0
                return BillEvent("returned", cents, faults.GAVE_BACK)
            if status.jammed:
                self._holding = 0
                return BillEvent("jam", cents, faults.jammed_at("inside", "EBDS"))
            problem = trouble(status) or (faults.FRAUD if status.cheated else "")
            if problem:  # the cash box pulled mid-stack, a fraud: nobody can say
                self._holding = 0
                return BillEvent("jam", cents, problem)
            time.sleep(self.poll_interval)
        raise AcceptorFault(f"the bill acceptor did not finish with the bill in {timeout:.0f} s")

    def _events(self, status: ebds.Status) -> list[BillEvent]:
        events: list[BillEvent] = []
        if status.power_up and not self._powered_up:
            events.append(BillEvent("reset", 0, faults.RESTARTED))
            self._enabled = False  # until the kiosk has settled the reset: it calls enable
            if self._after_power is None:
                self._after_power, self._holding, self._reported = self._holding, 0, False
        self._powered_up = status.power_up
        if self._after_power is not None and (status.stacked or status.returned):
            kind = "stacked" if status.stacked else "returned"
            events.append(BillEvent(kind, self._after_power, cleared=True))
            self._after_power = None
            return events
        if status.idling and not status.power_up:
            self._after_power = None  # nothing was held when the power went
        if status.escrowed and not self._reported:
            self._holding, self._reported = self.notes.get(status.note, 0), True
            events.append(BillEvent("escrow", self._holding))
        elif status.stacked:  # a stack that the line cut short: it went through
            events.append(BillEvent("stacked", self._holding))
            self._holding, self._reported = 0, False
        if status.rejected:
            events.append(BillEvent("returned", 0, faults.REFUSED))
        if status.cheated:
            events.append(BillEvent("fault", 0, faults.FRAUD))
        return events

    # -- the line -----------------------------------------------------------------------------

    def _command(self, *, stack: bool = False, give_back: bool = False) -> ebds.Command:
        denominations = ebds.ALL_DENOMINATIONS if self._enabled else 0
        return ebds.Command(denominations, stack=stack, give_back=give_back)

    def _ensure_open(self) -> None:
        if not self.line.open():
            return
        self._reader = ebds.MessageReader()
        try:
            self._queued += self._events(self._omnibus(self._command()))
        except AcceptorUnplugged:
            raise
        except AcceptorFault:
            self.line.close()
            raise

    def _omnibus(self, command: ebds.Command) -> ebds.Status:
        """One omnibus command and its reply; asked again, with the same ACK/NAK bit, when the
        reply does not come or carries the other bit."""
        message = command.message(self._ack)
        for _ in range(self.retries + 1):
            self._reader = ebds.MessageReader()
            self.line.send(message)
            reply = self._read_reply()
            if reply is None or reply.kind != ebds.OMNIBUS_REPLY or reply.ack != self._ack:
                continue
            self._ack ^= ebds.ACK_BIT
            try:
                return ebds.Status.parse(reply.data)
            except ebds.EbdsError as exc:
                raise AcceptorFault(f"the bill acceptor's reply: {exc}") from None
        raise AcceptorFault(f"the bill acceptor on {self.port_name} does not answer")

    def _read_reply(self) -> ebds.Message | None:
        deadline = time.monotonic() + self.reply_timeout
        while time.monotonic() < deadline:
            for message in self._reader.feed(self.line.read(64)):
                return message
        return None


def from_spec(options: str, station_dir: Path) -> EbdsAcceptor:
    """`PORT[@BAUD]`: a device path (or a pyserial URL) with an optional baud rate."""
    port, baud = parse_port(options, "ebds", DEFAULT_BAUD)
    return EbdsAcceptor(port, baudrate=baud)
