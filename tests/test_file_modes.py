"""The station's files do not depend on the umask (issue #16, item 7): the station directory
0710 (the group passes through to control.sock, nothing more), tls/ 0700, the ledger and its
-wal and -shm 0600, and backups the same."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pos.services.station import Station
from tests.conftest import TRAINING_NOW, run_booth

ENV = {"BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "M1"}


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _check_station(directory: Path) -> None:
    assert _mode(directory) == 0o710, directory
    assert _mode(directory / "tls") == 0o700
    for name in ("ledger.db", "ledger.db-wal", "ledger.db-shm", "station.key", "tls/key.pem"):
        path = directory / name
        if path.exists():
            assert _mode(path) == 0o600, (name, oct(_mode(path)))
    assert (directory / "ledger.db").exists()


def test_a_hall_a_joined_station_a_backup_and_a_restore_under_umask_000(
    tmp_path: Path, open_umask: None
) -> None:
    manager = tmp_path / "manager"
    done = run_booth(
        "--hall", str(manager), "init", "--org", "Test Fire Company", "--location", "1 Test Road",
        "--time-zone", "America/New_York", "--training", env=ENV,
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    added = run_booth(
        "--hall", str(manager), "staff", "add", "--name", "Mary Manager", "--badge", "M1",
        "--role", "manager", "--dob", "1970-01-01", env=ENV,
    )  # fmt: skip
    assert added.exit_code == 0, added.stderr
    _check_station(manager)
    with Station(manager, environ=ENV):  # an open station: its -wal and -shm are there
        assert (manager / "ledger.db-wal").exists() and (manager / "ledger.db-shm").exists()
        _check_station(manager)

    bundle = tmp_path / "booth-1.join.json"
    made = run_booth(
        "--hall", str(manager), "station", "add", "booth-1", "--role", "booth", "--out",
        str(bundle), env=ENV,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    booth = tmp_path / "booth-1"
    joined = run_booth("--hall", str(booth), "join", str(bundle), env=ENV)
    assert joined.exit_code == 0, joined.stderr
    _check_station(booth)

    sticks = tmp_path / "stick"
    sticks.mkdir()
    backed = run_booth("--hall", str(manager), "backup", str(sticks), "--json", env=ENV)
    assert backed.exit_code == 0, backed.stderr
    folder = Path(backed.json["path"])
    assert _mode(folder) == 0o700 and _mode(folder / "tls") == 0o700  # the backup's folder
    for path in folder.rglob("*"):
        if path.is_file():
            assert _mode(path) == 0o600, path

    restored_dir = tmp_path / "restored"
    restored = run_booth("--hall", str(restored_dir), "restore", str(folder), env=ENV)
    assert restored.exit_code == 0, restored.stderr
    _check_station(restored_dir)
