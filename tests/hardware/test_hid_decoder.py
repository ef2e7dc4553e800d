"""The boot-keyboard codec on its own: literal reports from the HID Usage Tables, and hypothesis."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.scanner.base import ScannerError
from hardware.scanner.hid import US_LAYOUT, BadReport, HidDecoder, reports_for

RELEASE = bytes(8)
LSHIFT, RSHIFT, LCTRL, RALT = 0x02, 0x20, 0x01, 0x40


def key(code: int, modifiers: int = 0) -> bytes:
    return bytes([modifiers, 0, code, 0, 0, 0, 0, 0])


def test_letters_digits_and_symbols_per_the_usage_tables() -> None:
    decoder = HidDecoder()
    reports = [
        key(0x04),  # a
        key(0x1D),  # z
        key(0x1E),  # 1
        key(0x27),  # 0
        key(0x2D),  # -
        key(0x38),  # /
        key(0x37),  # .
        key(0x2C),  # space
        key(0x04, LSHIFT),  # A
        key(0x1D, RSHIFT),  # Z
        key(0x1F, LSHIFT),  # @
        key(0x38, LSHIFT),  # ?
        key(0x2D, RSHIFT),  # _
        key(0x2E, LSHIFT),  # +
        key(0x59),  # keypad 1
        key(0x62),  # keypad 0
        key(0x56),  # keypad -
        key(0x28),  # Enter
    ]
    scans = []
    for report in reports:
        scans += decoder.feed(report) + decoder.feed(RELEASE)
    assert scans == ["az10-/. AZ@?_+10-"]


def test_keypad_enter_ends_a_scan_and_an_empty_scan_is_none() -> None:
    decoder = HidDecoder()
    assert decoder.feed(key(0x28)) == []
    assert decoder.feed_all([key(0x1E), RELEASE, key(0x58), RELEASE]) == ["1"]


def test_shift_sent_as_a_modifier_keycode_also_shifts() -> None:
    decoder = HidDecoder()
    with_shift_key = bytes([0, 0, 0xE1, 0x04, 0, 0, 0, 0])  # LeftShift usage in the key array
    assert decoder.feed_all([with_shift_key, RELEASE, key(0x28)]) == ["A"]


def test_rollover_a_held_key_is_typed_once() -> None:
    decoder = HidDecoder()
    held = bytes([0, 0, 0x04, 0, 0, 0, 0, 0])
    both = bytes([0, 0, 0x04, 0x05, 0, 0, 0, 0])
    assert decoder.feed_all([held, held, both, both, RELEASE, key(0x28)]) == ["ab"]


def test_two_keys_pressed_in_one_report_are_typed_in_report_order() -> None:
    decoder = HidDecoder()
    assert decoder.feed_all([bytes([0, 0, 0x05, 0x04, 0, 0, 0, 0]), RELEASE, key(0x28)]) == ["ba"]


@pytest.mark.parametrize(
    ("report", "fragment"),
    [
        (bytes(7), "7 bytes"),
        (bytes(9), "9 bytes"),
        (b"", "0 bytes"),
        (key(0x3A), "unknown keycode 0x3a"),  # F1
        (key(0x29), "unknown keycode 0x29"),  # Escape
        (bytes([0, 0, 1, 1, 1, 1, 1, 1]), "ErrorRollOver"),
        (key(0x02), "POSTFail"),
        (key(0x04, LCTRL), "Ctrl/Alt/GUI"),
        (key(0x04, RALT), "modifiers 0x40"),
    ],
)
def test_bad_reports_raise_the_codec_error_naming_the_value(report: bytes, fragment: str) -> None:
    decoder = HidDecoder()
    decoder.feed_all([key(0x04), RELEASE])
    with pytest.raises(BadReport, match=fragment) as raised:
        decoder.feed(report)
    assert isinstance(raised.value, ScannerError)
    assert decoder.pending == "a"  # a bad report changes nothing...
    assert decoder.reset() == "a"  # ...until the caller discards the scan
    assert decoder.pending == ""


def test_a_report_that_is_not_bytes_is_a_bad_report() -> None:
    with pytest.raises(BadReport):
        HidDecoder().feed([0, 0, 300, 0, 0, 0, 0, 0])


def test_an_endless_scan_is_cut_off() -> None:
    decoder = HidDecoder(max_length=3)
    decoder.feed_all(reports_for("abc", enter=False))
    with pytest.raises(BadReport, match="longer than 3"):
        decoder.feed(key(0x07))


TYPEABLE = sorted({c for pair in US_LAYOUT.values() for c in pair})


@settings(deadline=None)
@given(st.text(alphabet=TYPEABLE, min_size=1, max_size=60))
def test_what_a_us_keyboard_types_decodes_back(text: str) -> None:
    assert HidDecoder().feed_all(reports_for(text)) == [text]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(min_size=8, max_size=8),  # well-formed lengths, any content
            st.binary(max_size=20),  # any length
            st.sampled_from([RELEASE, key(0x28), key(0x04, LSHIFT), key(0x58)]),
        ),
        max_size=40,
    )
)
def test_any_bytes_in_any_reports_raise_nothing_but_bad_report(chunks: list[bytes]) -> None:
    decoder = HidDecoder()
    for chunk in chunks:
        try:
            scans = decoder.feed(chunk)
        except BadReport:
            decoder.reset()
            continue
        for scan in scans:
            assert scan and isinstance(scan, str)
            assert "\n" not in scan and "\r" not in scan


@settings(deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(min_value=0, max_value=400), max_size=30))
def test_a_byte_string_split_anywhere_raises_nothing_but_bad_report(
    data: bytes, cuts: list[int]
) -> None:
    decoder = HidDecoder()
    bounds = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    for start, end in itertools.pairwise(bounds):
        try:
            decoder.feed(data[start:end])
        except BadReport:
            decoder.reset()
