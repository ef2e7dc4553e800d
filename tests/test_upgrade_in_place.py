"""Upgrading in place (issue #27): a hall made by release 0.1.0 (tests/data/release-0.1.0, made
with that release's own code) opened by this one. Nothing is lost (the digest, the figures, an
old backup), reads and `verify` work before any rebuild, the rebuild runs once and says so,
a command sent while the owner starts waits for it, and old file modes are tightened."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import tarfile
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pos.cli import client, owner_start
from pos.cli.control import ControlServer
from pos.ledger.projections import ALL
from pos.ledger.store import Ledger
from pos.services.station import Station
from pos.services.worker import StationWorker
from tests.conftest import run_booth

FIXTURE = Path(__file__).parent / "data" / "release-0.1.0"
LATER = "2026-12-05T16:00:00+00:00"  # when release 0.1.0 printed its figures
ENV = {"BOOTH_NOW": LATER, "BOOTH_OPERATOR": "M100"}  # the demo hall's manager
STATIONS = ("manager", "booth-1", "kiosk-1")
DAYS = ("2026-11-28", "2026-11-29")


def _figures() -> dict[str, Any]:
    figures: dict[str, Any] = json.loads((FIXTURE / "figures.json").read_text())
    assert figures["release"] == "0.1.0"
    return figures


@pytest.fixture
def hall(tmp_path: Path) -> Path:
    """The fixture's stations, copied; their folders 0755 and ledgers 0644, as a station set
    up before 0.1.0 kept them (and as a copy out of git would be)."""
    with tarfile.open(FIXTURE / "stations.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data")
    for name in STATIONS:
        os.chmod(tmp_path / "hall" / name, 0o755)
        for file in (tmp_path / "hall" / name).glob("ledger.db*"):
            os.chmod(file, 0o644)
    return tmp_path / "hall"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stored_fingerprint(ledger: Path) -> str:
    conn = sqlite3.connect(ledger)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'projections'").fetchone()
    finally:
        conn.close()
    return str(row[0])


def _json(station: Path, *args: str) -> Any:
    done = run_booth("--hall", str(station), *args, "--json", env=ENV)
    assert done.exit_code == 0, (args, done.stderr)
    return json.loads(done.stdout)


def _same_figures(station: Path, recorded: dict[str, Any]) -> None:
    """What this release prints of the station equals what 0.1.0 printed: every figure that
    release gave (this release may add keys of its own)."""
    for day in DAYS:
        report = _json(station, "report", "day", "--date", day)
        old = recorded["report_day"][day]
        assert {key: report.get(key) for key in old} == old, (station.name, day)
    shown = _json(station, "deal", "show", "A100001")
    assert {key: shown.get(key) for key in recorded["deal_show"]} == recorded["deal_show"]
    verified = _json(station, "verify")
    assert verified["digest"] == recorded["verify"]["digest"]
    assert verified["origins"] == recorded["verify"]["origins"]


def test_verify_and_reads_work_before_any_rebuild_and_leave_the_file_as_it_was(
    hall: Path,
) -> None:
    recorded = _figures()["stations"]
    for name in STATIONS:
        station = hall / name
        before = _digest(station / "ledger.db")
        assert _stored_fingerprint(station / "ledger.db") != ALL.fingerprint  # not rebuilt yet

        verified = run_booth("--hall", str(station), "verify", env=ENV)
        assert verified.exit_code == 0, verified.stderr
        assert recorded[name]["verify"]["digest"][:16] in verified.stdout
        assert "rebuild" not in verified.stderr  # verify reads the log alone: nothing to say

        report = run_booth("--hall", str(station), "report", "day", "--date", DAYS[0], env=ENV)
        assert report.exit_code == 0, report.stderr
        assert "gross $133.50  prizes $7.00  net $126.50" in report.stdout
        # the read says what makes it fast again, naming the command
        assert f"'booth --hall {station} rebuild'" in report.stderr
        _same_figures(station, recorded[name])

        assert _digest(station / "ledger.db") == before  # a read wrote nothing
        assert _stored_fingerprint(station / "ledger.db") != ALL.fingerprint


def test_booth_rebuild_as_the_first_command_rebuilds_once(
    hall: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rebuilds: list[int] = []
    original = Ledger.rebuild

    def counted(self: Ledger, **kwargs: Any) -> int:
        count = original(self, **kwargs)
        if self.path is not None:  # the file's (a read's copy in memory has none)
            rebuilds.append(count)
        return count

    monkeypatch.setattr(Ledger, "rebuild", counted)
    station = hall / "manager"
    done = run_booth("--hall", str(station), "rebuild", env=ENV)
    assert done.exit_code == 0, done.stderr
    assert done.stdout.strip() == "Rebuilt projections from 92 events."
    assert rebuilds == [92]
    assert _stored_fingerprint(station / "ledger.db") == ALL.fingerprint
    again = run_booth("--hall", str(station), "rebuild", env=ENV)  # asked again: it rebuilds
    assert again.exit_code == 0, again.stderr
    assert rebuilds == [92, 92]


def test_after_the_upgrade_the_figures_and_digest_are_0_1_0s_and_no_rule_judges_falsely(
    hall: Path,
) -> None:
    recorded = _figures()["stations"]
    for name in STATIONS:
        station = hall / name
        done = run_booth("--hall", str(station), "rebuild", env=ENV)
        assert done.exit_code == 0, done.stderr
        _same_figures(station, recorded[name])
    manager = hall / "manager"
    day = _json(manager, "report", "day", "--date", DAYS[0])
    assert day["unpunched"] == []  # both winners were punched under 0.1.0
    due = _json(manager, "deposit", "list")
    overdue = {d["session"] for d in due["due"] if d["overdue"]}
    # 2026-11-28/1 was deposited under 0.1.0; 2026-11-29/1 never was (0.1.0 said so too)
    assert overdue == {"2026-11-29/1"}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_opening_an_upgraded_station_to_write_tightens_the_modes_an_older_release_left(
    hall: Path,
) -> None:
    station = hall / "booth-1"
    assert _mode(station) == 0o755 and _mode(station / "ledger.db") == 0o644
    read = run_booth("--hall", str(station), "verify", env=ENV)
    assert read.exit_code == 0, read.stderr
    assert _mode(station / "ledger.db") == 0o644  # a read changes nothing
    with Station(station, environ=ENV):  # the station opened to write, as its owner does
        assert _mode(station) == 0o710
        for name in ("ledger.db", "ledger.db-wal", "ledger.db-shm", "station.key"):
            assert _mode(station / name) == 0o600, name
        assert _mode(station / "tls") == 0o700


def test_a_backup_release_0_1_0_made_restores_and_verifies(hall: Path, tmp_path: Path) -> None:
    (backup,) = (hall.parent / "backups").iterdir()
    target = tmp_path / "restored"
    done = run_booth("--hall", str(target), "restore", str(backup), env=ENV)
    assert done.exit_code == 0, done.stderr
    manifest = json.loads((backup / "manifest.json").read_text())
    verified = _json(target, "verify")
    assert verified["digest"] == manifest["digest"]
    assert _mode(target / "ledger.db") == 0o600 and _mode(target) == 0o710


# --- the owner starting -----------------------------------------------------------------------


def _waits_on(path: Path, done: Future[Any]) -> None:
    """Until some process or thread waits for the lock on `path` (a blocked flock shows in
    /proc/locks as '->'), or `done` ended first."""
    inode = f":{path.stat().st_ino} "
    deadline = time.monotonic() + 30
    while not done.done():
        with open("/proc/locks") as locks:
            if any("->" in line and inode in line for line in locks):
                return
        assert time.monotonic() < deadline, f"nothing waited on {path}"
        time.sleep(0.02)


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=1) as executor:
        yield executor


def test_a_command_sent_while_the_owner_starts_waits_for_it_and_is_answered_by_it(
    hall: Path, pool: ThreadPoolExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOOTH_NOW", LATER)
    monkeypatch.setenv("BOOTH_OPERATOR", "M100")  # the client's badge travels with the command
    station = hall / "manager"
    args = ["--hall", str(station), "report", "day", "--date", DAYS[0]]
    with owner_start.starting(station):  # an owner has taken the station, not yet listening
        sent: Future[client.Result] = pool.submit(
            client.forward, station, args, "upgrade-wait-1", explicit_id=False
        )
        _waits_on(owner_start.starting_path(station), sent)
        assert not sent.done(), sent.exception() or sent.result()
        worker = StationWorker(lambda: Station(station, environ=ENV), name="test-owner")
        control = ControlServer(station, worker)
        try:
            control.start()
        except BaseException:
            worker.stop()
            raise
    try:
        answer = sent.result(timeout=60)
        assert answer.exit_code == 0, answer.stderr
        assert "gross $133.50  prizes $7.00  net $126.50" in answer.stdout
        assert "stop it first" not in answer.stderr
    finally:
        control.stop()
        worker.stop()


def test_a_command_waits_for_a_starting_owner_only_so_long(
    hall: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    station = hall / "kiosk-1"
    monkeypatch.setattr(owner_start, "START_WAIT", 0.05)
    with (
        owner_start.starting(station),
        pytest.raises(client.ControlRefused, match=r"has been starting for 0\.05 seconds"),
    ):
        client.forward(station, ["report", "day"], "upgrade-wait-2", explicit_id=False)
    # nobody starting: the command runs here, at once
    with pytest.raises(client.RunHere):
        client.forward(station, ["report", "day"], "upgrade-wait-3", explicit_id=False)


@pytest.mark.slow
def test_the_first_start_rebuilds_once_and_says_so_in_its_log(hall: Path) -> None:
    from tests.live.owners import booth, owner

    station = hall / "booth-1"
    with owner(station, "serve", "--port", "0", "--no-discovery", env=ENV) as log:
        shown = booth(station, "report", "day", "--date", DAYS[0], env=ENV)
        assert shown.exit_code == 0, shown.stderr
        assert "gross $133.50" in shown.stdout
        text = log.read_text()
    lines = [line for line in text.splitlines() if "rebuilding the projections" in line]
    assert lines == ["rebuilding the projections another version of Booth made: 92 of 92 events"], (
        text
    )
    assert _stored_fingerprint(station / "ledger.db") == ALL.fingerprint
    assert _mode(station) == 0o710 and _mode(station / "ledger.db") == 0o600
