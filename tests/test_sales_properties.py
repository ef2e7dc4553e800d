"""Property tests: whatever flare and whatever sales and closes, the books balance."""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pos.domain.flare import Flare, GameType, PrizeTier, Supplier
from pos.domain.money import parse_amount
from pos.errors import RuleRefused
from pos.services import current_session, deals, sales, sessions
from pos.services.station import Station
from tests.conftest import TRAINING_NOW

_serials = itertools.count(1)


@st.composite
def flares(draw: st.DrawFn) -> Flare:
    tickets = draw(st.integers(min_value=1, max_value=5000))
    tiers = draw(
        st.lists(
            st.tuples(st.integers(1, 200_000), st.integers(1, 50)),
            min_size=1,
            max_size=5,
            unique_by=lambda t: t[0],
        )
    )
    while len(tiers) > 1 and sum(count for _, count in tiers) > tickets:
        tiers.pop()
    if sum(count for _, count in tiers) > tickets:
        tiers = [(tiers[0][0], tickets)]
    return Flare(
        serial=f"P{next(_serials)}",
        game=GameType.PULL_TAB,
        name="Prop",
        form="F",
        manufacturer="M",
        tickets=tickets,
        price=draw(st.integers(1, 10_000)),
        prizes=tuple(PrizeTier(a, c) for a, c in tiers),
        supplier=Supplier("S", "A"),
        invoice="I",
    )


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(flare=flares(), orders=st.lists(st.integers(-5, 400), max_size=12), close=st.booleans())
def test_sold_plus_unsold_is_tickets_and_money_adds_up(
    hall_dir: Path, flare: Flare, orders: list[int], close: bool
) -> None:
    with Station(hall_dir, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        if current_session.open_session_now(st) is None:
            sessions.open_session(st, operator="M1")
        deals.receive_deal(st, flare, operator="M1")
        deals.open_deal(st, flare.serial, bin_name=f"bin-{flare.serial}", operator="M1")
        sold = 0
        for qty in orders:
            try:
                sales.sell(st, flare.serial, qty=max(qty, 1), operator="S1")
                sold += max(qty, 1)
            except RuleRefused as refusal:
                assert refusal.rule == "DEAL" and sold + max(qty, 1) > flare.tickets
        if close:
            deals.close_deal(
                st, flare.serial, unsold=flare.tickets - sold, operator="M1", note="offered"
            )
        shown = deals.deal_summary(st, flare.serial)

    assert shown["tickets_sold"] == sold
    assert shown["tickets_sold"] + shown["tickets_left"] == flare.tickets
    if close:
        assert shown["unsold"] + shown["tickets_sold"] == flare.tickets
    gross = parse_amount(shown["gross"], allow_zero=True)
    assert gross == sold * flare.price
    ideal_gross = parse_amount(shown["ideal_gross"], allow_zero=True)
    prizes = parse_amount(shown["total_prizes"], allow_zero=True)
    assert ideal_gross == flare.tickets * flare.price
    assert prizes == sum(t.amount * t.count for t in flare.prizes)
    ideal_net = shown["ideal_net"]
    negative = ideal_net.startswith("-")
    net = parse_amount(ideal_net.lstrip("-"), allow_zero=True) * (-1 if negative else 1)
    assert net == ideal_gross - prizes
