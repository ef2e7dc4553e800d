"""A pyusb backend serving one fake USB barcode scanner, so the code under test is pyusb's own.

The scanner is described the way a real one answers GET_DESCRIPTOR: an 18-byte device descriptor
and a configuration descriptor blob (configuration, interfaces, HID class descriptors,
endpoints). The backend parses those bytes into the descriptor objects pyusb's `usb.core` reads,
as libusb does, and answers GET_DESCRIPTOR control requests from the same bytes.

It keeps the kernel's side too: a HID keyboard interface starts bound to the kernel driver, and
claiming it then fails with EBUSY "Resource busy" (pyusb #76) until the driver is detached.
Interrupt reads are served from a queue of reports per endpoint; `unplug()` (or an UNPLUG item
in the queue) makes every call fail with ENODEV, and `plug()` brings back a new instance of the
device (new handle, kernel driver bound again).
"""

from __future__ import annotations

import array
import errno
import queue
import struct
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import usb.backend
import usb.core

DEVICE, CONFIGURATION, STRING, INTERFACE, ENDPOINT = 1, 2, 3, 4, 5
HID, HID_REPORT = 0x21, 0x22


def device_descriptor(vendor_id: int, product_id: int) -> bytes:
    return struct.pack(
        "<BBHBBBBHHHBBBB",
        18,  # bLength
        DEVICE,
        0x0200,  # bcdUSB
        0,  # bDeviceClass: per interface
        0,
        0,
        64,  # bMaxPacketSize0
        vendor_id,
        product_id,
        0x0100,  # bcdDevice
        1,  # iManufacturer
        2,  # iProduct
        3,  # iSerialNumber
        1,  # bNumConfigurations
    )


@dataclass
class FakeInterface:
    number: int
    interface_class: int
    subclass: int
    protocol: int
    endpoint: int  # interrupt IN endpoint address

    def descriptor(self) -> bytes:
        interface = struct.pack(
            "<BBBBBBBBB",
            9,
            INTERFACE,
            self.number,
            0,  # bAlternateSetting
            1,  # bNumEndpoints
            self.interface_class,
            self.subclass,
            self.protocol,
            0,
        )
        hid = struct.pack("<BBHBBBH", 9, HID, 0x0111, 0, 1, HID_REPORT, 63)
        endpoint = struct.pack("<BBBBHB", 7, ENDPOINT, self.endpoint, 0x03, 8, 1)
        return interface + (hid if self.interface_class == 3 else b"") + endpoint


KEYBOARD = FakeInterface(0, 3, 1, 1, 0x81)


def configuration_descriptor(interfaces: Sequence[FakeInterface]) -> bytes:
    body = b"".join(i.descriptor() for i in interfaces)
    header = struct.pack(
        "<BBHBBBBB", 9, CONFIGURATION, 9 + len(body), len(interfaces), 1, 0, 0x80, 50
    )
    return header + body


class Descriptor:
    """Fields by name, as pyusb expects of a backend's descriptor objects."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __getattr__(self, name: str) -> Any:  # only called for a field that is missing
        raise AttributeError(f"descriptor has no field {name}")


FIELDS = {
    DEVICE: (
        "<BBHBBBBHHHBBBB",
        "bLength bDescriptorType bcdUSB bDeviceClass bDeviceSubClass bDeviceProtocol "
        "bMaxPacketSize0 idVendor idProduct bcdDevice iManufacturer iProduct iSerialNumber "
        "bNumConfigurations",
    ),
    CONFIGURATION: (
        "<BBHBBBBB",
        "bLength bDescriptorType wTotalLength bNumInterfaces bConfigurationValue "
        "iConfiguration bmAttributes bMaxPower",
    ),
    INTERFACE: (
        "<BBBBBBBBB",
        "bLength bDescriptorType bInterfaceNumber bAlternateSetting bNumEndpoints "
        "bInterfaceClass bInterfaceSubClass bInterfaceProtocol iInterface",
    ),
    ENDPOINT: (
        "<BBBBHB",
        "bLength bDescriptorType bEndpointAddress bmAttributes wMaxPacketSize bInterval",
    ),
}


def parse(kind: int, data: bytes, **extra: Any) -> Descriptor:
    fmt, names = FIELDS[kind]
    values = struct.unpack_from(fmt, data)
    if values[1] != kind:
        raise ValueError(f"descriptor type {values[1]} where {kind} was expected")
    return Descriptor(**dict(zip(names.split(), values, strict=True)), **extra)


@dataclass
class ParsedInterface:
    descriptor: Descriptor
    endpoints: list[Descriptor] = field(default_factory=list)


def parse_configuration(blob: bytes) -> tuple[Descriptor, list[ParsedInterface]]:
    """Walk a configuration descriptor blob as libusb does: class-specific descriptors (HID)
    go to the `extra_descriptors` of the interface before them."""
    config = parse(CONFIGURATION, blob, extra_descriptors=[])
    if config.wTotalLength != len(blob):
        raise ValueError(f"wTotalLength {config.wTotalLength} != {len(blob)} bytes")
    interfaces: list[ParsedInterface] = []
    offset = config.bLength
    while offset < len(blob):
        length, kind = blob[offset], blob[offset + 1]
        chunk = blob[offset : offset + length]
        if kind == INTERFACE:
            interfaces.append(ParsedInterface(parse(INTERFACE, chunk, extra_descriptors=[])))
        elif kind == ENDPOINT:
            interfaces[-1].endpoints.append(
                parse(ENDPOINT, chunk, bRefresh=0, bSynchAddress=0, extra_descriptors=[])
            )
        else:
            interfaces[-1].descriptor.extra_descriptors.extend(chunk)
        offset += length
    return config, interfaces


UNPLUG = "unplug"  # a queue item: the device is pulled out while this read waits


@dataclass(frozen=True)
class Handle:
    generation: int


class FakeScannerBackend(usb.backend.IBackend):  # type: ignore[misc]
    """One scanner, present or not, with its reports queued per endpoint address."""

    def __init__(
        self,
        vendor_id: int = 0x0C2E,
        product_id: int = 0x0B61,
        interfaces: Sequence[FakeInterface] = (KEYBOARD,),
        *,
        kernel_driver: bool = True,
        strings: Sequence[str] = ("Honeywell", "Voyager 1200g", "17012B1234"),
    ) -> None:
        super().__init__()
        self.device_bytes = device_descriptor(vendor_id, product_id)
        self.config_bytes = configuration_descriptor(interfaces)
        self.strings = list(strings)
        self.kernel_driver_default = kernel_driver
        self.lock = threading.Lock()
        self.calls: list[tuple[Any, ...]] = []
        self.present = True
        self.generation = 0
        self.kernel_driver: dict[int, bool] = {}
        self.claimed: set[int] = set()
        self.reports: dict[int, queue.Queue[bytes | str]] = {}
        self._new_instance()

    # -- test controls ---------------------------------------------------------------------

    def _new_instance(self) -> None:
        _, interfaces = parse_configuration(self.config_bytes)
        self.kernel_driver = {
            i.descriptor.bInterfaceNumber: self.kernel_driver_default
            and i.descriptor.bInterfaceClass == 3
            for i in interfaces
        }
        self.claimed = set()
        self.reports = {
            ep.bEndpointAddress: queue.Queue() for i in interfaces for ep in i.endpoints
        }

    def queue(self, *reports: bytes | str, endpoint: int = 0x81) -> None:
        for report in reports:
            self.reports[endpoint].put(report)

    def unplug(self) -> None:
        with self.lock:
            self.present = False
            for pending in self.reports.values():
                pending.put(UNPLUG)  # wake a waiting read

    def plug(self) -> None:
        with self.lock:
            self.generation += 1
            self._new_instance()
            self.present = True

    def calls_named(self, name: str) -> list[tuple[Any, ...]]:
        return [call for call in self.calls if call[0] == name]

    # -- helpers -----------------------------------------------------------------------------

    def _record(self, *call: Any) -> None:
        self.calls.append(call)

    def _check(self, handle: Handle | None = None) -> None:
        if not self.present or (handle is not None and handle.generation != self.generation):
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, 19)

    # -- IBackend ----------------------------------------------------------------------------

    def enumerate_devices(self) -> Iterator[int]:
        if self.present:
            yield self.generation

    def get_parent(self, dev: int) -> None:
        return None

    def get_device_descriptor(self, dev: int) -> Descriptor:
        return parse(
            DEVICE,
            self.device_bytes,
            bus=1,
            address=4 + dev,
            port_number=2,
            port_numbers=(2,),
            speed=2,
        )

    def get_configuration_descriptor(self, dev: int, config: int) -> Descriptor:
        return parse_configuration(self.config_bytes)[0]

    def get_interface_descriptor(self, dev: int, intf: int, alt: int, config: int) -> Descriptor:
        if alt != 0:
            raise IndexError("no alternate setting")
        return parse_configuration(self.config_bytes)[1][intf].descriptor

    def get_endpoint_descriptor(
        self, dev: int, ep: int, intf: int, alt: int, config: int
    ) -> Descriptor:
        return parse_configuration(self.config_bytes)[1][intf].endpoints[ep]

    def open_device(self, dev: int) -> Handle:
        self._check()
        if dev != self.generation:
            raise usb.core.USBError("No such device", -4, errno.ENODEV)
        self._record("open", dev)
        return Handle(dev)

    def close_device(self, dev_handle: Handle) -> None:
        self._record("close", dev_handle.generation)

    def get_configuration(self, dev_handle: Handle) -> int:
        self._check(dev_handle)
        return 1  # configured by the kernel at enumeration

    def set_configuration(self, dev_handle: Handle, config_value: int) -> None:
        self._check(dev_handle)
        self._record("set_configuration", config_value)

    def set_interface_altsetting(self, dev_handle: Handle, intf: int, altsetting: int) -> None:
        self._check(dev_handle)
        self._record("set_interface_altsetting", intf, altsetting)

    def claim_interface(self, dev_handle: Handle, intf: int) -> None:
        self._check(dev_handle)
        self._record("claim", intf)
        if self.kernel_driver.get(intf):
            raise usb.core.USBError("Resource busy", -6, errno.EBUSY)
        self.claimed.add(intf)

    def release_interface(self, dev_handle: Handle, intf: int) -> None:
        self._check(dev_handle)
        self._record("release", intf)
        self.claimed.discard(intf)

    def is_kernel_driver_active(self, dev_handle: Handle, intf: int) -> bool:
        self._check(dev_handle)
        return self.kernel_driver.get(intf, False)

    def detach_kernel_driver(self, dev_handle: Handle, intf: int) -> None:
        self._check(dev_handle)
        self._record("detach", intf)
        if not self.kernel_driver.get(intf):
            raise usb.core.USBError("Entity not found", -5, errno.ENOENT)
        self.kernel_driver[intf] = False

    def attach_kernel_driver(self, dev_handle: Handle, intf: int) -> None:
        self._check(dev_handle)
        self._record("attach", intf)
        if intf in self.claimed or self.kernel_driver.get(intf):
            raise usb.core.USBError("Resource busy", -6, errno.EBUSY)
        self.kernel_driver[intf] = True

    def ctrl_transfer(
        self,
        dev_handle: Handle,
        bmRequestType: int,
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: array.array[int],
        timeout: int,
    ) -> int:
        self._check(dev_handle)
        self._record("ctrl", bmRequestType, bRequest, wValue, wIndex)
        if bmRequestType == 0x80 and bRequest == 6:  # GET_DESCRIPTOR
            kind, index = wValue >> 8, wValue & 0xFF
            if kind == DEVICE:
                answer = self.device_bytes
            elif kind == CONFIGURATION:
                answer = self.config_bytes
            elif kind == STRING and index == 0:
                answer = bytes([4, STRING, 0x09, 0x04])  # English (US)
            elif kind == STRING and index <= len(self.strings):
                text = self.strings[index - 1].encode("utf-16-le")
                answer = bytes([2 + len(text), STRING]) + text
            else:
                raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
            answer = answer[: len(data)]
            data[: len(answer)] = array.array("B", answer)
            return len(answer)
        if bmRequestType == 0x21 and bRequest in (0x0A, 0x0B):  # HID SET_IDLE, SET_PROTOCOL
            if wIndex not in self.claimed:
                raise usb.core.USBError("Resource busy", -6, errno.EBUSY)
            return 0
        raise usb.core.USBError("Pipe error", -9, errno.EPIPE)

    def intr_read(
        self, dev_handle: Handle, ep: int, intf: int, buff: array.array[int], timeout: int
    ) -> int:
        self._check(dev_handle)
        if intf not in self.claimed:
            raise usb.core.USBError("Resource busy", -6, errno.EBUSY)
        try:
            item = self.reports[ep].get(timeout=timeout / 1000)
        except queue.Empty:
            raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT) from None
        if item == UNPLUG or not self.present:
            with self.lock:
                self.present = False
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, 19)
        assert isinstance(item, bytes)
        count = min(len(item), len(buff))
        buff[:count] = array.array("B", item[:count])
        return count
