"""A bill validator that speaks SSP on the far end of a serial line (a pseudo-terminal in the
tests): the protocol-level simulator the SSP driver is tested against, bytes and all.

It answers SYNC, HOST PROTOCOL, SETUP REQUEST (a protocol 6 reply: each channel's country and
4-byte value after the legacy fields), SET INHIBITS, ENABLE, DISABLE, POLL, HOLD and REJECT as a
validator does: a bill fed is reported READ 0 then READ with its channel and waits in escrow
while the host sends HOLD; a POLL accepts it (STACKING, then CREDIT and STACKED), a REJECT gives
it back (REJECTING, then REJECTED). The failures of hardware.acceptor.pty_device.BillDevice:

- a jam: SAFE JAM at every poll until cleared;
- power lost with a bill in escrow: the line is silent for `off_for` seconds, then the first
  POLL says SLAVE RESET with NOTE CLEARED FROM FRONT ("front") or INTO CASHBOX ("cashbox"),
  or (`clears_after` polls) a later POLL says it: a validator that takes a while to say where
  the bill it held went; powered up, it is disabled until the host enables it again;
- the cash box removed (CASHBOX REMOVED at every poll, CASHBOX REPLACED once back) or full
  (STACKER FULL); a fraud attempt (FRAUD ATTEMPT, the bill given back); a failure (every poll
  answered FAIL).
"""

from __future__ import annotations

from pathlib import Path

from hardware.acceptor import ssp
from hardware.acceptor.pty_device import BillDevice

Event = int | tuple[int, int]


class SspDevice(BillDevice):
    name = "ssp"

    def __init__(
        self,
        fd: int | None = None,
        *,
        link: Path | None = None,
        channel_values: tuple[int, ...] = (1, 5, 10, 20, 50, 100),
        multiplier: int = 100,
        address: int = 0,
        off_for: float = 0.8,
        protocol: int = 6,
        clears_after: int = 0,
    ) -> None:
        self.channel_values = channel_values
        self.clears_after = clears_after
        self.multiplier = multiplier
        self.address = address
        self.protocol = protocol
        self._reader = ssp.PacketReader()
        self._box_out = False
        super().__init__(fd, link=link, off_for=off_for)
        self._power_up()

    def _power_up(self) -> None:
        self.enabled = False
        self.inhibits = 0
        self.escrow: int | None = None  # channel
        self.reading: int | None = None
        self.stage: str = ""  # "reading", "escrow", "stacking", "rejecting", "jammed"
        self.events: list[Event] = [ssp.SLAVE_RESET]
        self.clearing: tuple[Event, int] | None = None  # where the bill held went; polls left
        self.last_seq: int | None = None
        self.last_reply = b""

    def knows(self, cents: int) -> bool:
        return cents % self.multiplier == 0 and cents // self.multiplier in self.channel_values

    def channel(self, cents: int) -> int:
        return self.channel_values.index(cents // self.multiplier) + 1

    def value(self, channel: int) -> int:
        return self.channel_values[channel - 1] * self.multiplier

    def powered_up(self) -> None:
        self._power_up()

    def jammed_cleared(self) -> None:
        if self.stage == "jammed":
            self.stage = ""

    # -- the line ---------------------------------------------------------------------------

    def receive(self, chunk: bytes) -> list[bytes]:
        if not self.powered:
            self._reader = ssp.PacketReader()  # powered off: the bytes are lost
            return []
        replies = []
        for packet in self._reader.feed(chunk):
            if packet.address != self.address:
                continue
            reply = self._answer(packet)
            if reply is not None:
                replies.append(ssp.encode(packet.seq_id, reply))
        return replies

    def _answer(self, packet: ssp.Packet) -> bytes | None:
        command = packet.data[0]
        if command != ssp.SYNC and packet.seq == self.last_seq:
            return self.last_reply  # the host did not hear the reply: the same again
        reply = self._execute(command, packet.data[1:])
        if not self.powered:
            return None  # the power went in the middle of it
        self.last_seq = ssp.SEQ if command == ssp.SYNC else packet.seq
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
            return ssp.setup_reply(
                self.channel_values, multiplier=self.multiplier, protocol=self.protocol
            )
        if command == ssp.SET_INHIBITS:
            if not args:
                return bytes([ssp.WRONG_PARAMETERS])
            self.inhibits = int.from_bytes(args, "little")
            return ok
        if command == ssp.ENABLE:
            self.enabled = self.started = True
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
            if self.failure:
                return bytes([ssp.FAIL])
            return ok + self._poll()
        return bytes([ssp.UNKNOWN_COMMAND])

    def _poll(self) -> bytes:
        out: list[Event] = self.events
        self.events = []
        if self.clearing is not None:
            cleared, left = self.clearing
            self.clearing = None if left <= 0 else (cleared, left - 1)
            out += [cleared] if left <= 0 else []
        if self.cashbox == "removed":
            self._box_out = True
            out.append(ssp.CASHBOX_REMOVED)
        elif self._box_out:
            self._box_out = False
            out.append(ssp.CASHBOX_REPLACED)
        if self.cashbox == "full":
            out.append(ssp.STACKER_FULL)
        if self.stage == "rejecting" and self.escrow is not None:
            self.given_back.append(self.take())
            self.escrow, self.stage = None, ""
            out += [ssp.REJECTING]
            self.events = [ssp.REJECTED]
        elif self.escrow is not None and self.stage == "escrow":
            out += self._accept(self.escrow)
        elif self.stage == "stacking" and self.escrow is not None:
            channel, self.escrow, self.stage = self.escrow, None, ""
            self.cash_box.append(self.take())
            out += [(ssp.CREDIT, channel), ssp.STACKED]
        elif self.stage == "jammed":
            out += [ssp.SAFE_JAM]
        elif self.stage == "reading" and self.reading is not None:
            self.escrow, self.reading, self.stage = self.reading, None, "escrow"
            out += [(ssp.READ, self.escrow)]
        elif self.fed and self.escrow is None and self.cashbox == "in" and self.started:
            out += self._read(self.fed.pop(0))
        elif not self.enabled:
            out += [ssp.DISABLED]
        return _encoded(out)

    def _read(self, cents: int) -> list[Event]:
        channel = self.channel(cents)
        if self.cheat_next:
            self.cheat_next = False
            self.given_back.append(cents)
            self.events = [ssp.REJECTED]
            return [(ssp.FRAUD_ATTEMPT, channel), ssp.REJECTING]
        if not self.enabled or not self.inhibits & (1 << (channel - 1)):
            self.given_back.append(cents)
            self.events = [ssp.REJECTED]
            return [ssp.REJECTING]
        self.inside = cents
        self.reading, self.stage = channel, "reading"
        return [(ssp.READ, 0)]

    def _accept(self, channel: int) -> list[Event]:
        """POLL with a bill in escrow: the host accepts it."""
        if self.power_loss_next is not None:
            where, self.power_loss_next = self.power_loss_next, None
            self._lose_power(channel, where)
            return []
        if self.jam_next:
            self.jam_next = False
            self.jammed.append(self.take())
            self.escrow, self.stage = None, "jammed"
            return [ssp.SAFE_JAM]
        self.stage = "stacking"
        return [ssp.STACKING]

    def _lose_power(self, channel: int, where: str) -> None:
        """Silent for `off_for` s; then a fresh start that reports the bill it held."""
        cents = self.take()
        self._power_up()
        self.power_off()
        if where == "front":
            self.given_back.append(cents)
            self.clearing = ((ssp.CLEARED_FROM_FRONT, channel), self.clears_after)
        else:
            self.cash_box.append(cents)
            self.clearing = ((ssp.CLEARED_INTO_CASHBOX, channel), self.clears_after)


def _encoded(events: list[Event]) -> bytes:
    encoded = bytearray()
    for item in events:
        encoded += bytes(item) if isinstance(item, tuple) else bytes([item])
    return bytes(encoded)
