"""The keyboard-wedge scanner: its decoder on real `evdev.InputEvent` objects, its driver on a
fake input device (a real pipe for select(), events queued by the test), and, where this machine
has /dev/uinput, end to end through a virtual keyboard made with `evdev.UInput`."""

from __future__ import annotations

import collections
import errno
import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import evdev
import pytest

from hardware.scanner import evdev_wedge
from hardware.scanner.base import ScannerUnavailable, UnknownKey
from hardware.scanner.evdev_wedge import US_KEYS, EvdevScanner, KeyDecoder
from tests.hardware.helpers import Collector, wait_until

ecodes = evdev.ecodes

EV_KEY, EV_SYN, EV_MSC = ecodes.EV_KEY, ecodes.EV_SYN, ecodes.EV_MSC
DOWN, UP, HOLD = 1, 0, 2


def typed(text: str, *, enter: bool = True) -> list[Any]:
    """The events a US wedge scanner sends for `text` (EV_MSC scancode, EV_KEY, EV_SYN)."""
    by_char: dict[str, tuple[int, bool]] = {}
    for code, (plain, shifted) in sorted(US_KEYS.items()):
        if 71 <= code <= 83 or code in (55, 98, 117):
            continue  # the main block, as scanners type by default
        by_char.setdefault(plain, (code, False))
        by_char.setdefault(shifted, (code, True))
    events: list[Any] = []

    def press(code: int, value: int) -> None:
        events.append(evdev.InputEvent(1, 0, EV_MSC, ecodes.MSC_SCAN, 0x70000 + code))
        events.append(evdev.InputEvent(1, 0, EV_KEY, code, value))
        events.append(evdev.InputEvent(1, 0, EV_SYN, ecodes.SYN_REPORT, 0))

    for char in text:
        key_code, with_shift = by_char[char]
        if with_shift:
            press(ecodes.KEY_LEFTSHIFT, DOWN)
        press(key_code, DOWN)
        press(key_code, UP)
        if with_shift:
            press(ecodes.KEY_LEFTSHIFT, UP)
    if enter:
        press(ecodes.KEY_ENTER, DOWN)
        press(ecodes.KEY_ENTER, UP)
    return events


def test_the_key_table_agrees_with_the_kernel_key_names() -> None:
    names = {
        "a": "KEY_A",
        "q": "KEY_Q",
        "z": "KEY_Z",
        "1": "KEY_1",
        "0": "KEY_0",
        "-": "KEY_MINUS",
        "=": "KEY_EQUAL",
        "/": "KEY_SLASH",
        ".": "KEY_DOT",
        ",": "KEY_COMMA",
        ";": "KEY_SEMICOLON",
        "'": "KEY_APOSTROPHE",
        "`": "KEY_GRAVE",
        "\\": "KEY_BACKSLASH",
        "[": "KEY_LEFTBRACE",
        "]": "KEY_RIGHTBRACE",
        " ": "KEY_SPACE",
        "\t": "KEY_TAB",
    }
    for char, name in names.items():
        assert US_KEYS[getattr(ecodes, name)][0] == char, name
    for digit in "0123456789":
        assert US_KEYS[getattr(ecodes, f"KEY_KP{digit}")][0] == digit
    assert US_KEYS[ecodes.KEY_KPMINUS][0] == "-"
    assert US_KEYS[ecodes.KEY_KPSLASH][0] == "/"
    assert (evdev_wedge.KEY_ENTER, evdev_wedge.KEY_KPENTER) == (
        ecodes.KEY_ENTER,
        ecodes.KEY_KPENTER,
    )
    assert {ecodes.KEY_LEFTSHIFT, ecodes.KEY_RIGHTSHIFT} == evdev_wedge.SHIFT_KEYS
    assert {
        ecodes.KEY_LEFTCTRL,
        ecodes.KEY_RIGHTCTRL,
        ecodes.KEY_LEFTALT,
        ecodes.KEY_RIGHTALT,
        ecodes.KEY_LEFTMETA,
        ecodes.KEY_RIGHTMETA,
    } == evdev_wedge.OTHER_MODIFIER_KEYS


def test_input_events_decode_with_shift_and_end_on_enter() -> None:
    decoder = KeyDecoder()
    assert decoder.feed_events(typed("A123456/0042/10000")) == ["A123456/0042/10000"]
    assert decoder.feed_events(typed('Mixed-Case_?!"')) == ['Mixed-Case_?!"']


def test_key_repeats_and_other_event_types_type_nothing() -> None:
    decoder = KeyDecoder()
    events = [
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_B, DOWN),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_B, HOLD),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_B, HOLD),
        evdev.InputEvent(1, 0, ecodes.EV_LED, ecodes.LED_NUML, 1),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_B, UP),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_RIGHTSHIFT, DOWN),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_B, DOWN),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_RIGHTSHIFT, UP),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_B, DOWN),
        evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_KPENTER, DOWN),
    ]
    assert decoder.feed_events(events) == ["bBb"]


@pytest.mark.parametrize(
    ("modifier", "code", "fragment"),
    [
        (None, ecodes.KEY_F1, "KEY_F1"),
        (None, ecodes.KEY_ESC, "KEY_ESC"),
        (ecodes.KEY_LEFTCTRL, ecodes.KEY_C, "KEY_LEFTCTRL held"),
        (ecodes.KEY_RIGHTALT, ecodes.KEY_E, "KEY_RIGHTALT held"),
    ],
)
def test_keys_that_have_no_place_in_a_scan_raise_unknown_key(
    modifier: int | None, code: int, fragment: str
) -> None:
    decoder = KeyDecoder()
    decoder.feed_events(typed("AB", enter=False))
    if modifier is not None:
        decoder.feed(EV_KEY, modifier, DOWN)
    with pytest.raises(UnknownKey, match=fragment):
        decoder.feed(EV_KEY, code, DOWN)
    assert decoder.reset() == "AB"


class FakeInputDevice:
    """An evdev.InputDevice stand-in: fileno() is a real pipe so select() works; events are
    queued by the test; unplug() makes reads fail with ENODEV like a vanished /dev/input node."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.read_fd, self.write_fd = os.pipe()
        self.events: collections.deque[Any] = collections.deque()
        self.calls: list[str] = []
        self.gone = False
        self.lock = threading.Lock()

    def send(self, events: list[Any]) -> None:
        with self.lock:
            self.events.extend(events)
        os.write(self.write_fd, b"!")

    def unplug(self) -> None:
        self.gone = True
        os.write(self.write_fd, b"!")

    def fileno(self) -> int:
        return self.read_fd

    def read(self) -> Iterator[Any]:
        os.read(self.read_fd, 4096)
        if self.gone:
            raise OSError(errno.ENODEV, "No such device")
        with self.lock:
            events, self.events = list(self.events), collections.deque()
        if not events:
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return iter(events)

    def grab(self) -> None:
        self.calls.append("grab")

    def ungrab(self) -> None:
        if self.gone:
            raise OSError(errno.ENODEV, "No such device")
        self.calls.append("ungrab")

    def close(self) -> None:
        self.calls.append("close")
        os.close(self.read_fd)
        os.close(self.write_fd)


class FakeInputBus:
    """The path: a FakeInputDevice while plugged, FileNotFoundError while not."""

    def __init__(self) -> None:
        self.plugged = True
        self.opened: list[FakeInputDevice] = []

    def open(self, path: str) -> FakeInputDevice:
        if not self.plugged:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        device = FakeInputDevice(path)
        self.opened.append(device)
        return device

    @property
    def current(self) -> FakeInputDevice:
        return self.opened[-1]


PATH = "/dev/input/by-id/usb-Honeywell_Voyager-event-kbd"


@pytest.fixture
def wedge() -> Iterator[tuple[EvdevScanner, FakeInputBus, Collector]]:
    bus = FakeInputBus()
    scanner = EvdevScanner(
        PATH, open_device=bus.open, poll=0.01, retry_initial=0.005, retry_max=0.02
    )
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    yield scanner, bus, got
    scanner.stop()


def test_the_wedge_is_grabbed_read_and_released(
    wedge: tuple[EvdevScanner, FakeInputBus, Collector],
) -> None:
    scanner, bus, got = wedge
    wait_until(lambda: bool(bus.opened), "the device to be opened")
    device = bus.current
    assert device.calls == ["grab"]
    device.send(typed("A123456/0042/10000") + typed("B2"))
    assert got.wait_scans(2) == ["A123456/0042/10000", "B2"]
    assert got.threads == {"booth-scanner-evdev"}
    scanner.stop()
    assert device.calls == ["grab", "ungrab", "close"]


def test_an_unplugged_wedge_reports_its_partial_scan_and_comes_back(
    wedge: tuple[EvdevScanner, FakeInputBus, Collector],
) -> None:
    _scanner, bus, got = wedge
    wait_until(lambda: bool(bus.opened), "the device to be opened")
    first = bus.current
    first.send(typed("HALF", enter=False))
    wait_until(lambda: not first.events, "the events to be read")
    bus.plugged = False
    first.unplug()
    assert "evdev:" + PATH in got.wait_error("unplugged (")
    assert "'HALF'" in got.wait_error("partial scan")
    time.sleep(0.03)
    assert not any("not found" in e for e in got.errors)
    bus.plugged = True
    wait_until(lambda: len(bus.opened) == 2, "the device to be opened again")
    bus.current.send(typed("WHOLE"))
    assert got.wait_scans(1) == ["WHOLE"]
    assert bus.current.calls == ["grab"]


def test_an_unknown_key_discards_the_scan_in_progress(
    wedge: tuple[EvdevScanner, FakeInputBus, Collector],
) -> None:
    _, bus, got = wedge
    wait_until(lambda: bool(bus.opened), "the device to be opened")
    bus.current.send(
        [
            *typed("AB", enter=False),
            evdev.InputEvent(1, 0, EV_KEY, ecodes.KEY_F5, DOWN),
            *typed("CD"),
        ]
    )
    assert got.wait_scans(1) == ["CD"]
    message = got.wait_error("KEY_F5")
    assert "partial scan 'AB' discarded" in message


def test_a_device_grabbed_elsewhere_is_reported() -> None:
    class Busy(FakeInputDevice):
        def grab(self) -> None:
            raise OSError(errno.EBUSY, "Device or resource busy")

    opened: list[Busy] = []

    def open_busy(path: str) -> Busy:
        opened.append(Busy(path))
        return opened[-1]

    scanner = EvdevScanner(PATH, open_device=open_busy, retry_initial=0.005, retry_max=0.01)
    got = Collector()
    scanner.start(got.on_scan, got.on_error)
    try:
        assert "grabbed by another program" in got.wait_error("grabbed")
    finally:
        scanner.stop()
    assert all("close" in device.calls for device in opened)


def test_a_missing_evdev_library_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "evdev", None)  # import evdev -> ImportError
    monkeypatch.setattr(evdev_wedge, "_evdev_module", None)
    with pytest.raises(ScannerUnavailable, match="pip install evdev"):
        EvdevScanner("/dev/input/event3")
    # The decoder needs no evdev.
    assert KeyDecoder().feed_events(typed("OK")) == ["OK"]
