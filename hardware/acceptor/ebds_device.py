"""An MEI/CPI bill acceptor that speaks EBDS on the far end of a serial line (a pseudo-terminal
in the tests): the protocol-level simulator the EBDS driver is tested against, bytes and all.

It answers each omnibus command with an omnibus reply carrying the command's ACK/NAK bit; a
command that repeats the last bit gets the last reply again and is not acted on. The first
reply after power-up says POWER UP. A bill fed is ACCEPTING, then ESCROWED with its value index
until a command says STACK (STACKING, then the STACKED event with the value) or RETURN
(RETURNING, then RETURNED). A command taking no denomination disables it: a bill fed is
REJECTED. Auxiliary and extended messages are answered INVALID COMMAND. The failures of
hardware.acceptor.pty_device.BillDevice: a jam (JAMMED until cleared); power lost on STACK
(silent for `off_for` seconds; under policy A the bill comes back, RETURNED, "front", or is
stacked without a value, STACKED, "cashbox", both with POWER UP); the cash box removed
(CASSETTE ATTACHED clear) or full (STACKER FULL); a fraud attempt (CHEATED, the bill given back);
a failure (FAILURE).
"""

from __future__ import annotations

from pathlib import Path

from hardware.acceptor import ebds
from hardware.acceptor.pty_device import BillDevice


class EbdsDevice(BillDevice):
    name = "ebds"

    def __init__(
        self,
        fd: int | None = None,
        *,
        link: Path | None = None,
        notes: dict[int, int] | None = None,
        off_for: float = 0.8,
    ) -> None:
        self.notes = dict(notes or ebds.USD_NOTES)  # value index -> cents
        self._reader = ebds.MessageReader()
        self.stage = ""  # "accepting", "escrow", "stacking", "returning", "jammed"
        self.denominations = 0
        self.policy = ebds.POLICY_A
        self.last_ack: int | None = None
        self.last_reply = b""
        self.just_powered = True
        self.power_fate = ""  # at power-up: "front" (given back) or "cashbox" (stacked)
        super().__init__(fd, link=link, off_for=off_for)

    def knows(self, cents: int) -> bool:
        return cents in self.notes.values()

    def index(self, cents: int) -> int:
        return next(index for index, value in self.notes.items() if value == cents)

    def powered_up(self) -> None:
        self.stage, self.just_powered, self.last_ack, self.denominations = "", True, None, 0

    def jammed_cleared(self) -> None:
        if self.stage == "jammed":
            self.stage = ""

    # -- the line ---------------------------------------------------------------------------

    def receive(self, chunk: bytes) -> list[bytes]:
        if not self.powered:
            self._reader = ebds.MessageReader()
            return []
        replies = []
        for message in self._reader.feed(chunk):
            reply = self._answer(message)
            if reply is not None:
                replies.append(reply)
        return replies

    def _answer(self, message: ebds.Message) -> bytes | None:
        if message.kind != ebds.OMNIBUS_COMMAND:
            self.commands.append(message.kind)
            return ebds.Status(invalid_command=True).message(message.ack)
        if message.ack == self.last_ack and self.last_reply:
            return self.last_reply  # a repeat: the host did not hear the reply
        try:
            command = ebds.Command.parse(message.data)
        except ebds.EbdsError:
            return ebds.Status(invalid_command=True).message(message.ack)
        self.commands.append(message.data[1])
        status = self._step(command)
        if status is None:
            return None  # the power went
        reply = status.message(message.ack)
        self.last_ack, self.last_reply = message.ack, reply
        return reply

    def _step(self, command: ebds.Command) -> ebds.Status | None:
        flags: dict[str, object] = {}
        if self.just_powered:  # it answers its power-up, and takes no order with it
            self.just_powered = False
            flags.update(power_up=True, **self._power_fate())
        elif self.stage == "escrow" and command.stack and self.power_loss_next is not None:
            self.power_fate, self.power_loss_next = self.power_loss_next, None
            self.stage, self.just_powered, self.last_ack = "", True, None
            self.denominations = 0
            self.power_off()
            return None
        else:
            self.denominations, self.policy = command.denominations, command.policy
            self.started = self.started or bool(command.denominations)
            flags.update(self._bill(command))
        return ebds.Status(
            cassette_attached=self.cashbox != "removed",
            stacker_full=self.cashbox == "full",
            failure=self.failure,
            jammed=self.stage == "jammed",
            disabled=not self.denominations,
            **flags,  # type: ignore[arg-type]
        )

    def _power_fate(self) -> dict[str, object]:
        """Policy A at power-up: a bill in escrow comes back; one past escrow is stacked, and
        its value is not reported."""
        fate, self.power_fate = self.power_fate, ""
        if self.inside is None or not fate:
            return {"idling": True}
        if fate == "front":
            self.given_back.append(self.take())
            return {"returned": True}
        self.cash_box.append(self.take())
        return {"stacked": True}

    def _bill(self, command: ebds.Command) -> dict[str, object]:
        stage = self.stage
        if stage == "escrow":
            assert self.inside is not None
            note = self.index(self.inside)
            if command.stack and self.jam_next:
                self.jam_next = False
                self.jammed.append(self.take())
                self.stage = "jammed"
                return {}
            if command.stack:
                self.stage = "stacking"
                return {"stacking": True}
            if command.give_back:
                self.stage = "returning"
                return {"returning": True}
            return {"escrowed": True, "note": note}
        if stage == "stacking":
            cents = self.take()
            self.cash_box.append(cents)
            self.stage = ""
            return {"stacked": True, "idling": True, "note": self.index(cents)}
        if stage == "returning":
            self.given_back.append(self.take())
            self.stage = ""
            return {"returned": True, "idling": True}
        if stage == "accepting":
            assert self.inside is not None
            self.stage = "escrow"
            return {"escrowed": True, "note": self.index(self.inside)}
        if stage == "jammed":
            return {}
        if self.fed and self.cashbox == "in" and not self.failure and self.started:
            return self._read(self.fed.pop(0))
        return {"idling": bool(self.denominations)}

    def _read(self, cents: int) -> dict[str, object]:
        note = self.index(cents)
        if self.cheat_next:
            self.cheat_next = False
            self.given_back.append(cents)
            return {"cheated": True, "idling": True}
        if not self.denominations & (1 << (note - 1)):
            self.given_back.append(cents)
            return {"rejected": True}
        self.inside, self.stage = cents, "accepting"
        return {"accepting": True}
