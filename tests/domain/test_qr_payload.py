from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nacl.signing import SigningKey

from pos.domain import qr_payload
from pos.domain.qr_payload import InvalidPayload, Payload

KEY = SigningKey(b"k" * 32)


def sign(message: bytes) -> bytes:
    return bytes(KEY.sign(message).signature)


payloads = st.builds(
    Payload,
    hall=st.from_regex(r"[a-z0-9]{8}", fullmatch=True),
    station=st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True),
    number=st.integers(1, 10**9),
    kind=st.sampled_from(sorted(qr_payload.KIND_CODES)),
    amount=st.integers(0, 10**8),
    time=st.integers(0, 2**40),
)


@given(payloads)
def test_round_trip_and_size(payload: Payload) -> None:
    text = qr_payload.encode(payload, sign)
    decoded, message, signature = qr_payload.decode(text)
    assert decoded == payload
    KEY.verify_key.verify(message, signature)
    assert len(text) <= 160, "must stay small enough for a 58 mm printer"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello",
        "B1.a.b",
        "B2.abc.booth-1.1.s.64.abc." + "A" * 86,
        "B1.abc.booth-1.1.s.64.abc." + "A" * 85,
        "B1.ABC.booth-1.1.s.64.abc." + "A" * 86,
        "B1.abc.booth-1.01.s.64.abc." + "A" * 86,
        "B1.abc.booth-1.1.x.64.abc." + "A" * 86,
    ],
)
def test_malformed_codes_are_invalid(text: str) -> None:
    with pytest.raises(InvalidPayload):
        qr_payload.decode(text)


@given(st.one_of(st.text(max_size=500), st.binary(max_size=500)))
def test_decoding_anything_never_raises_anything_else(data: str | bytes) -> None:
    with contextlib.suppress(InvalidPayload):
        qr_payload.decode(data)
