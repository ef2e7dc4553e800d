"""Progress on long operations: the services call an optional `progress(done, total)` and know
nothing of terminals; the CLI draws a bar on stderr only when it is a terminal, never with
--json, and never into a captured (forwarded or kept) answer."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import click
import pytest

from pos.cli import capture
from pos.cli.common import CliState
from pos.cli.progress import progress_bar
from pos.ledger.verify import verify
from pos.services import backup, export, replicate, roster, sales
from pos.services.station import Station
from tests.halls import Hall, flare

Calls = list[tuple[int, int]]


def recorder() -> tuple[Calls, Callable[[int, int], None]]:
    calls: Calls = []
    return calls, lambda done, total: calls.append((done, total))


def _finished(calls: Calls, total: int) -> None:
    assert calls, "progress was never told"
    assert calls[-1] == (total, total)
    dones = [done for done, _ in calls]
    assert dones == sorted(dones) and all(0 <= d <= t for d, t in calls)


def test_rebuild_verify_export_and_backup_tell_their_progress(
    station: Station, tmp_path: Path
) -> None:
    events = station.ledger.count()
    calls, progress = recorder()
    assert station.ledger.rebuild(progress=progress) == events
    _finished(calls, events)
    calls, progress = recorder()
    assert verify(station.ledger, progress=progress).ok
    _finished(calls, events)
    calls, progress = recorder()
    export.export_inspector(station, tmp_path / "export", operator="M1", progress=progress)
    _finished(calls, 2 * events)
    calls, progress = recorder()
    made = backup.backup(
        station.directory, tmp_path, now=datetime(2026, 11, 28, tzinfo=UTC), progress=progress
    )
    _finished(calls, events)
    calls, progress = recorder()
    backup.restore(Path(made["path"]), tmp_path / "restored", progress=progress)
    _finished(calls, events)


def test_a_roster_import_tells_the_shifts_recorded(station: Station, tmp_path: Path) -> None:
    rows = ["name,date_of_birth,badge,organisation,date,start,end,duty"]
    rows += [
        f"Person {n},1980-01-01,B{n},Test Fire Company,2026-11-28,17:00,23:00,sell"
        for n in range(1200)
    ]
    path = tmp_path / "roster.csv"
    path.write_text("\n".join(rows) + "\n")
    calls, progress = recorder()
    result = roster.import_roster(station, path, operator="M1", progress=progress)
    _finished(calls, result["imported"])


def test_a_pull_between_ledgers_tells_the_events_taken_in(hall: Hall, tmp_path: Path) -> None:
    assert hall.receive(flare()).exit_code == 0
    assert hall("deal", "open", "A123456", "--bin", "drawer-1").exit_code == 0
    assert hall("session", "open").exit_code == 0
    with Station(hall.directory) as st:
        for _ in range(3):
            sales.sell(st, "A123456", qty=1, operator="S1")
        made = backup.backup(st.directory, tmp_path, now=datetime(2026, 11, 28, tzinfo=UTC))
    copy = tmp_path / "copy"
    backup.restore(Path(made["path"]), copy)
    with Station(hall.directory) as st:
        sales.sell(st, "A123456", qty=1, operator="S1")
        with Station(copy) as other:
            calls, progress = recorder()
            assert replicate.pull(st.ledger, other.ledger, batch=1, progress=progress) == 1
    assert calls[-1] == (1, 1)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_with_bar(monkeypatch: pytest.MonkeyPatch, stream: io.StringIO, *, as_json: bool) -> None:
    monkeypatch.setattr("sys.stderr", stream)
    ctx = click.Context(click.Command("x"), obj=CliState(hall=Path("."), json=as_json))
    with progress_bar(ctx, "Working") as progress:
        if progress is not None:
            for done in range(0, 101, 25):
                progress(done, 100)


def test_the_bar_is_drawn_only_on_a_terminal_and_never_with_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    terminal = FakeTerminal()
    run_with_bar(monkeypatch, terminal, as_json=False)
    assert "Working" in terminal.getvalue() and "100/100" in terminal.getvalue()
    for stream, as_json in ((FakeTerminal(), True), (io.StringIO(), False)):
        run_with_bar(monkeypatch, stream, as_json=as_json)
        assert stream.getvalue() == ""


def test_a_captured_command_draws_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command run for a client of the owner: its stderr is captured, not a terminal."""
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", capture.Routed(terminal, "stderr"))  # type: ignore[arg-type]
    ctx = click.Context(click.Command("x"), obj=CliState(hall=Path("."), json=False))
    with capture.capturing() as captured, progress_bar(ctx, "Working") as progress:
        assert progress is None
    assert captured.stderr.getvalue() == "" and terminal.getvalue() == ""
