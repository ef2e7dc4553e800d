"""The pyusb HID scanner driven through a custom `usb.backend.IBackend` (fake_usb.py beside this
file): pyusb's own find/claim/read/ctrl_transfer code runs; only the wire is fake."""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import usb.core
import usb.util

from hardware.scanner import Scanner
from hardware.scanner.hid import ENTER, KEYPAD_ENTER, reports_for
from hardware.scanner.usb import UsbHidScanner
from tests.hardware.fake_usb import UNPLUG, FakeInterface, FakeScannerBackend
from tests.hardware.helpers import Collector, wait_until

VID, PID = 0x0C2E, 0x0B61
RELEASE = bytes(8)


def key(code: int, modifiers: int = 0) -> bytes:
    return bytes([modifiers, 0, code, 0, 0, 0, 0, 0])


def keys(*codes: int, modifiers: int = 0) -> bytes:
    return bytes([modifiers, 0, *codes, *([0] * (6 - len(codes)))])


class Rig:
    """A fake scanner on the fake bus, a driver on it, and what the driver delivered."""

    def __init__(self, backend: FakeScannerBackend, **options: Any) -> None:
        self.backend = backend
        settings: dict[str, Any] = {
            "read_timeout": 0.01,
            "retry_initial": 0.005,
            "retry_max": 0.02,
        }
        settings.update(options)
        self.scanner = UsbHidScanner(VID, PID, backend=backend, **settings)
        self.got = Collector()

    def start(self) -> Rig:
        self.scanner.start(self.got.on_scan, self.got.on_error)
        return self

    def claimed(self) -> None:
        wait_until(lambda: bool(self.backend.claimed), "the interface to be claimed")


@pytest.fixture
def rigs() -> Iterator[list[Rig]]:
    made: list[Rig] = []
    yield made
    for rig in made:
        rig.scanner.stop()


@pytest.fixture
def rig_for(rigs: list[Rig]) -> Any:
    def make(backend: FakeScannerBackend | None = None, **options: Any) -> Rig:
        rig = Rig(backend or FakeScannerBackend(VID, PID), **options)
        rigs.append(rig)
        return rig.start()

    return make


def test_the_fake_device_is_parsed_by_pyusb_itself() -> None:
    backend = FakeScannerBackend(VID, PID)
    device = usb.core.find(idVendor=VID, idProduct=PID, backend=backend)
    assert device is not None
    assert (device.idVendor, device.idProduct, device.bNumConfigurations) == (VID, PID, 1)
    interface = device.get_active_configuration()[(0, 0)]
    assert (interface.bInterfaceClass, interface.bInterfaceSubClass) == (3, 1)
    assert interface.bInterfaceProtocol == 1
    assert bytes(interface.extra_descriptors)[:2] == bytes([9, 0x21])  # the HID descriptor
    endpoint = interface[0]
    assert endpoint.bEndpointAddress == 0x81
    assert usb.util.endpoint_type(endpoint.bmAttributes) == usb.util.ENDPOINT_TYPE_INTR
    assert usb.util.get_string(device, device.iProduct) == "Voyager 1200g"
    # The kernel's keyboard driver holds the interface: claiming without detaching is pyusb #76.
    with pytest.raises(usb.core.USBError) as busy:
        usb.util.claim_interface(device, 0)
    assert busy.value.errno == errno.EBUSY and "Resource busy" in str(busy.value)
    usb.util.dispose_resources(device)


def test_a_whole_scan_is_delivered_as_one_string_from_the_scanner_thread(rig_for: Any) -> None:
    rig = rig_for()
    assert isinstance(rig.scanner, Scanner)
    rig.backend.queue(*reports_for("A123456/0042/10000"))
    assert rig.got.wait_scans(1) == ["A123456/0042/10000"]
    assert rig.got.threads == {"booth-scanner-usb"}
    assert rig.got.errors == []


def test_shift_gives_upper_case_and_the_shifted_symbols(rig_for: Any) -> None:
    rig = rig_for()
    left, right = 0x02, 0x20
    rig.backend.queue(
        key(0x04, left),  # A
        RELEASE,
        key(0x04),  # a
        RELEASE,
        key(0x38),  # /
        key(0x2D),  # -
        key(0x38, right),  # ?
        key(0x2D, left),  # _
        key(0x1E, left),  # !
        key(0x1F),  # 2
        key(0x34, left),  # "
        RELEASE,
        key(ENTER),
        RELEASE,
    )
    assert rig.got.wait_scans(1) == ['Aa/-?_!2"']


def test_keys_held_across_reports_are_typed_once(rig_for: Any) -> None:
    rig = rig_for()
    rig.backend.queue(
        keys(0x04),  # a down
        keys(0x04),  # a still down: the device repeats its state
        keys(0x04, 0x05),  # b down while a held
        keys(0x05),  # a up
        keys(0x05, 0x06),  # c down while b held
        RELEASE,
        keys(0x04),  # a again after a release: typed again
        RELEASE,
        key(KEYPAD_ENTER),
        RELEASE,
    )
    assert rig.got.wait_scans(1) == ["abca"]


def test_the_kernel_driver_is_detached_before_claiming_and_reattached_on_stop(
    rig_for: Any,
) -> None:
    rig = rig_for()
    backend = rig.backend
    backend.queue(*reports_for("X1"))
    rig.got.wait_scans(1)
    names = [call[0] for call in backend.calls if call[0] in ("detach", "claim", "attach")]
    assert names == ["detach", "claim"]
    assert backend.kernel_driver[0] is False and backend.claimed == {0}
    # Boot protocol (SET_PROTOCOL 0) and idle (SET_IDLE 0) were asked on interface 0.
    assert ("ctrl", 0x21, 0x0B, 0, 0) in backend.calls
    assert ("ctrl", 0x21, 0x0A, 0, 0) in backend.calls

    rig.scanner.stop()
    tail = [call[0] for call in backend.calls if call[0] in ("release", "attach", "close")]
    assert tail == ["release", "attach", "close"]
    assert backend.kernel_driver[0] is True and backend.claimed == set()


def test_no_kernel_driver_means_nothing_to_detach_or_reattach(rig_for: Any) -> None:
    rig = rig_for(FakeScannerBackend(VID, PID, kernel_driver=False))
    rig.backend.queue(*reports_for("X1"))
    assert rig.got.wait_scans(1) == ["X1"]
    rig.scanner.stop()
    assert rig.backend.calls_named("detach") == rig.backend.calls_named("attach") == []
    assert rig.backend.calls_named("release") == [("release", 0)]


def test_unplugged_mid_scan_reports_the_partial_scan_and_recovers_by_itself(
    rig_for: Any,
) -> None:
    rig = rig_for()
    backend = rig.backend
    backend.queue(*reports_for("A123456/0042/10000"))
    rig.got.wait_scans(1)

    backend.queue(*reports_for("B77", enter=False), UNPLUG)  # pulled out mid-scan
    unplugged = rig.got.wait_error("unplugged (")
    partial = rig.got.wait_error("partial scan")
    assert "'B77'" in partial and "discarded" in partial
    assert "usb:0c2e:0b61" in unplugged
    assert rig.got.errors.index(partial) < rig.got.errors.index(unplugged)

    time.sleep(0.05)  # several retries find nothing...
    assert not any("not found" in e for e in rig.got.errors)  # ...and do not say so again

    backend.plug()  # back: a new instance, bound to the kernel driver again
    backend.queue(*reports_for("C42"))
    assert rig.got.wait_scans(2) == ["A123456/0042/10000", "C42"]
    assert [c[0] for c in backend.calls if c[0] in ("detach", "claim")] == [
        "detach",
        "claim",
        "detach",
        "claim",
    ]
    assert not any("B77" in scan for scan in rig.got.scans)


def test_a_scanner_missing_at_start_is_reported_once_and_used_when_plugged(rig_for: Any) -> None:
    backend = FakeScannerBackend(VID, PID)
    backend.present = False
    rig = rig_for(backend)
    rig.got.wait_error("not found")
    time.sleep(0.05)
    assert len(rig.got.errors) == 1, rig.got.errors
    backend.plug()
    backend.queue(*reports_for("LATE1"))
    assert rig.got.wait_scans(1) == ["LATE1"]


def test_of_two_interfaces_the_hid_boot_keyboard_is_read(rig_for: Any) -> None:
    pos_interface = FakeInterface(0, 3, 0, 0, 0x81)  # HID, not a boot keyboard (HID POS)
    keyboard = FakeInterface(1, 3, 1, 1, 0x82)
    backend = FakeScannerBackend(VID, PID, (pos_interface, keyboard))
    backend.queue(*reports_for("WRONG"), endpoint=0x81)
    backend.queue(*reports_for("RIGHT"), endpoint=0x82)
    rig = rig_for(backend)
    assert rig.got.wait_scans(1) == ["RIGHT"]
    assert backend.calls_named("claim") == [("claim", 1)]
    assert backend.calls_named("detach") == [("detach", 1)]
    assert backend.kernel_driver[0] is True  # the other interface is left to the kernel


def test_the_interface_given_is_the_one_read(rig_for: Any) -> None:
    other = FakeInterface(0, 3, 1, 1, 0x81)
    chosen = FakeInterface(1, 3, 0, 0, 0x82)
    backend = FakeScannerBackend(VID, PID, (other, chosen))
    backend.queue(*reports_for("NOTME"), endpoint=0x81)
    backend.queue(*reports_for("ME"), endpoint=0x82)
    rig = rig_for(backend, interface=1)
    assert rig.got.wait_scans(1) == ["ME"]
    assert backend.calls_named("claim") == [("claim", 1)]


def test_a_device_without_a_keyboard_interface_is_reported(rig_for: Any) -> None:
    vendor_only = FakeInterface(0, 0xFF, 0, 0, 0x81)
    rig = rig_for(FakeScannerBackend(VID, PID, (vendor_only,)))
    message = rig.got.wait_error("no HID keyboard interface")
    assert "0 (class 255, protocol 0)" in message


def test_a_missing_interface_number_is_reported(rig_for: Any) -> None:
    rig = rig_for(interface=3)
    assert "has no interface 3 (it has [0])" in rig.got.wait_error("no interface")


def test_an_unreadable_report_discards_the_scan_in_progress(rig_for: Any) -> None:
    rig = rig_for()
    f1 = 0x3A
    rig.backend.queue(*reports_for("AB", enter=False), key(f1), RELEASE)
    message = rig.got.wait_error("unknown keycode")
    assert "0x3a" in message and "partial scan 'AB' discarded" in message
    rig.backend.queue(*reports_for("CD"))
    assert rig.got.wait_scans(1) == ["CD"]


def test_a_scan_that_pauses_too_long_is_reported_partial(rig_for: Any) -> None:
    rig = rig_for(scan_timeout=0.03)
    rig.backend.queue(*reports_for("A1", enter=False))
    assert "'A1'" in rig.got.wait_error("partial scan")
    rig.backend.queue(*reports_for("XYZ"))
    assert rig.got.wait_scans(1) == ["XYZ"]


def test_no_usb_backend_is_reported_and_stop_still_works(
    rig_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_backend(**_: Any) -> None:
        raise usb.core.NoBackendError("No backend available")

    monkeypatch.setattr(usb.core, "find", no_backend)
    rig = rig_for()
    assert "install libusb" in rig.got.wait_error("no USB backend")


def test_stop_is_prompt_idempotent_and_the_scanner_restarts(rig_for: Any) -> None:
    rig = rig_for(read_timeout=0.1)
    rig.claimed()
    began = time.monotonic()
    rig.scanner.stop()
    assert time.monotonic() - began < 1.0
    rig.scanner.stop()
    assert not any(t.name == "booth-scanner-usb" for t in threading.enumerate())
    assert rig.backend.kernel_driver[0] is True

    rig.scanner.start(rig.got.on_scan, rig.got.on_error)
    rig.backend.queue(*reports_for("AGAIN"))
    assert rig.got.wait_scans(1) == ["AGAIN"]
    with pytest.raises(RuntimeError, match="already started"):
        rig.scanner.start(rig.got.on_scan, rig.got.on_error)


def test_a_failing_scan_handler_does_not_stop_the_scanner(rigs: list[Rig]) -> None:
    rig = Rig(FakeScannerBackend(VID, PID), read_timeout=0.01)
    rigs.append(rig)
    seen: list[str] = []
    done = threading.Event()

    def handler(text: str) -> None:
        seen.append(text)
        if len(seen) == 1:
            raise RuntimeError("the screen was busy")
        done.set()

    rig.scanner.start(handler, rig.got.on_error)
    rig.backend.queue(*reports_for("ONE"), *reports_for("TWO"))
    assert done.wait(5)
    assert seen == ["ONE", "TWO"]


def test_stop_from_inside_the_scan_handler(rigs: list[Rig]) -> None:
    rig = Rig(FakeScannerBackend(VID, PID), read_timeout=0.01)
    rigs.append(rig)
    stopped = threading.Event()

    def handler(text: str) -> None:
        rig.scanner.stop()
        stopped.set()

    rig.scanner.start(handler, rig.got.on_error)
    rig.backend.queue(*reports_for("LAST"))
    assert stopped.wait(5)
    wait_until(lambda: not rig.scanner.running, "the thread to end")
    rig.scanner.stop()  # joins the thread that stopped itself
    assert rig.backend.kernel_driver[0] is True
