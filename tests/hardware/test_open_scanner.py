"""Scanner settings (`usb:VID:PID`, `evdev:/dev/input/...`, `serial:PORT[@baud]`, `stdin`) and
the `booth.scanners` entry points the core finds them by."""

from __future__ import annotations

import threading
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from hardware.scanner import BadScannerSpec, Scanner, ScannerError, open_scanner
from hardware.scanner.evdev_wedge import EvdevScanner
from hardware.scanner.fake import FakeScanner
from hardware.scanner.serial_port import SerialScanner
from hardware.scanner.stdin import StdinScanner
from hardware.scanner.usb import UsbHidScanner


def test_usb_settings() -> None:
    scanner = open_scanner("usb:0c2e:0b61")
    assert isinstance(scanner, UsbHidScanner)
    assert (scanner.vendor_id, scanner.product_id, scanner.interface) == (0x0C2E, 0x0B61, None)
    scanner = open_scanner("USB:0x05E0:1200:1")
    assert isinstance(scanner, UsbHidScanner)
    assert (scanner.vendor_id, scanner.product_id, scanner.interface) == (0x05E0, 0x1200, 1)


def test_evdev_serial_and_stdin_settings(tmp_path: Path) -> None:
    scanner = open_scanner("evdev:/dev/input/by-id/usb-Scanner-event-kbd", tmp_path)
    assert isinstance(scanner, EvdevScanner)
    assert scanner.path == "/dev/input/by-id/usb-Scanner-event-kbd"
    serial_scanner = open_scanner("serial:/dev/ttyUSB0")
    assert isinstance(serial_scanner, SerialScanner)
    assert (serial_scanner.port, serial_scanner.baudrate) == ("/dev/ttyUSB0", 9600)
    serial_scanner = open_scanner("serial:/dev/ttyACM1@115200")
    assert isinstance(serial_scanner, SerialScanner)
    assert (serial_scanner.port, serial_scanner.baudrate) == ("/dev/ttyACM1", 115200)
    assert isinstance(open_scanner(" stdin "), StdinScanner)


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "usb",
        "usb:",
        "usb:0c2e",
        "usb:0c2e:",
        "usb:xyz1:0b61",
        "usb:12345:0b61",
        "usb:0c2e:0b61:x",
        "usb:0c2e:0b61:1:2",
        "evdev:",
        "evdev:event3",
        "serial:",
        "serial:@9600",
        "serial:/dev/ttyUSB0@fast",
        "serial:/dev/ttyUSB0@12345",
        "stdin:extra",
        "camera:/dev/video0",
        ":0c2e:0b61",
    ],
)
def test_bad_settings_are_refused_naming_the_setting(spec: str) -> None:
    with pytest.raises(BadScannerSpec) as refused:
        open_scanner(spec)
    assert isinstance(refused.value, ScannerError) and isinstance(refused.value, ValueError)
    assert repr(spec) in str(refused.value) or spec in str(refused.value)
    if spec.startswith("camera"):
        assert "known: evdev, serial, stdin, usb" in str(refused.value)


def test_the_entry_points_name_each_driver() -> None:
    found = {entry.name: entry for entry in entry_points(group="booth.scanners")}
    assert {"usb", "evdev", "serial", "stdin"} <= set(found)
    for name, cls in (("usb", UsbHidScanner), ("serial", SerialScanner), ("stdin", StdinScanner)):
        factory = found[name].load()
        options = {"usb": "0c2e:0b61", "serial": "/dev/ttyUSB0", "stdin": ""}[name]
        scanner = factory(options, Path("."))
        assert isinstance(scanner, cls)
        assert isinstance(scanner, Scanner)
    assert isinstance(found["evdev"].load()("/dev/input/event0", Path(".")), EvdevScanner)


def test_making_a_scanner_starts_nothing() -> None:
    before = threading.active_count()
    for spec in ("usb:0c2e:0b61", "evdev:/dev/input/event0", "serial:/dev/ttyUSB0", "stdin"):
        open_scanner(spec)
    assert threading.active_count() == before


def test_the_recording_fake_is_a_scanner() -> None:
    fake = FakeScanner()
    assert isinstance(fake, Scanner)
    scans: list[str] = []
    errors: list[str] = []
    fake.start(scans.append, errors.append)
    fake.scan("A1/0001")
    fake.fail("unplugged")
    fake.stop()
    assert (scans, errors, fake.started, fake.stopped) == (["A1/0001"], ["unplugged"], 1, 1)
    with pytest.raises(RuntimeError):
        fake.scan("late")
