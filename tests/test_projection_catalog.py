"""pos.ledger.projections lists each projection by where it is defined and the kinds of event
it takes, and stands for all of them with one FINGERPRINT, so that a command imports only the
projections it needs. This keeps the list true."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import pos.ledger.projections as catalog
from pos.ledger.projections import ALL, FINGERPRINT, Listed, Projection, ProjectionSet
from pos.ledger.projections.base import fingerprint_of


def test_the_fingerprint_stands_for_every_projection_as_it_is() -> None:
    actual = fingerprint_of(ALL.projections)
    assert actual == FINGERPRINT, (
        f"a projection's name, version or schema changed: write FINGERPRINT = {actual!r} in "
        "pos/ledger/projections/__init__.py (every station rebuilds its projections once)"
    )


def test_every_projection_defined_is_listed_once() -> None:
    defined = set()
    for module in pkgutil.iter_modules(catalog.__path__):
        loaded = importlib.import_module(f"{catalog.__name__}.{module.name}")
        defined |= {id(v) for v in vars(loaded).values() if isinstance(v, Projection)}
    listed = [id(p) for p in ALL.projections]
    assert len(listed) == len(set(listed))
    assert defined == set(listed), "a projection defined in pos/ledger/projections is not listed"


def test_a_projection_listed_with_other_kinds_than_it_takes_fails_as_it_loads() -> None:
    from pos.ledger.projections.cash import CASH

    wrong = Listed(lambda: CASH, frozenset({"DrawerCounted", "Other"}))
    with pytest.raises(TypeError, match=r"cash takes kinds \['DrawerCounted'\].*listed as taking"):
        ProjectionSet([wrong]).tables()


def test_a_listed_projection_is_imported_by_the_first_event_it_takes() -> None:
    code = (
        "import sys\n"
        "from pos.ledger.projections import ALL\n"
        "names = ('pos.ledger.projections.deals', 'pos.ledger.projections.bingo_paper')\n"
        "print(*(name in sys.modules for name in names))\n"
        "ALL._handlers('TicketsSold')\n"
        "print(*(name in sys.modules for name in names))\n"
        "ALL._handlers('PaperSold')\n"
        "print(*(name in sys.modules for name in names))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False False", "True False", "True True"]
