"""A keyboard-wedge scanner read through python-evdev (Linux).

A wedge scanner is a USB keyboard: left alone it types every scan into whatever window has the
focus. This driver grabs its event device (EVIOCGRAB) so that its keys reach Booth only, and
turns key presses into text with the US layout; Enter (the usual CR suffix) ends a scan.

Name the device by a stable path, e.g. `evdev:/dev/input/by-id/usb-Honeywell_...-event-kbd`:
`/dev/input/eventN` numbers change when the scanner is replugged.

python-evdev is imported only when a real device is opened, so this module imports (and its
decoder works) where evdev is not installed.
"""

from __future__ import annotations

import errno
import logging
import select
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from hardware.scanner.base import (
    BadScannerSpec,
    PartialScan,
    ReconnectingScanner,
    ScannerError,
    ScannerNotFound,
    ScannerUnavailable,
    ScannerUnplugged,
    UnknownKey,
)

logger = logging.getLogger(__name__)

# Linux input event types and key codes (linux/input-event-codes.h).
EV_KEY = 0x01
KEY_UP, KEY_DOWN, KEY_HOLD = 0, 1, 2
KEY_ENTER = 28
KEY_KPENTER = 96
SHIFT_KEYS = frozenset({42, 54})  # KEY_LEFTSHIFT, KEY_RIGHTSHIFT
OTHER_MODIFIER_KEYS = frozenset({29, 97, 56, 100, 125, 126})  # CTRL, ALT, META, left and right

# key code: (unshifted, shifted) on a US keyboard.
US_KEYS: dict[int, tuple[str, str]] = {}


def _row(first_code: int, plain: str, shifted: str) -> None:
    for offset, (char, upper) in enumerate(zip(plain, shifted, strict=True)):
        US_KEYS[first_code + offset] = (char, upper)


_row(2, "1234567890-=", "!@#$%^&*()_+")  # KEY_1 .. KEY_EQUAL
_row(15, "\tqwertyuiop[]", "\tQWERTYUIOP{}")  # KEY_TAB .. KEY_RIGHTBRACE
_row(30, "asdfghjkl;'`", 'ASDFGHJKL:"~')  # KEY_A .. KEY_GRAVE
_row(43, "\\zxcvbnm,./", "|ZXCVBNM<>?")  # KEY_BACKSLASH .. KEY_SLASH
US_KEYS[57] = (" ", " ")  # KEY_SPACE
# Keypad, Num Lock on; shift does not change it.
for _code, _char in {
    55: "*",
    71: "7",
    72: "8",
    73: "9",
    74: "-",
    75: "4",
    76: "5",
    77: "6",
    78: "+",
    79: "1",
    80: "2",
    81: "3",
    82: "0",
    83: ".",
    98: "/",
    117: "=",
}.items():
    US_KEYS[_code] = (_char, _char)
del _code, _char

MAX_SCAN_LENGTH = 4096


class KeyDecoder:
    """EV_KEY events to whole scans. Other event types (EV_SYN, EV_MSC, EV_LED) are ignored;
    key repeats (value 2) are not typed again."""

    def __init__(self, max_length: int = MAX_SCAN_LENGTH) -> None:
        self.max_length = max_length
        self._shift: set[int] = set()
        self._other: set[int] = set()
        self._text: list[str] = []

    @property
    def pending(self) -> str:
        return "".join(self._text)

    def reset(self) -> str:
        """Discard the scan in progress (returned) and forget the modifiers held."""
        partial = self.pending
        self._text.clear()
        self._shift.clear()
        self._other.clear()
        return partial

    def feed(self, event_type: int, code: int, value: int) -> str | None:
        """Return the scan that this event ends, if it ends one. Raises UnknownKey for a key that
        has no place in a scan; the caller then discards the scan in progress with reset()."""
        if event_type != EV_KEY:
            return None
        if code in SHIFT_KEYS or code in OTHER_MODIFIER_KEYS:
            modifiers = self._shift if code in SHIFT_KEYS else self._other
            if value == KEY_UP:
                modifiers.discard(code)
            else:
                modifiers.add(code)
            return None
        if value != KEY_DOWN:
            return None
        if code in (KEY_ENTER, KEY_KPENTER):
            text = self.pending
            self._text.clear()
            return text or None
        if code not in US_KEYS:
            raise UnknownKey(f"key code {code} ({_key_name(code)}) is not part of a scan")
        if self._other:
            held = ", ".join(_key_name(c) for c in sorted(self._other))
            raise UnknownKey(f"key code {code} ({_key_name(code)}) pressed with {held} held")
        if len(self._text) >= self.max_length:
            raise UnknownKey(
                f"scan longer than {self.max_length} characters without Enter: "
                f"{self.pending[:40]!r}..."
            )
        self._text.append(US_KEYS[code][1 if self._shift else 0])
        return None

    def feed_events(self, events: Iterable[Any]) -> list[str]:
        """Feed objects with `type`, `code` and `value` (evdev.InputEvent); return the scans."""
        scans: list[str] = []
        for event in events:
            text = self.feed(int(event.type), int(event.code), int(event.value))
            if text is not None:
                scans.append(text)
        return scans


def _key_name(code: int) -> str:
    module = _evdev_or_none()
    if module is not None:
        name = module.ecodes.KEY.get(code)
        if isinstance(name, list):
            return str(name[0])
        if name:
            return str(name)
    return f"KEY_{code}"


class InputDeviceLike(Protocol):
    """What this driver uses of `evdev.InputDevice`."""

    def fileno(self) -> int: ...

    def read(self) -> Iterable[Any]: ...

    def grab(self) -> None: ...

    def ungrab(self) -> None: ...

    def close(self) -> None: ...


_evdev_module: ModuleType | None = None


def _evdev_or_none() -> ModuleType | None:
    try:
        return load_evdev()
    except ScannerUnavailable:
        return None


def load_evdev() -> ModuleType:
    """Import python-evdev on first use, with a clear error where it is missing."""
    global _evdev_module
    if _evdev_module is None:
        try:
            import evdev
        except ImportError as exc:
            raise ScannerUnavailable(
                f"the evdev scanner needs python-evdev (Linux only): pip install evdev ({exc})"
            ) from exc
        _evdev_module = evdev
    return _evdev_module


def _open_input_device(path: str) -> InputDeviceLike:
    device: InputDeviceLike = load_evdev().InputDevice(path)
    return device


class EvdevScanner(ReconnectingScanner[InputDeviceLike]):
    """A keyboard-wedge scanner at an input event device path, grabbed while it is read.

    `open_device` (default `evdev.InputDevice`) is how a path becomes a device; tests pass a fake.
    """

    kind = "evdev"

    def __init__(
        self,
        path: str,
        *,
        open_device: Callable[[str], InputDeviceLike] | None = None,
        grab: bool = True,
        poll: float = 0.1,
        scan_timeout: float = 1.0,
        retry_initial: float = 0.1,
        retry_max: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(retry_initial=retry_initial, retry_max=retry_max)
        if open_device is None:
            load_evdev()  # fail now, with the install hint, rather than at every retry
            open_device = _open_input_device
        self.path = path
        self.grab = grab
        self.poll = poll
        self.scan_timeout = scan_timeout
        self._open_device = open_device
        self._clock = clock
        self._decoder = KeyDecoder()

    def describe(self) -> str:
        return f"scanner evdev:{self.path}"

    def _open(self) -> InputDeviceLike:
        try:
            device = self._open_device(self.path)
        except FileNotFoundError as exc:
            raise ScannerNotFound(self._gone_message()) from exc
        except PermissionError as exc:
            raise ScannerUnavailable(
                f"{self.describe()}: permission denied (is packaging/udev/60-booth-hardware.rules"
                " installed and the user in group booth?)"
            ) from exc
        except OSError as exc:
            raise ScannerNotFound(f"{self.describe()} cannot be opened: {exc}") from exc
        if self.grab:
            try:
                device.grab()
            except OSError as exc:
                _quietly(device.close)
                if exc.errno == errno.EBUSY:
                    raise ScannerUnavailable(
                        f"{self.describe()} is grabbed by another program: {exc}"
                    ) from exc
                raise ScannerNotFound(f"{self.describe()} cannot be grabbed: {exc}") from exc
        return device

    def _read(self, device: InputDeviceLike) -> ScannerError | None:
        decoder = self._decoder
        decoder.reset()
        last_key = self._clock()
        while not self._stopping.is_set():
            try:
                ready, _, _ = select.select([device.fileno()], [], [], self.poll)
            except (OSError, ValueError) as exc:
                return self._lost(exc)
            if not ready:
                if decoder.pending and self._clock() - last_key > self.scan_timeout:
                    self._discard(f"no key for {self.scan_timeout:g} s")
                continue
            try:
                events = list(device.read())
            except BlockingIOError:
                continue
            except OSError as exc:
                return self._lost(exc)
            last_key = self._clock()
            for event in events:
                try:
                    text = decoder.feed(int(event.type), int(event.code), int(event.value))
                except UnknownKey as exc:
                    partial = decoder.reset()
                    suffix = f"; partial scan {partial!r} discarded" if partial else ""
                    self._report(f"{self.describe()}: {exc}{suffix}")
                    continue
                if text is not None:
                    self._deliver(text)
        return None

    def _discard(self, why: str) -> None:
        partial = self._decoder.reset()
        if partial:
            self._report(
                PartialScan(f"{self.describe()}: partial scan {partial!r} discarded: {why}")
            )

    def _lost(self, exc: Exception) -> ScannerError:
        self._discard("the scanner was unplugged")
        return ScannerUnplugged(f"{self.describe()} unplugged ({exc}); waiting for it")

    def _close(self, device: InputDeviceLike) -> None:
        if self.grab:
            _quietly(device.ungrab)
        _quietly(device.close)


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except OSError as exc:  # the device is already gone
        logger.debug("%s: %s", getattr(action, "__name__", action), exc)


def parse_options(options: str) -> str:
    if not options.startswith("/"):
        raise BadScannerSpec(
            f"scanner evdev:{options} should name an absolute device path, "
            "e.g. evdev:/dev/input/by-id/usb-...-event-kbd"
        )
    return options


def from_spec(options: str, station_dir: Path) -> EvdevScanner:
    """Entry point `booth.scanners` `evdev`: `evdev:/dev/input/...`."""
    return EvdevScanner(parse_options(options))
