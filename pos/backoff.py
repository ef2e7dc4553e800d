"""Retrying with exponential backoff and full jitter: one rule for every retry Booth makes (a peer
that failed, the head office while it fails, a scanner that is unplugged).

After `failures` failures in a row, the next try waits a random time in [0, bound], where the
bound doubles with each failure from `base` up to `cap`. The jitter spreads the stations of a hall
that lost the same peer (or the head office) at the same moment, so they do not all come back
together. Pure: the random source is passed in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MAX_DOUBLINGS = 10  # past this many failures the bound stops growing (and never overflows)


@dataclass(frozen=True)
class Backoff:
    base: float  # the bound after the first failure is twice this
    cap: float  # no bound above this
    max_doublings: int = MAX_DOUBLINGS

    def __post_init__(self) -> None:
        if self.base < 0 or self.cap < 0 or self.max_doublings < 0:
            raise ValueError(f"a backoff needs base, cap and doublings >= 0: {self}")

    def bound(self, failures: int) -> float:
        """The longest wait after `failures` failures in a row (0 after none)."""
        if failures <= 0:
            return 0.0
        return float(min(self.cap, self.base * 2 ** min(failures, self.max_doublings)))

    def next_delay(self, failures: int, rng: random.Random) -> float:
        """How long to wait before the next try: uniform in [0, bound(failures)]."""
        bound = self.bound(failures)
        return min(bound, rng.uniform(0.0, bound)) if bound > 0 else 0.0


class Retrying:
    """One thing retried on its own (a scanner reconnecting): the bound after each failure in a
    row, without jitter, as there is no crowd of retries to spread; reset once it works."""

    def __init__(self, initial: float, maximum: float) -> None:
        if initial <= 0 or maximum < initial:
            raise ValueError(f"bad backoff {initial}..{maximum}")
        self.initial = initial
        self.maximum = maximum
        self._rule = Backoff(base=initial / 2, cap=maximum)
        self._failures = 0

    def next(self) -> float:
        self._failures += 1
        return self._rule.bound(self._failures)

    def reset(self) -> None:
        self._failures = 0
