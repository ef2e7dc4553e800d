"""Bingo card faces: 5x5, B 1-15, I 16-30, N 31-45 (free centre), G 46-60, O 61-75.

A hall generates its faces from a series seed: face `serial` of a series is always the same
card, on every station and every run (SHA-256 driven, no `random` whose algorithm may change).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

COLUMNS = "BINGO"
FREE = 0  # the centre square
MAX_SERIAL = 10**9


class InvalidFace(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(f"face: {message}")
        self.field = "face"


@dataclass(frozen=True)
class Face:
    series: str
    serial: int
    columns: tuple[tuple[int, ...], ...]  # five columns of five numbers, FREE in the centre

    def rows(self) -> list[tuple[int, ...]]:
        return [tuple(column[row] for column in self.columns) for row in range(5)]

    def text_rows(self) -> list[tuple[str, ...]]:
        """Header and rows as printed: 'B  I  N  G  O', numbers right-aligned, FREE as 'FR'."""
        header = tuple(f"{letter:>2}" for letter in COLUMNS)
        body = [tuple("FR" if n == FREE else f"{n:>2}" for n in row) for row in self.rows()]
        return [header, *body]


def _stream(series: str, serial: int) -> bytes:
    """Enough deterministic bytes to shuffle five columns."""
    out = b""
    counter = 0
    while len(out) < 256:
        out += hashlib.sha256(f"{series}|{serial}|{counter}".encode()).digest()
        counter += 1
    return out


def face(series: str, serial: int) -> Face:
    if not series or len(series) > 64:
        raise InvalidFace(f"series {series!r} must be 1 to 64 characters")
    if not 1 <= serial <= MAX_SERIAL:
        raise InvalidFace(f"serial {serial} is outside 1..{MAX_SERIAL}")
    data = _stream(series, serial)
    position = 0
    columns = []
    for index in range(5):
        pool = list(range(index * 15 + 1, index * 15 + 16))
        picked = []
        for _ in range(5):
            choice = int.from_bytes(data[position : position + 2], "big") % len(pool)
            position += 2
            picked.append(pool.pop(choice))
        if index == 2:
            picked[2] = FREE
        columns.append(tuple(picked))
    return Face(series, serial, tuple(columns))


def is_valid(card: Face) -> bool:
    if len(card.columns) != 5 or any(len(column) != 5 for column in card.columns):
        return False
    for index, column in enumerate(card.columns):
        numbers = [n for n in column if not (index == 2 and n == FREE)]
        if index == 2 and column[2] != FREE:
            return False
        if len(set(numbers)) != len(numbers):
            return False
        if any(not index * 15 + 1 <= n <= index * 15 + 15 for n in numbers):
            return False
    return True
