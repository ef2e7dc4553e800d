"""A JCM bill validator that speaks ID-003 on the far end of a serial line (a pseudo-terminal in
the tests): the protocol-level simulator the ID-003 driver is tested against, bytes and all.

At power-up it says POWER UP until the host sends RESET (then INITIALIZE once). It answers
STATUS REQUEST with its status, an operation command (RESET, STACK-1/2, RETURN, HOLD) with ACK
(INVALID COMMAND where it makes no sense), a setting command with its echo, GET CURRENCY ASSIGN
with its escrow codes, and a frame whose CRC fails with COMMUNICATION ERROR. The host's ACK of
VEND VALID has no answer. A bill fed is ACCEPTING, then ESCROW with its code until STACK-1
(STACKING, VEND VALID until the host's ACK, STACKED) or RETURN (RETURNING). An inhibited
validator refuses bills (REJECTING, reason 0x79). The failures of hardware.acceptor.pty_device.
BillDevice: a jam (JAM IN STACKER until cleared); power lost on STACK-1 (silent for `off_for`
seconds, then POWER UP WITH BILL IN ACCEPTOR, "front": RESET gives it back, or IN STACKER,
"cashbox": RESET stacks it); the cash box removed (STACKER OPEN) or full (STACKER FULL); a fraud
attempt (CHEATED, the bill given back); a failure (FAILURE 0xA2, stack motor).
"""

from __future__ import annotations

from pathlib import Path

from hardware.acceptor import id003
from hardware.acceptor.pty_device import BillDevice

REJECT_INHIBIT = 0x79
FAILURE_STACK_MOTOR = 0xA2


class Id003Device(BillDevice):
    name = "id003"

    def __init__(
        self,
        fd: int | None = None,
        *,
        link: Path | None = None,
        denominations: dict[int, int] | None = None,
        off_for: float = 0.8,
    ) -> None:
        self.denominations = dict(denominations or id003.USD_ESCROW_CODES)  # code -> cents
        self._reader = id003.FrameReader()
        self.state = "power-up"  # "power-up", "initialize", "running"
        self.power_bill = ""  # at power-up: "acceptor" or "stacker" holds the bill inside
        self.inhibit = 1
        self.settings: dict[int, bytes] = {}
        self.stage = ""  # "accepting", "escrow", "stacking", "vend", "stacked", "returning",
        #                  "jammed", "cheated"
        super().__init__(fd, link=link, off_for=off_for)

    def knows(self, cents: int) -> bool:
        return cents in self.denominations.values()

    def code(self, cents: int) -> int:
        return next(code for code, value in self.denominations.items() if value == cents)

    def powered_up(self) -> None:
        self.state, self.stage, self.inhibit = "power-up", "", 1

    def jammed_cleared(self) -> None:
        if self.stage == "jammed":
            self.stage = ""

    # -- the line ---------------------------------------------------------------------------

    def receive(self, chunk: bytes) -> list[bytes]:
        if not self.powered:
            self._reader = id003.FrameReader()  # powered off: the bytes are lost
            return []
        dropped = self._reader.dropped
        replies = []
        for frame in self._reader.feed(chunk):
            reply = self._answer(frame)
            if reply is not None and self.powered:
                replies.append(reply)
        if self._reader.dropped > dropped and not replies:
            replies.append(id003.encode(id003.COMMUNICATION_ERROR))
        return replies

    def _answer(self, frame: id003.Frame) -> bytes | None:
        command, data = frame.command, frame.data
        self.commands.append(command)
        ack, invalid = id003.encode(id003.ACK), id003.encode(id003.INVALID_COMMAND)
        if command == id003.ACK:  # the host took VEND VALID: the bill is stacked
            if self.stage == "vend":
                self.cash_box.append(self.take())
                self.stage = "stacked"
            return None
        if command == id003.STATUS_REQUEST:
            return id003.encode(*self._status())
        if command == id003.RESET:
            self._reset()
            return ack
        if command in id003.SETTINGS:
            self.settings[command] = data
            if command == id003.SET_INHIBIT and data:
                self.inhibit = data[0] & 1
                self.started = self.started or not self.inhibit
            return id003.encode(command, data)
        if command == id003.GET_CURRENCY_ASSIGN:
            return id003.encode(command, id003.currency_assign(self.denominations))
        if command == id003.GET_VERSION:
            return id003.encode(command, b"Booth ID-003 simulator")
        if self.state != "running" or self.stage != "escrow":
            return invalid
        if command in (id003.STACK_1, id003.STACK_2):
            if self.power_loss_next is not None:
                where, self.power_loss_next = self.power_loss_next, None
                self.state, self.stage = "power-up", ""
                self.power_bill = "acceptor" if where == "front" else "stacker"
                self.power_off()
                return None
            self.stage = "stacking"
            return ack
        if command == id003.RETURN:
            self.stage = "returning"
            return ack
        if command == id003.HOLD:
            return ack
        return invalid

    def _reset(self) -> None:
        """RESET: a bill held comes out of the front, or goes on into the cash box."""
        if self.inside is not None:
            if self.power_bill == "stacker":
                self.cash_box.append(self.take())
            else:
                self.given_back.append(self.take())
        self.state, self.stage, self.power_bill, self.inhibit = "initialize", "", "", 1

    def _status(self) -> tuple[int, bytes]:
        if self.state == "power-up":
            return {
                "acceptor": id003.POWER_UP_BILL_IN_ACCEPTOR,
                "stacker": id003.POWER_UP_BILL_IN_STACKER,
            }.get(self.power_bill, id003.POWER_UP), b""
        if self.state == "initialize":
            self.state = "running"
            return id003.INITIALIZE, b""
        if self.failure:
            return id003.FAILURE, bytes([FAILURE_STACK_MOTOR])
        if self.stage == "jammed":
            return id003.JAM_IN_STACKER, b""
        moving = self._moving()
        if moving is not None:
            return moving
        if self.cashbox == "removed":
            return id003.STACKER_OPEN, b""
        if self.cashbox == "full":
            return id003.STACKER_FULL, b""
        if self.fed and self.started:  # else the bill waits at the dark mouth
            return self._read(self.fed.pop(0))
        return (id003.DISABLED if self.inhibit else id003.IDLING), b""

    def _moving(self) -> tuple[int, bytes] | None:
        """The status of a bill on its way, or None when none is."""
        stage = self.stage
        if stage in ("accepting", "escrow"):
            self.stage = "escrow"
            assert self.inside is not None
            return id003.ESCROW, bytes([self.code(self.inside)])
        if stage == "stacking":
            if self.jam_next:
                self.jam_next = False
                self.jammed.append(self.take())
                self.stage = "jammed"
                return id003.JAM_IN_STACKER, b""
            self.stage = "vend"
            return id003.STACKING, b""
        if stage == "vend":
            return id003.VEND_VALID, b""  # again and again until the host's ACK
        if stage == "stacked":
            self.stage = ""
            return id003.STACKED, b""
        if stage == "returning":
            self.given_back.append(self.take())
            self.stage = ""
            return id003.RETURNING, b""
        if stage == "cheated":
            self.stage = ""
            return id003.CHEATED, b""
        return None

    def _read(self, cents: int) -> tuple[int, bytes]:
        if self.cheat_next:
            self.cheat_next = False
            self.given_back.append(cents)
            self.stage = "cheated"
            return id003.ACCEPTING, b""
        if self.inhibit:
            self.given_back.append(cents)
            return id003.REJECTING, bytes([REJECT_INHIBIT])
        self.inside, self.stage = cents, "accepting"
        return id003.ACCEPTING, b""
