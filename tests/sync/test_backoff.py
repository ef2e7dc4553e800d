"""The one retry rule of sync (pos/backoff.py): exponential backoff with full jitter, capped."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pos.backoff import MAX_DOUBLINGS, Backoff
from sync.service import PEER_BACKOFF, upstream_backoff

bases = st.floats(min_value=0.0, max_value=3600.0, allow_nan=False)
caps = st.floats(min_value=0.0, max_value=86_400.0, allow_nan=False)
failures = st.integers(min_value=0, max_value=10_000)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@given(base=bases, cap=caps, failed=failures, seed=seeds)
def test_a_delay_is_within_zero_and_the_cap(
    base: float, cap: float, failed: int, seed: int
) -> None:
    backoff = Backoff(base=base, cap=cap)
    delay = backoff.next_delay(failed, random.Random(seed))
    assert 0.0 <= delay <= backoff.bound(failed) <= cap


@given(base=bases, cap=caps, failed=failures)
def test_the_bound_never_decreases_with_more_failures(base: float, cap: float, failed: int) -> None:
    backoff = Backoff(base=base, cap=cap)
    assert backoff.bound(failed) <= backoff.bound(failed + 1)


@given(base=st.floats(min_value=0.001, max_value=100.0), failed=st.integers(1, MAX_DOUBLINGS))
def test_the_bound_doubles_from_the_base_until_the_cap(base: float, failed: int) -> None:
    backoff = Backoff(base=base, cap=float("inf"))
    assert backoff.bound(failed) == base * 2**failed
    assert backoff.bound(failed + 100) == base * 2**MAX_DOUBLINGS


@given(base=bases, cap=caps, seed=seeds)
def test_no_failure_no_wait(base: float, cap: float, seed: int) -> None:
    assert Backoff(base=base, cap=cap).next_delay(0, random.Random(seed)) == 0.0


def test_the_delays_are_spread_over_the_whole_range() -> None:
    """Full jitter: stations that lost the same peer together do not come back together."""
    backoff = Backoff(base=1.0, cap=60.0)
    rng = random.Random(7)
    delays = [backoff.next_delay(3, rng) for _ in range(2000)]
    assert min(delays) < 0.5 and max(delays) > 7.5
    assert 3.6 < sum(delays) / len(delays) < 4.4  # uniform on [0, 8]


def test_the_services_backoffs_keep_their_bounds() -> None:
    """A peer: 2, 4, ... 60 s; the head office: 2, 4, ... times the interval up to 15 minutes
    (or the interval, if longer)."""
    assert [PEER_BACKOFF.bound(n) for n in (1, 2, 5, 6, 50)] == [2, 4, 32, 60, 60]
    upstream = upstream_backoff(60.0)
    assert [upstream.bound(n) for n in (1, 2, 3, 4, 99)] == [120, 240, 480, 900, 900]
    assert upstream_backoff(0.2).bound(99) == 0.2 * 2**MAX_DOUBLINGS
    assert upstream_backoff(3600.0).bound(5) == 3600.0


def test_a_negative_setting_is_refused() -> None:
    with pytest.raises(ValueError):
        Backoff(base=-1.0, cap=1.0)
