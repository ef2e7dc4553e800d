"""Hypothesis strategies for the domain tests: valid flares, JSON-ish junk."""

from __future__ import annotations

from hypothesis import strategies as st

from pos.domain.flare import Flare, GameType, PrizeTier, SealTerms, Supplier
from pos.domain.money import MAX_AMOUNT

cents = st.integers(min_value=1, max_value=MAX_AMOUNT)


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_TEXT_CHARS = _ALNUM + " .,&'#/-éßØΩ€№\u3042"


def _text(limit: int) -> st.SearchStrategy[str]:
    return (
        st.text(_TEXT_CHARS, min_size=1, max_size=min(limit, 40))
        .map(lambda text: " ".join(text.split()))
        .filter(bool)
    )


def _code(alphabet: str) -> st.SearchStrategy[str]:
    return st.builds(
        lambda first, rest: first + rest,
        st.sampled_from(alphabet),
        st.text(alphabet + "-", max_size=31),
    )


serials = _code("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
ticket_numbers = _code(_ALNUM)
tiers = st.builds(PrizeTier, amount=cents, count=st.integers(min_value=1, max_value=10_000_000))
seals = st.builds(
    SealTerms,
    lines=st.integers(min_value=1, max_value=10_000),
    prize=cents,
    progressive=st.booleans(),
    hold_tickets=st.lists(ticket_numbers, min_size=1, max_size=4, unique=True).map(tuple),
)


@st.composite
def flares(draw: st.DrawFn) -> Flare:
    game = draw(st.sampled_from(GameType))
    seal = None if game is GameType.PULL_TAB else draw(st.none() | seals)
    return Flare(
        serial=draw(serials),
        game=game,
        name=draw(_text(120)),
        form=draw(_text(120)),
        manufacturer=draw(_text(120)),
        tickets=draw(st.integers(min_value=1, max_value=10_000_000)),
        price=draw(st.integers(min_value=0, max_value=MAX_AMOUNT)),
        prizes=tuple(draw(st.lists(tiers, min_size=1, max_size=6))),
        supplier=Supplier(name=draw(_text(120)), address=draw(_text(200))),
        invoice=draw(_text(64)),
        seal=seal,
        sheet_and_seal_present=draw(st.booleans()),
        tampered=draw(st.booleans()),
    )


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
