"""Nicknames from a maintained data set (the `nicknames` package: Bob for Robert, Bill for
William, Peggy for Margaret), handed to the pure name matching of pos.domain.names."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nicknames import NickNamer


@lru_cache(maxsize=1)
def _namer() -> NickNamer:
    # imported here: the package reads its version through importlib.metadata (10 ms), and
    # only a buyer checked against the roster needs it, not every `booth` command
    from nicknames import NickNamer

    return NickNamer()  # reads the CSV shipped inside the package: no network


@lru_cache(maxsize=4096)
def related(a: str, b: str) -> bool:
    """Whether one first name (folded: lower case letters) is a nickname of the other."""
    if not a or not b or a == b:
        return False
    namer = _namer()
    return b in namer.nicknames_of(a) or b in namer.canonicals_of(a)
