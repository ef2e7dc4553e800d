"""A USB HID barcode scanner read directly through pyusb.

The scanner is found by vendor and product id; on its HID boot-keyboard interface the kernel's
keyboard driver is detached (or claiming fails with "Resource busy", pyusb #76), the interface is
claimed, switched to the boot protocol, and its interrupt IN endpoint is read in a loop. Reports
are decoded by `HidDecoder`. On stop the interface is released and the kernel driver re-attached.

Unplugging is reported through `on_error` (with any scan in progress, which is discarded) and the
device is looked for again with a growing delay until it is back.
"""

from __future__ import annotations

import errno
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import usb.core
import usb.util

from hardware.scanner.base import (
    BadReport,
    BadScannerSpec,
    PartialScan,
    ReconnectingScanner,
    ScannerError,
    ScannerNotFound,
    ScannerUnavailable,
    ScannerUnplugged,
)
from hardware.scanner.hid import REPORT_LENGTH, HidDecoder

logger = logging.getLogger(__name__)

HID_CLASS = 3
KEYBOARD_PROTOCOL = 1
# HID class requests (Device Class Definition for HID 1.11, 7.2).
HID_SET_IDLE = 0x0A
HID_SET_PROTOCOL = 0x0B
BOOT_PROTOCOL = 0
HOST_TO_INTERFACE_CLASS = 0x21

# errno values that mean the device is gone (libusb NO_DEVICE, IO, NOT_FOUND; ESHUTDOWN usbfs).
GONE_ERRNOS = {errno.ENODEV, errno.EIO, errno.ENOENT, errno.ESHUTDOWN}

UDEV_HINT = "(is packaging/udev/60-booth-hardware.rules installed and the user in group booth?)"


@dataclass
class _Session:
    device: Any  # usb.core.Device
    interface: int
    endpoint: int
    packet_size: int
    detached: bool


class UsbHidScanner(ReconnectingScanner[_Session]):
    """A HID boot-keyboard barcode scanner at `vendor_id:product_id`.

    `backend` is a pyusb backend (default: whatever pyusb finds, normally libusb 1.0);
    `interface` the bInterfaceNumber to use when the automatic choice (class HID, keyboard boot
    protocol) is wrong. The timings are in seconds; `scan_timeout` is how long a scan may pause
    between two keys before its beginning is reported as partial and discarded.
    """

    kind = "usb"

    def __init__(
        self,
        vendor_id: int,
        product_id: int,
        *,
        backend: Any = None,
        interface: int | None = None,
        read_timeout: float = 0.1,
        scan_timeout: float = 1.0,
        retry_initial: float = 0.1,
        retry_max: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(retry_initial=retry_initial, retry_max=retry_max)
        for name, value in (("vendor id", vendor_id), ("product id", product_id)):
            if not 0 <= value <= 0xFFFF:
                raise BadScannerSpec(f"USB {name} {value!r} is not a 16-bit number")
        self.vendor_id = vendor_id
        self.product_id = product_id
        self.backend = backend
        self.interface = interface
        self.read_timeout_ms = max(1, round(read_timeout * 1000))
        self.scan_timeout = scan_timeout
        self._clock = clock
        self._decoder = HidDecoder()

    def describe(self) -> str:
        return f"scanner usb:{self.vendor_id:04x}:{self.product_id:04x}"

    def _read(self, session: _Session) -> ScannerError | None:
        """Read reports until stopped (None) or until the device is lost (the error to report)."""
        logger.info("%s: reading interface %d", self.describe(), session.interface)
        decoder = self._decoder
        decoder.reset()
        last_key = self._clock()
        while not self._stopping.is_set():
            try:
                data = session.device.read(
                    session.endpoint, session.packet_size, timeout=self.read_timeout_ms
                )
            except usb.core.USBTimeoutError:
                if decoder.pending and self._clock() - last_key > self.scan_timeout:
                    self._discard(f"no key for {self.scan_timeout:g} s")
                continue
            except usb.core.USBError as exc:
                lost = self._lost(exc)
                self._discard("the scanner was unplugged" if _gone(exc) else f"read failed: {exc}")
                return lost
            last_key = self._clock()
            try:
                scans = decoder.feed(bytes(data))
            except BadReport as exc:
                partial = decoder.reset()
                suffix = f"; partial scan {partial!r} discarded" if partial else ""
                self._report(f"{self.describe()}: {exc}{suffix}")
                continue
            for text in scans:
                self._deliver(text)
        return None

    def _discard(self, why: str) -> None:
        partial = self._decoder.reset()
        if partial:
            self._report(
                PartialScan(f"{self.describe()}: partial scan {partial!r} discarded: {why}")
            )

    def _lost(self, exc: usb.core.USBError) -> ScannerError:
        if _gone(exc):
            return ScannerUnplugged(f"{self.describe()} unplugged ({exc}); waiting for it")
        return ScannerUnplugged(f"{self.describe()} read failed ({exc}); reconnecting")

    # -- opening and closing ------------------------------------------------------------------

    def _open(self) -> _Session:
        try:
            device = usb.core.find(
                idVendor=self.vendor_id, idProduct=self.product_id, backend=self.backend
            )
        except usb.core.NoBackendError as exc:
            raise ScannerUnavailable(
                f"{self.describe()}: no USB backend ({exc}): "
                "install libusb-1.0 (Debian: apt install libusb-1.0-0)"
            ) from exc
        except usb.core.USBError as exc:
            raise ScannerNotFound(f"{self.describe()} cannot be listed: {exc}") from exc
        if device is None:
            raise ScannerNotFound(self._gone_message())
        try:
            return self._claim(device)
        except usb.core.USBError as exc:
            _quietly(usb.util.dispose_resources, device)
            if exc.errno == errno.EACCES:
                raise ScannerUnavailable(f"{self.describe()}: access denied {UDEV_HINT}") from exc
            if exc.errno == errno.EBUSY:
                raise ScannerUnavailable(
                    f"{self.describe()}: interface busy ({exc}): another program holds it"
                ) from exc
            raise ScannerNotFound(f"{self.describe()} could not be opened: {exc}") from exc
        except ScannerError:
            _quietly(usb.util.dispose_resources, device)
            raise

    def _claim(self, device: Any) -> _Session:
        try:
            config = device.get_active_configuration()
        except usb.core.USBError:
            device.set_configuration()  # unconfigured (no kernel driver bound): take the first
            config = device.get_active_configuration()
        interface = self._pick_interface(config)
        number = int(interface.bInterfaceNumber)
        endpoint = usb.util.find_descriptor(
            interface,
            custom_match=lambda e: (
                usb.util.endpoint_direction(e.bEndpointAddress) == usb.util.ENDPOINT_IN
                and usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_INTR
            ),
        )
        if endpoint is None:
            raise ScannerNotFound(
                f"{self.describe()}: interface {number} has no interrupt IN endpoint"
            )
        detached = False
        if _kernel_driver_active(device, number):
            device.detach_kernel_driver(number)
            detached = True
        try:
            usb.util.claim_interface(device, number)
            self._boot_protocol(device, number)
        except BaseException:
            if detached:
                _quietly(device.attach_kernel_driver, number)
            raise
        packet = max(REPORT_LENGTH, int(endpoint.wMaxPacketSize) & 0x7FF)
        return _Session(device, number, int(endpoint.bEndpointAddress), packet, detached)

    def _pick_interface(self, config: Any) -> Any:
        interfaces = [i for i in config if int(i.bAlternateSetting) == 0]
        if self.interface is not None:
            for candidate in interfaces:
                if int(candidate.bInterfaceNumber) == self.interface:
                    return candidate
            numbers = sorted(int(i.bInterfaceNumber) for i in interfaces)
            raise ScannerNotFound(
                f"{self.describe()} has no interface {self.interface} (it has {numbers})"
            )
        for candidate in interfaces:
            if (
                int(candidate.bInterfaceClass) == HID_CLASS
                and int(candidate.bInterfaceProtocol) == KEYBOARD_PROTOCOL
            ):
                return candidate
        found = ", ".join(
            f"{int(i.bInterfaceNumber)} (class {int(i.bInterfaceClass)}, "
            f"protocol {int(i.bInterfaceProtocol)})"
            for i in interfaces
        )
        raise ScannerNotFound(
            f"{self.describe()} has no HID keyboard interface (it has {found}): "
            "set the scanner to USB keyboard mode or name the interface"
        )

    def _boot_protocol(self, device: Any, number: int) -> None:
        """Ask for boot reports and reports on change only; scanners that refuse (STALL) are
        already sending them."""
        for request, value in ((HID_SET_PROTOCOL, BOOT_PROTOCOL), (HID_SET_IDLE, 0)):
            try:
                device.ctrl_transfer(HOST_TO_INTERFACE_CLASS, request, value, number, None)
            except usb.core.USBError as exc:
                if exc.errno == errno.ENODEV:
                    raise
                logger.debug("%s: HID request 0x%02x refused: %s", self.describe(), request, exc)

    def _close(self, session: _Session) -> None:
        device = session.device
        _quietly(usb.util.release_interface, device, session.interface)
        if session.detached:
            _quietly(device.attach_kernel_driver, session.interface)
        _quietly(usb.util.dispose_resources, device)


def _kernel_driver_active(device: Any, number: int) -> bool:
    try:
        return bool(device.is_kernel_driver_active(number))
    except NotImplementedError:  # backends and systems without kernel drivers to detach
        return False
    except usb.core.USBError as exc:
        if _gone(exc):
            raise
        return False


def _gone(exc: usb.core.USBError) -> bool:
    return exc.errno in GONE_ERRNOS


def _quietly(action: Callable[..., object], *args: object) -> None:
    """Undo steps that fail harmlessly when the device is already gone."""
    try:
        action(*args)
    except (usb.core.USBError, NotImplementedError, ValueError) as exc:
        logger.debug("%s%r: %s", getattr(action, "__name__", action), args, exc)


def parse_options(options: str) -> tuple[int, int, int | None]:
    """`VID:PID` or `VID:PID:INTERFACE` (ids in hex, as lsusb shows them)."""
    parts = options.split(":")
    if len(parts) not in (2, 3):
        raise BadScannerSpec(
            f"scanner usb:{options} should be usb:VID:PID (hex, as lsusb shows: usb:0c2e:0b61)"
        )
    ids: list[int] = []
    for name, part in zip(("vendor id", "product id"), parts[:2], strict=False):
        text = part.lower().removeprefix("0x")
        if not 1 <= len(text) <= 4 or any(c not in "0123456789abcdef" for c in text):
            raise BadScannerSpec(f"scanner usb:{options}: {name} {part!r} is not 1-4 hex digits")
        ids.append(int(text, 16))
    interface: int | None = None
    if len(parts) == 3:
        if not parts[2].isdigit() or not 0 <= int(parts[2]) <= 255:
            raise BadScannerSpec(
                f"scanner usb:{options}: interface {parts[2]!r} is not a number 0-255"
            )
        interface = int(parts[2])
    return ids[0], ids[1], interface


def from_spec(options: str, station_dir: Path) -> UsbHidScanner:
    """Entry point `booth.scanners` `usb`: `usb:VID:PID[:INTERFACE]`."""
    vendor_id, product_id, interface = parse_options(options)
    return UsbHidScanner(vendor_id, product_id, interface=interface)
