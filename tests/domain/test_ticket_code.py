from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos.domain.ticket_code import InvalidTicketCode, TicketCode, decode


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A123456", TicketCode("A123456")),
        ("a123456/0042", TicketCode("A123456", "0042")),
        ("A123456/0042/10000", TicketCode("A123456", "0042", 10000)),
        ("  LS-40/7/500\r\n", TicketCode("LS-40", "7", 500)),
        (b"A1/1/100", TicketCode("A1", "1", 100)),
    ],
)
def test_default_format(text: str | bytes, expected: TicketCode) -> None:
    assert decode(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "A123456/",
        "A123456//100",
        "A1/x",
        "A1/1/0",
        "/A1",
        "A1/1/100/5",
        "A\x07B",
        "Ä1",
        "x" * 200,
        b"\xff\xfe",
    ],
)
def test_garbled_scans_are_the_codecs_own_error(text: str | bytes) -> None:
    with pytest.raises(InvalidTicketCode):
        decode(text)


@given(st.binary(max_size=300))
def test_decoding_any_bytes_never_raises_anything_else(data: bytes) -> None:
    try:
        code = decode(data)
    except InvalidTicketCode:
        return
    assert decode(str(code)) == code


@given(st.text(max_size=300))
def test_decoding_any_text_never_raises_anything_else(text: str) -> None:
    with contextlib.suppress(InvalidTicketCode):
        decode(text)


def test_manufacturer_codecs_plug_in_ahead_of_the_default() -> None:
    def fixed_width(text: str) -> TicketCode | None:
        if len(text) == 16 and text.isdigit():
            return TicketCode(f"FW{text[:7]}", text[7:11], int(text[11:]))
        return None

    codecs = [fixed_width, *__import__("pos.domain.ticket_code").domain.ticket_code.CODECS]
    assert decode("1234567004210000", codecs) == TicketCode("FW1234567", "0042", 10000)
    assert decode("A1/2", codecs) == TicketCode("A1", "2")
