"""The console script's use of the cyclic collector (pos.cli.entry): paused while the core is
imported, frozen after, and on for the command itself, which may be a long-lived `booth serve`."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Iterator

import pytest

import pos.cli.main
from pos.cli import entry


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def run_here(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    """entry.main with the command replaced by one that records what it met."""
    seen: dict[str, object] = {}

    def command(argv: list[str]) -> None:
        seen["collector on"] = gc.isenabled()
        seen["frozen"] = gc.get_freeze_count()
        garbage = _Cycle()
        seen["garbage"] = weakref.ref(garbage)
        del garbage

    monkeypatch.setattr(pos.cli.main, "main", command)
    monkeypatch.setattr(sys, "argv", ["booth", "--help"])  # --help always runs here
    try:
        yield seen
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_command_runs_with_the_collector_on_and_the_imports_frozen(
    run_here: dict[str, object],
) -> None:
    entry.main()
    assert run_here["collector on"] is True
    assert isinstance(run_here["frozen"], int) and run_here["frozen"] > 0
    assert gc.isenabled()


def test_what_the_command_left_in_cycles_is_collected_before_the_freeze(
    run_here: dict[str, object],
) -> None:
    entry.main()
    garbage = run_here["garbage"]
    assert isinstance(garbage, weakref.ref)
    assert garbage() is None, "a cycle the command dropped was frozen, not collected"
