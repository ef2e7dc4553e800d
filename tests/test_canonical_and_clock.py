from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos.domain import hlc
from pos.domain.canonical import NotCanonical, canonical_json, event_digest

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(json_values)
def test_canonical_json_is_a_fixed_point(value: object) -> None:
    import json

    text = canonical_json(value)
    assert canonical_json(json.loads(text)) == text


@given(st.dictionaries(st.text(), st.integers(), min_size=2))
def test_canonical_json_ignores_key_order(value: dict[str, int]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert canonical_json(reordered) == canonical_json(value)


def test_floats_have_no_canonical_form() -> None:
    with pytest.raises(NotCanonical, match="integer cents"):
        canonical_json({"amount": 1.5})


def test_digest_covers_every_envelope_field() -> None:
    base = ("booth-1", 3, "TicketsSold", "0000000000001.00000", "ab" * 32, '{"q":1}')
    digests = {event_digest(*base)}
    for i in range(len(base)):
        changed = list(base)
        changed[i] = changed[i] + 1 if isinstance(changed[i], int) else changed[i] + "x"
        digests.add(event_digest(*changed))  # type: ignore[arg-type]
    assert len(digests) == len(base) + 1


@given(st.lists(st.integers(min_value=-5_000, max_value=5_000), min_size=1, max_size=200))
def test_stamps_only_move_forward_whatever_the_wall_clock_does(jumps: list[int]) -> None:
    now = datetime(2026, 11, 28, tzinfo=UTC)
    last = None
    for jump in jumps:
        now += timedelta(milliseconds=jump)
        stamp = hlc.tick(last, now)
        assert last is None or stamp > last
        assert str(stamp) > str(last) if last else True
        assert hlc.Stamp.parse(str(stamp)) == stamp
        last = stamp


@pytest.mark.parametrize("text", ["", "12.3", "0000000000001-00000", "000000000000a.00000"])
def test_bad_stamps_do_not_parse(text: str) -> None:
    with pytest.raises(ValueError):
        hlc.Stamp.parse(text)
