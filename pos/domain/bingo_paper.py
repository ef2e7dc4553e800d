"""A session's bingo paper reconciled by audit number (REGULATION.md: paper reconciled per
session; the session reconciliation form, 11VAC20-20-90): pure, from the movements recorded.

Every movement of a sheet in the session is in the arithmetic the form prints:

    closing = opening + received - sold + returned - voided

A sheet sold, handed back and sold again counts twice as sold and once as returned, so the
columns add up however often paper moved; each column is counted in movements, and its audit
numbers are shown as ranges.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

KINDS = ("received", "sold", "returned", "voided")
_SIGN = {"received": 1, "sold": -1, "returned": 1, "voided": -1}


@dataclass(frozen=True)
class PaperMove:
    """One sheet moved: received into stock, sold, returned to stock or voided."""

    kind: str
    audit: int
    session: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in _SIGN:
            raise ValueError(f"a paper movement is one of {', '.join(KINDS)}, not {self.kind!r}")


@dataclass(frozen=True)
class PaperFigures:
    opening: frozenset[int]
    moved: dict[str, tuple[int, ...]]  # kind -> the audit numbers moved, once per movement
    closing: frozenset[int]
    out_of_line: tuple[int, ...]  # sheets whose movements do not leave them in or out of stock

    @property
    def adds_up(self) -> bool:
        c = self.counts()
        total = c["opening"] + c["received"] - c["sold"] + c["returned"] - c["voided"]
        return not self.out_of_line and total == c["closing"]

    def counts(self) -> dict[str, int]:
        return {
            "opening": len(self.opening),
            **{kind: len(self.moved[kind]) for kind in KINDS},
            "closing": len(self.closing),
        }


def paper_figures(opening: Iterable[int], moves: Iterable[PaperMove]) -> PaperFigures:
    """The session's figures: `opening` (in stock as it opened) and its movements, in any order.
    A sheet is in the closing stock when its movements leave it in stock (net one)."""
    start = frozenset(opening)
    moved: dict[str, list[int]] = {kind: [] for kind in KINDS}
    net: Counter[int] = Counter({audit: 1 for audit in start})
    for move in moves:
        moved[move.kind].append(move.audit)
        net[move.audit] += _SIGN[move.kind]
    return PaperFigures(
        opening=start,
        moved={kind: tuple(sorted(audits)) for kind, audits in moved.items()},
        closing=frozenset(audit for audit, n in net.items() if n == 1),
        out_of_line=tuple(sorted(audit for audit, n in net.items() if n not in (0, 1))),
    )


def stock_after(moves: Iterable[PaperMove]) -> frozenset[int]:
    """The sheets in stock after `moves` (all of a series' movements up to a moment)."""
    return paper_figures((), moves).closing
