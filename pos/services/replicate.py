"""Pulling what another ledger holds and this one lacks, by per-origin high-water marks.

The same pull the LAN sync runs over HTTP, here between two open ledgers (the demo, tests, and a
ledger copied from a dead station's disk). Every event goes through the apply path.
"""

from __future__ import annotations

from pos.ledger import Event, Ledger


def high_water_marks(ledger: Ledger) -> dict[str, int]:
    return {
        origin: int(seq)
        for origin, seq in ledger.conn.execute("SELECT origin, last_seq FROM origin_heads")
    }


def pull(source: Ledger, target: Ledger, *, batch: int = 1000) -> int:
    """Apply to `target` every event of `source` it lacks; returns how many were new."""
    have = high_water_marks(target)
    copied = 0
    for origin, last in sorted(high_water_marks(source).items()):
        after = have.get(origin, 0)
        while after < last:
            rows = source.conn.execute(
                "SELECT origin, seq, type, hlc, prev, body, hash, sig FROM events "
                "WHERE origin = ? AND seq > ? ORDER BY seq LIMIT ?",
                (origin, after, batch),
            ).fetchall()
            if not rows:
                break
            with target.transaction():
                for row in rows:
                    if target.apply(Event(*row)):
                        copied += 1
            after = rows[-1][1]
    return copied
