"""A device simulated on the master side of a pseudo-terminal, for the acceptor drivers' tests:
the driver opens the slave side as it would /dev/ttyUSB0 and speaks the protocol's bytes.

The line can be pulled and plugged back like a USB cable: `pull()` closes the pty (the driver's
next read or write fails with EIO) and removes the device's name; `plug()` makes a new pty
under the same name (`link`, a symlink, as udev names a USB serial adapter). The device keeps
its state across (its bills, its cash box): it did not lose power, only its line.

Subclasses answer bytes with bytes (`receive`); `tick` runs about every 20 ms for what happens
on the device's own time (power coming back).
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path


class PtyDevice:
    name = "device"

    def __init__(self, fd: int | None = None, *, link: Path | None = None) -> None:
        """`fd`: the master side of a pty the caller owns; or none, and the device makes its
        own (named `link` when given, so that it can be pulled and plugged back)."""
        self.link = link
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)  # notified when the device's state moves
        self.plugs = 0
        self._owned = fd is None
        self._master: int | None = fd
        self._slave: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-sim", daemon=True)
        if fd is None:
            self.plug()

    # -- the line ---------------------------------------------------------------------------

    @property
    def port(self) -> str:
        """What the driver opens: the link, or the slave's device name."""
        if self.link is not None:
            return str(self.link)
        assert self._slave is not None, "no pty of our own"
        return os.ttyname(self._slave)

    def plug(self) -> None:
        """A new pty under the same name: the line is back."""
        with self.lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            tty.setraw(master)
            tty.setraw(slave)
            self._master, self._slave = master, slave
            if self.link is not None:
                with contextlib.suppress(FileNotFoundError):
                    self.link.unlink()
                self.link.symlink_to(os.ttyname(slave))
            self.plugs += 1
            self.changed.notify_all()

    def pull(self) -> None:
        """The line is gone: the pty closes under the driver and its name disappears."""
        with self.lock:
            master, slave = self._master, self._slave
            self._master = self._slave = None
            if self.link is not None:
                with contextlib.suppress(FileNotFoundError):
                    self.link.unlink()
            for fd in (master, slave):
                if fd is not None:
                    os.close(fd)
            self.changed.notify_all()

    def send(self, data: bytes) -> bool:
        """Bytes from the device, unasked (a scanner's scan); False when the line is pulled."""
        with self.lock:
            if self._master is None:
                return False
            os.write(self._master, data)
            return True

    # -- lifetime ---------------------------------------------------------------------------

    def start(self) -> PtyDevice:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        if self._owned:
            self.pull()

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                fd = self._master
                self.tick()
            if fd is None:
                self._stop.wait(0.02)
                continue
            try:
                ready, _, _ = select.select([fd], [], [], 0.02)
                chunk = os.read(fd, 512) if ready else b""
            except (OSError, ValueError):
                chunk = b""  # pulled meanwhile: the next turn sees it
                self._stop.wait(0.02)
            if not chunk:
                continue
            with self.lock:
                if fd != self._master:
                    continue
                replies = self.receive(chunk)
                for reply in replies:
                    with contextlib.suppress(OSError):
                        os.write(fd, reply)
                self.changed.notify_all()

    # -- the protocol (subclasses) ------------------------------------------------------------

    def receive(self, chunk: bytes) -> list[bytes]:
        """Bytes from the host in; the frames to answer with out (under the lock)."""
        raise NotImplementedError

    def tick(self) -> None:
        """The device's own time passing (under the lock)."""


class BillDevice(PtyDevice):
    """What every simulated bill validator keeps, whatever its protocol: the bills fed and not
    yet read, where each bill ended up, and the failures the tests ask for.

    - `feed(cents)`: a player feeds a bill;
    - `jam_next`: the next bill the host stacks jams inside (it stays jammed until
      `clear_jam()`);
    - `power_loss_next`: "front" or "cashbox": the power goes when the host stacks the next bill;
      silent for `off_for` seconds, then at power-up the bill comes back out of the front, or
      is found in the cash box;
    - `cashbox`: "in", "removed" or "full"; `cheat_next`: the next bill fed is a fraud attempt
      (refused, reported); `failure`: the device reports a failure until it is cleared.

    From its power-up until the host first enables it, a validator is starting (`started`
    false): its mouth is dark and a bill fed meanwhile waits there, neither taken nor refused,
    until the host enables it. Once started, a validator the host disables refuses bills.
    """

    def __init__(
        self, fd: int | None = None, *, link: Path | None = None, off_for: float = 0.8
    ) -> None:
        self.off_for = off_for
        self.jam_next = False
        self.power_loss_next: str | None = None
        self.cheat_next = False
        self.cashbox = "in"
        self.failure = False
        self.fed: list[int] = []  # cents, not yet taken in
        self.cash_box: list[int] = []
        self.given_back: list[int] = []
        self.jammed: list[int] = []
        self.inside: int | None = None  # cents: the bill between the mouth and the cash box
        self.started = False  # enabled by the host since its power-up: it reads bills fed
        self.commands: list[int] = []  # every command executed, in order (tests read it)
        self.off_until = 0.0
        self._off = False  # powered off, and nobody told yet that the power is back
        super().__init__(fd, link=link)

    # -- test controls ------------------------------------------------------------------------

    def feed(self, cents: int) -> None:
        if not self.knows(int(cents)):
            raise ValueError(f"the {self.name} simulator has no channel for a {cents}-cent bill")
        with self.lock:
            self.fed.append(int(cents))
            self.changed.notify_all()

    def blip(self) -> None:
        """The power goes for `off_for` seconds with no bill inside: it powers up afresh."""
        with self.lock:
            assert self.inside is None, f"a {self.inside}-cent bill is inside"
            self.powered_up()
            self.power_off()
            self.changed.notify_all()

    def clear_jam(self) -> None:
        """Staff open the acceptor and take the jammed bill out (into the cash box)."""
        with self.lock:
            self.jammed_cleared()
            self.changed.notify_all()

    def set_cashbox(self, state: str) -> None:
        if state not in ("in", "removed", "full"):
            raise ValueError(f"cash box {state!r}: in, removed or full")
        with self.lock:
            self.cashbox = state
            self.changed.notify_all()

    @property
    def pending(self) -> int:
        """Bills fed that have not ended up anywhere yet (stacked, given back, jammed)."""
        with self.lock:
            return len(self.fed) + (self.inside is not None)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
        """Until `predicate` holds, woken by each change of the device's state."""
        with self.changed:
            return self.changed.wait_for(predicate, timeout)

    @property
    def powered(self) -> bool:
        return time.monotonic() >= self.off_until

    def tick(self) -> None:
        if self._off and self.powered:  # the power is back: whoever waits for it hears so
            self._off = False
            self.changed.notify_all()

    # -- for subclasses -----------------------------------------------------------------------

    def knows(self, cents: int) -> bool:
        """Whether this validator's currency has such a bill."""
        return True

    def jammed_cleared(self) -> None:
        """The protocol's side of clearing a jam (under the lock)."""

    def powered_up(self) -> None:
        """The protocol's state as at power-up (under the lock)."""

    def take(self) -> int:
        """The bill inside leaves the device's path (under the lock)."""
        cents, self.inside = self.inside, None
        assert cents is not None, "no bill inside"
        return cents

    def power_off(self) -> None:
        self.off_until = time.monotonic() + self.off_for
        self._off, self.started = True, False
