"""Issue #32: a bill acceptor driver and its protocol-level simulator on the two ends of a
pseudo-terminal, for each protocol Booth speaks (SSP, ID-003, EBDS), so that one set of tests
holds every driver to the same contract. The pty is named by a symlink, as udev names a USB
serial adapter, so that a test can pull the line and plug it back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import serial

from hardware.acceptor.ebds_device import EbdsDevice
from hardware.acceptor.ebds_driver import EbdsAcceptor
from hardware.acceptor.id003_device import Id003Device
from hardware.acceptor.id003_driver import Id003Acceptor
from hardware.acceptor.pty_device import BillDevice
from hardware.acceptor.ssp_device import SspDevice
from hardware.acceptor.ssp_driver import SspAcceptor
from pos.services.ports import AcceptorFault, BillEvent

PROTOCOLS = ("ssp", "id003", "ebds")
Driver = SspAcceptor | Id003Acceptor | EbdsAcceptor


@dataclass
class Rig:
    protocol: str
    device: BillDevice
    acceptor: Driver

    def close(self) -> None:
        self.acceptor.close()
        self.device.stop()


def make_device(protocol: str, link: Path, *, off_for: float = 0.5) -> BillDevice:
    if protocol == "ssp":  # a US dataset: $1, $2, $5, $10, $20, $50, $100
        return SspDevice(link=link, off_for=off_for, channel_values=(1, 2, 5, 10, 20, 50, 100))
    if protocol == "id003":
        return Id003Device(link=link, off_for=off_for)
    return EbdsDevice(link=link, off_for=off_for)


def make_driver(
    protocol: str, port: str, opener: Callable[..., Any] = serial.serial_for_url
) -> Driver:
    if protocol == "ssp":
        return SspAcceptor(port, opener=opener, reply_timeout=0.5, poll_interval=0.01)
    if protocol == "id003":
        return Id003Acceptor(port, opener=opener, reply_timeout=0.5, poll_interval=0.01)
    return EbdsAcceptor(port, opener=opener, reply_timeout=0.5, poll_interval=0.01)


def rig(protocol: str, directory: Path, **options: Any) -> Rig:
    device = make_device(protocol, directory / f"{protocol}-tty").start()
    return Rig(protocol, device, make_driver(protocol, device.port, **options))


def escrow(rig: Rig, cents: int, polls: int = 20) -> BillEvent:
    """Feed a bill and poll until the driver reports it in escrow."""
    rig.device.feed(cents)
    for _ in range(polls):
        for event in rig.acceptor.poll():
            if event.kind == "escrow":
                return event
    raise AssertionError(f"the {rig.protocol} bill never reached escrow")


def said(rig: Rig, polls: int = 10) -> list[str]:
    """What `polls` polls say: each event's kind, or each fault's words."""
    out: list[str] = []
    for _ in range(polls):
        try:
            out += [event.kind for event in rig.acceptor.poll()]
        except AcceptorFault as fault:
            out.append(f"fault: {fault}")
    return out


def until_fault(rig: Rig, polls: int = 10) -> AcceptorFault | None:
    """Poll until the driver raises (None if it never does)."""
    for _ in range(polls):
        try:
            rig.acceptor.poll()
        except AcceptorFault as fault:
            return fault
    return None


def until_answers(rig: Rig, polls: int = 10) -> list[BillEvent]:
    """Poll until a poll returns without a fault; what that poll said."""
    for _ in range(polls):
        try:
            return rig.acceptor.poll()
        except AcceptorFault:
            continue
    raise AssertionError(f"the {rig.protocol} acceptor kept failing")
