"""USB HID boot-keyboard reports to text, US layout. Pure: no I/O.

A boot keyboard report is 8 bytes: a modifier bitmap, a reserved byte, then up to six keycodes
of the keys held down (HID Usage Tables, Keyboard/Keypad page 0x07), 0 for an empty slot. A key
held across reports appears in each of them and is typed once (key rollover). A scan ends with
Enter (0x28) or keypad Enter (0x58).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hardware.scanner.base import BadReport

__all__ = ["ENTER", "KEYPAD_ENTER", "REPORT_LENGTH", "BadReport", "HidDecoder", "reports_for"]

REPORT_LENGTH = 8
ENTER = 0x28
KEYPAD_ENTER = 0x58
MAX_SCAN_LENGTH = 4096

# Modifier byte bits.
LEFT_CTRL, LEFT_SHIFT, LEFT_ALT, LEFT_GUI = 0x01, 0x02, 0x04, 0x08
RIGHT_CTRL, RIGHT_SHIFT, RIGHT_ALT, RIGHT_GUI = 0x10, 0x20, 0x40, 0x80
SHIFT_BITS = LEFT_SHIFT | RIGHT_SHIFT
OTHER_MODIFIER_BITS = 0xFF & ~SHIFT_BITS

# Keycodes 0x01..0x03 are the keyboard's error states (ErrorRollOver, POSTFail, ErrorUndefined).
ERROR_CODES = {0x01: "ErrorRollOver (too many keys)", 0x02: "POSTFail", 0x03: "ErrorUndefined"}
# Modifier keys may also appear as keycodes 0xE0..0xE7 (in the same bit order as the byte).
MODIFIER_KEYS = range(0xE0, 0xE8)

# keycode: (unshifted, shifted) on a US keyboard.
US_LAYOUT: dict[int, tuple[str, str]] = {}
for _i, _c in enumerate("abcdefghijklmnopqrstuvwxyz"):
    US_LAYOUT[0x04 + _i] = (_c, _c.upper())
for _i, (_c, _s) in enumerate(zip("1234567890", "!@#$%^&*()", strict=True)):
    US_LAYOUT[0x1E + _i] = (_c, _s)
US_LAYOUT.update(
    {
        0x2B: ("\t", "\t"),
        0x2C: (" ", " "),
        0x2D: ("-", "_"),
        0x2E: ("=", "+"),
        0x2F: ("[", "{"),
        0x30: ("]", "}"),
        0x31: ("\\", "|"),
        0x32: ("\\", "|"),  # "Non-US # and ~": what Linux makes of it on a US layout
        0x33: (";", ":"),
        0x34: ("'", '"'),
        0x35: ("`", "~"),
        0x36: (",", "<"),
        0x37: (".", ">"),
        0x38: ("/", "?"),
        # Keypad, Num Lock on (what scanners in keypad mode assume); shift does not change it.
        0x54: ("/", "/"),
        0x55: ("*", "*"),
        0x56: ("-", "-"),
        0x57: ("+", "+"),
        0x62: ("0", "0"),
        0x63: (".", "."),
        0x67: ("=", "="),
    }
)
for _i in range(9):
    US_LAYOUT[0x59 + _i] = (str(_i + 1), str(_i + 1))
del _i, _c, _s

Report = bytes | bytearray | memoryview | Sequence[int]


class HidDecoder:
    """Feed boot-keyboard reports; get back each whole scan when its Enter arrives.

    `feed` raises BadReport (and changes nothing) for a report of the wrong length, a keyboard
    error state, an unknown key or a key pressed with Ctrl/Alt/GUI. The caller then discards the
    scan in progress with `reset()`, which returns it so that it can be reported.
    """

    def __init__(self, max_length: int = MAX_SCAN_LENGTH) -> None:
        self.max_length = max_length
        self._held: frozenset[int] = frozenset()
        self._text: list[str] = []

    @property
    def pending(self) -> str:
        """The scan typed so far, not yet ended by Enter."""
        return "".join(self._text)

    def reset(self) -> str:
        """Forget the keys held and the scan in progress; return the scan that was discarded."""
        partial = self.pending
        self._text.clear()
        self._held = frozenset()
        return partial

    def feed(self, report: Report) -> list[str]:
        data = _as_bytes(report)
        if len(data) != REPORT_LENGTH:
            raise BadReport(
                f"HID report of {len(data)} bytes, not {REPORT_LENGTH}: {data.hex(' ')}"
            )
        modifiers = data[0]
        keys = [code for code in data[2:] if code != 0]
        for code in keys:
            if code in ERROR_CODES:
                raise BadReport(f"keyboard reports {ERROR_CODES[code]}: {data.hex(' ')}")
        for code in keys:
            if code in MODIFIER_KEYS:
                modifiers |= 1 << (code - 0xE0)
        shifted = bool(modifiers & SHIFT_BITS)

        pressed: list[int] = []
        for code in keys:
            if code in MODIFIER_KEYS or code in self._held or code in pressed:
                continue  # a modifier, a key still held from the last report, or a repeat
            if code not in US_LAYOUT and code not in (ENTER, KEYPAD_ENTER):
                raise BadReport(f"unknown keycode 0x{code:02x} in HID report {data.hex(' ')}")
            if modifiers & OTHER_MODIFIER_BITS:
                raise BadReport(
                    f"keycode 0x{code:02x} pressed with modifiers 0x{modifiers:02x} "
                    f"(Ctrl/Alt/GUI) in HID report {data.hex(' ')}"
                )
            pressed.append(code)

        # All checks passed: apply the report.
        scans: list[str] = []
        text = list(self._text)
        for code in pressed:
            if code in (ENTER, KEYPAD_ENTER):
                if text:
                    scans.append("".join(text))
                text = []
                continue
            if len(text) >= self.max_length:
                raise BadReport(
                    f"scan longer than {self.max_length} characters without Enter: "
                    f"{''.join(text[:40])!r}..."
                )
            text.append(US_LAYOUT[code][1 if shifted else 0])
        self._text = text
        self._held = frozenset(keys)
        return scans

    def feed_all(self, reports: Iterable[Report]) -> list[str]:
        scans: list[str] = []
        for report in reports:
            scans.extend(self.feed(report))
        return scans


def _as_bytes(report: Report) -> bytes:
    try:
        return bytes(report)
    except (TypeError, ValueError) as exc:
        raise BadReport(f"HID report is not bytes: {report!r:.60}") from exc


_KEY_FOR: dict[str, tuple[int, bool]] = {}
for _code, (_plain, _shifted) in sorted(US_LAYOUT.items()):
    if 0x54 <= _code <= 0x67:
        continue  # type characters on the main block, as scanners do by default
    _KEY_FOR.setdefault(_plain, (_code, False))
    _KEY_FOR.setdefault(_shifted, (_code, True))
del _code, _plain, _shifted


def reports_for(text: str, *, enter: bool = True) -> list[bytes]:
    """The reports a US-layout scanner sends for `text`: press and release for each character,
    then Enter. For simulators and tests; raises ValueError for a character it cannot type."""
    reports: list[bytes] = []
    release = bytes(REPORT_LENGTH)
    for char in text:
        if char not in _KEY_FOR:
            raise ValueError(f"no US keyboard key types {char!r}")
        code, shifted = _KEY_FOR[char]
        reports.append(bytes([LEFT_SHIFT if shifted else 0, 0, code, 0, 0, 0, 0, 0]))
        reports.append(release)
    if enter:
        reports.append(bytes([0, 0, ENTER, 0, 0, 0, 0, 0]))
        reports.append(release)
    return reports
