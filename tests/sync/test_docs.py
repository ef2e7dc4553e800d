"""Events as CouchDB documents: the server's hand-built JSON text is the same document."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos.domain.canonical import canonical_json
from pos.ledger.events import Event
from sync import docs
from sync.errors import BadDocument

texts = st.text(max_size=40)
bodies = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


@given(
    origin=texts.filter(bool),
    seq=st.integers(min_value=1, max_value=10**12 - 1),
    kind=texts,
    stamp=texts,
    body=st.dictionaries(texts, bodies, max_size=6),
    digest=st.binary(min_size=32, max_size=32),
    sig=texts,
)
def test_doc_json_is_to_doc(
    origin: str, seq: int, kind: str, stamp: str, body: dict, digest: bytes, sig: str
) -> None:
    event = Event(origin, seq, kind, stamp, "0" * 64, canonical_json(body), digest.hex(), sig)
    assert json.loads(docs.doc_json(event)) == docs.to_doc(event)
    assert docs.from_doc(json.loads(docs.doc_json(event))) == event


def test_quoted_escapes_what_json_must() -> None:
    for text in ['a"b', "back\\slash", "line\nbreak", "\x00", "é€😀"]:
        assert json.loads(docs.quoted(text)) == text


def test_a_seq_outside_what_an_id_can_spell_is_refused() -> None:
    event = Event("booth-1", 1, "Tick", "0", "0" * 64, "{}", "0" * 64, "")
    for seq in (0, -1, 10**12, True, 1.0, "1"):
        doc = json.loads(docs.doc_json(event)) | {"seq": seq}
        del doc["_id"]
        with pytest.raises(BadDocument, match="seq"):
            docs.from_doc(doc)
