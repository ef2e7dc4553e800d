"""Pulling what another ledger holds and this one lacks, by per-origin high-water marks.

The same pull the LAN sync runs over HTTP, here between two open ledgers (the demo, tests, and a
ledger copied from a dead station's disk). Every event goes through the apply path.
"""

from __future__ import annotations

from pos.ledger import Ledger, heads


def high_water_marks(ledger: Ledger) -> dict[str, int]:
    return heads.high_water_marks(ledger.conn)


def pull(source: Ledger, target: Ledger, *, batch: int = 1000) -> int:
    """Apply to `target` every event of `source` it lacks; returns how many were new."""
    have = high_water_marks(target)
    copied = 0
    for origin, last in sorted(high_water_marks(source).items()):
        after = have.get(origin, 0)
        while after < last:
            events = source.origin_events_after(origin, after, batch)
            if not events:
                break
            with target.transaction():
                for event in events:
                    if target.apply(event):
                        copied += 1
            after = events[-1].seq
    return copied
