"""A bill validator that speaks SSP on the far end of a serial line (a pseudo-terminal in the
tests): the protocol-level simulator the SSP driver is tested against, bytes and all.

It answers SYNC, HOST PROTOCOL, SETUP REQUEST, SET INHIBITS, ENABLE, DISABLE, POLL, HOLD and
REJECT as a validator does: a bill fed (`feed`) is reported READ 0 then READ with its channel
and waits in escrow while the host sends HOLD; a POLL accepts it (STACKING, then CREDIT and
STACKED), a REJECT gives it back (REJECTING, then REJECTED). Failures on demand:

- `jam_next`: the next bill accepted jams in escrow (SAFE JAM);
- `power_loss_next`: power is lost while the next bill is in escrow ("front": at power-up the
  bill is pushed back out, NOTE CLEARED FROM FRONT; "cashbox": it is pulled in, NOTE CLEARED
  INTO CASHBOX). The line is silent for `off_for` seconds, then the first POLL says SLAVE RESET.
"""

from __future__ import annotations

import os
import select
import threading
import time

from hardware.acceptor import ssp


class SspDevice:
    def __init__(
        self,
        fd: int,
        *,
        channel_values: tuple[int, ...] = (1, 5, 10, 20, 50, 100),
        multiplier: int = 100,
        address: int = 0,
        off_for: float = 0.8,
    ) -> None:
        self.fd = fd
        self.channel_values = channel_values
        self.multiplier = multiplier
        self.address = address
        self.off_for = off_for
        self.jam_next = False
        self.power_loss_next: str | None = None
        self.commands: list[int] = []  # every command executed, in order (tests read it)
        self.cash_box: list[int] = []  # cents
        self.given_back: list[int] = []
        self._reader = ssp.PacketReader()
        self._fed: list[int] = []  # channels
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ssp-device", daemon=True)
        self._power_up()

    def _power_up(self) -> None:
        self.enabled = False
        self.inhibits = 0
        self.escrow: int | None = None  # channel
        self.reading: int | None = None
        self.stage: str = ""  # "stacking", "rejecting", "reading"
        self.events: list[int | tuple[int, int]] = [ssp.SLAVE_RESET]
        self.last_seq: int | None = None
        self.last_reply = b""
        self.off_until = 0.0

    # -- test controls ----------------------------------------------------------------------

    def start(self) -> SspDevice:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def feed(self, cents: int) -> None:
        channel = self.channel_values.index(cents // self.multiplier) + 1
        with self._lock:
            self._fed.append(channel)

    def value(self, channel: int) -> int:
        return self.channel_values[channel - 1] * self.multiplier

    # -- the line ---------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 256)
            except OSError:
                return
            with self._lock:
                if time.monotonic() < self.off_until:
                    self._reader = ssp.PacketReader()  # powered off: the bytes are lost
                    continue
                for packet in self._reader.feed(chunk):
                    if packet.address != self.address:
                        continue
                    reply = self._answer(packet)
                    if reply is not None:
                        os.write(self.fd, ssp.encode(packet.seq_id, reply))

    def _answer(self, packet: ssp.Packet) -> bytes | None:
        command = packet.data[0]
        if command != ssp.SYNC and packet.seq == self.last_seq:
            return self.last_reply  # the host did not hear the reply: the same again
        reply = self._execute(command, packet.data[1:])
        if time.monotonic() < self.off_until:
            return None  # the power went in the middle of it
        self.last_seq = ssp.SEQ if command == ssp.SYNC else packet.seq
        if command == ssp.SYNC:
            self.last_seq = ssp.SEQ
        self.last_reply = reply
        return reply

    def _execute(self, command: int, args: bytes) -> bytes:
        self.commands.append(command)
        ok = bytes([ssp.OK])
        if command == ssp.SYNC:
            return ok
        if command == ssp.HOST_PROTOCOL:
            return ok if args and args[0] <= 8 else bytes([ssp.FAIL])
        if command == ssp.SETUP_REQUEST:
            return ssp.setup_reply(self.channel_values, multiplier=self.multiplier)
        if command == ssp.SET_INHIBITS:
            if not args:
                return bytes([ssp.WRONG_PARAMETERS])
            self.inhibits = int.from_bytes(args, "little")
            return ok
        if command == ssp.ENABLE:
            self.enabled = True
            return ok
        if command == ssp.DISABLE:
            self.enabled = False
            return ok
        if command == ssp.HOLD:
            return ok if self.escrow is not None else bytes([ssp.CANNOT_PROCESS])
        if command == ssp.REJECT:
            if self.escrow is None:
                return bytes([ssp.CANNOT_PROCESS])
            self.stage = "rejecting"
            return ok
        if command == ssp.POLL:
            return ok + self._poll()
        return bytes([ssp.UNKNOWN_COMMAND])

    def _poll(self) -> bytes:
        out: list[int | tuple[int, int]] = self.events
        self.events = []
        if self.stage == "rejecting" and self.escrow is not None:
            self.given_back.append(self.value(self.escrow))
            self.escrow, self.stage = None, ""
            out += [ssp.REJECTING]
            self.events = [ssp.REJECTED]
        elif self.escrow is not None and self.stage == "escrow":
            # POLL with a bill in escrow: the host accepts it
            channel = self.escrow
            if self.power_loss_next is not None:
                where, self.power_loss_next = self.power_loss_next, None
                self._lose_power(channel, where)
                return b""
            if self.jam_next:
                self.jam_next = False
                self.escrow, self.stage = None, "jammed"
                out += [ssp.SAFE_JAM]
            else:
                self.stage = "stacking"
                out += [ssp.STACKING]
        elif self.stage == "stacking" and self.escrow is not None:
            channel, self.escrow, self.stage = self.escrow, None, ""
            self.cash_box.append(self.value(channel))
            out += [(ssp.CREDIT, channel), ssp.STACKED]
        elif self.stage == "jammed":
            out += [ssp.SAFE_JAM]
        elif self.stage == "reading" and self.reading is not None:
            self.escrow, self.reading, self.stage = self.reading, None, "escrow"
            out += [(ssp.READ, self.escrow)]
        elif self._fed and self.escrow is None:
            channel = self._fed.pop(0)
            if not self.enabled or not self.inhibits & (1 << (channel - 1)):
                self.given_back.append(self.value(channel))
                out += [ssp.REJECTING]
                self.events = [ssp.REJECTED]
            else:
                self.reading, self.stage = channel, "reading"
                out += [(ssp.READ, 0)]
        elif not self.enabled:
            out += [ssp.DISABLED]
        encoded = bytearray()
        for item in out:
            encoded += bytes(item) if isinstance(item, tuple) else bytes([item])
        return bytes(encoded)

    def _lose_power(self, channel: int, where: str) -> None:
        """Silent for `off_for` s; then a fresh start that reports the bill it held."""
        self._power_up()
        self.off_until = time.monotonic() + self.off_for
        if where == "front":
            self.given_back.append(self.value(channel))
            self.events = [ssp.SLAVE_RESET, (ssp.CLEARED_FROM_FRONT, channel)]
        else:
            self.cash_box.append(self.value(channel))
            self.events = [ssp.SLAVE_RESET, (ssp.CLEARED_INTO_CASHBOX, channel)]
