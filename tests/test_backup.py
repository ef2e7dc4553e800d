"""Backups to a stick or a path, and restores that verify or leave nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pos.cli.backup import backup, restore
from pos.cli.main import cli
from pos.ledger.keys import StationKey
from pos.services.station import LEDGER_FILE, Station
from tests.conftest import TRAINING_NOW, Result, run_booth
from tests.halls import Hall

ROOT = Path(__file__).resolve().parent.parent

# Until pos/cli/main.py lists them in COMMANDS (then this is a no-op).
for _command in (backup, restore):
    if _command.name not in cli.commands:
        cli.add_command(_command)

# The same, for a `booth` run in a child process.
CHILD_BOOTH = (
    "import sys\n"
    "from pos.cli.backup import backup, restore\n"
    "from pos.cli.main import cli, main\n"
    "for c in (backup, restore):\n"
    "    cli.commands.setdefault(c.name, c)\n"
    "main(sys.argv[1:])\n"
)

KEYS = ("station.key", "hall.key", "player.secret")


@pytest.fixture
def sold(selling: Hall) -> Hall:
    """A hall with a deal in play, a session open and two sales."""
    for qty in ("3", "2"):
        assert selling("sell", "A123456", "--qty", qty).exit_code == 0
    return selling


def _backup(hall_dir: Path, dest: Path) -> Result:
    return run_booth("--hall", str(hall_dir), "backup", str(dest), "--json")


def _restore(source: Path, target: Path) -> Result:
    return run_booth("restore", str(source), "--hall", str(target), "--json")


def _verify(directory: Path) -> Any:
    result = run_booth("--hall", str(directory), "verify", "--json")
    assert result.exit_code == 0, result.stderr
    return result.json


def _made(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.mkdir()
    return path


def test_round_trip_verifies_with_the_same_digest(sold: Hall, tmp_path: Path) -> None:
    stick = _made(tmp_path, "stick")
    before = _verify(sold.directory)

    made = _backup(sold.directory, stick)
    assert made.exit_code == 0, made.stderr
    folder = Path(made.json["path"])
    assert folder.parent == stick and folder.name.startswith("booth-backup-")
    assert made.json["digest"] == before["digest"]
    assert made.json["events"] == sum(o["events"] for o in before["origins"].values())
    # Keys and everything else on the stick: owner only.
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.rglob("*"):
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert {p.name for p in folder.iterdir()} >= {"ledger.db", "station.json", *KEYS}
    assert not list(folder.glob("ledger.db-*"))  # one self-contained file, no WAL
    assert not list(stick.glob("*.partial"))

    target = tmp_path / "restored"
    back = _restore(folder, target)
    assert back.exit_code == 0, back.stderr
    assert back.json["digest"] == before["digest"]
    assert back.json["station"] == "manager"
    after = _verify(target)
    assert after["digest"] == before["digest"] and after["origins"] == before["origins"]
    for name in KEYS:
        assert (target / name).read_bytes() == (sold.directory / name).read_bytes()
        assert stat.S_IMODE((target / name).stat().st_mode) == 0o600
    assert json.loads((target / "station.json").read_text()) == json.loads(
        (sold.directory / "station.json").read_text()
    )
    # The restored station works: same projections. It sells again once it has caught up; a
    # hall of one station has no peer to catch up from, so the manager ends it.
    with Station(sold.directory) as old, Station(target) as new:
        assert new.ledger.projection_rows() == old.ledger.projection_rows()
    env = {"BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "M1"}
    sell = ("--hall", str(target), "sell", "A123456", "--qty", "1")
    waiting = run_booth(*sell, env=env)
    assert waiting.exit_code == 3 and "restored from a backup" in waiting.stderr, waiting
    finished = run_booth("--hall", str(target), "sync", "finish-restore", "--json", env=env)
    assert finished.exit_code == 0, finished.stderr
    again = run_booth(*sell, env=env)
    assert again.exit_code == 0, again.stderr


def test_a_backup_is_consistent_while_the_station_writes(hall_dir: Path, tmp_path: Path) -> None:
    """The station process holds its lock and appends all the while; backups still verify."""
    stick = _made(tmp_path, "stick")
    stop = threading.Event()
    appended: list[int] = []
    errors: list[BaseException] = []

    def station_at_work() -> None:
        try:
            with Station(hall_dir, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
                while not stop.is_set() or len(appended) < 20:
                    st.append("BackupProbe", {"n": len(appended)})
                    appended.append(1)
        except BaseException as exc:  # reported below
            errors.append(exc)

    worker = threading.Thread(target=station_at_work)
    worker.start()
    try:
        counts = []
        for _ in range(3):
            made = _backup(hall_dir, stick)
            assert made.exit_code == 0, made.stderr
            counts.append(made.json["events"])
    finally:
        stop.set()
        worker.join()
    assert not errors
    assert counts == sorted(counts)
    assert len(list(stick.iterdir())) == 3
    # Each copy verified as it was made; each restores.
    for n, folder in enumerate(sorted(stick.iterdir())):
        assert _restore(folder, tmp_path / f"r{n}").exit_code == 0


def test_the_ledger_keeps_its_owner_when_root_backs_it_up(hall_dir: Path, tmp_path: Path) -> None:
    """A read-only reader leaves -wal/-shm files beside a WAL ledger; made by root next to a
    station run by `booth`, they would lock the station out of its own ledger. (SQLite itself
    gives them the database file's owner when it runs as root.)"""
    owner = 4242 if os.geteuid() == 0 else os.geteuid()
    for path in [hall_dir, *hall_dir.iterdir()]:
        os.chown(path, owner, owner)
    assert _backup(hall_dir, _made(tmp_path, "stick")).exit_code == 0
    journals = list(hall_dir.glob(f"{LEDGER_FILE}-*"))
    assert journals  # SQLite left them: the test sees the case it is about
    assert {(p.stat().st_uid, p.stat().st_gid) for p in journals} == {(owner, owner)}


def _tamper_event(folder: Path) -> None:
    conn = sqlite3.connect(folder / LEDGER_FILE, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER IF EXISTS events_append_only_update")
        conn.execute(
            "UPDATE events SET body = replace(body, 'Test Fire Company', 'Test Fire Compamy') "
            "WHERE seq = 1"
        )
        assert conn.total_changes == 1
    finally:
        conn.close()


def _reseal(folder: Path, *names: str) -> None:
    """What a careful forger does next: make the manifest's checksums match again."""
    import hashlib

    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for name in names:
        data = (folder / name).read_bytes()
        manifest["files"][name]["sha256"] = hashlib.sha256(data).hexdigest()
    manifest_path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("resealed", [False, True], ids=["checksum", "verify"])
def test_a_tampered_backup_is_refused_and_leaves_nothing(
    hall_dir: Path, tmp_path: Path, resealed: bool
) -> None:
    made = _backup(hall_dir, _made(tmp_path, "stick"))
    folder = Path(made.json["path"])
    _tamper_event(folder)
    if resealed:
        _reseal(folder, LEDGER_FILE)

    new_dir = tmp_path / "new"
    refused = _restore(folder, new_dir)
    assert refused.exit_code == 4, refused.stderr
    assert ("does not verify" if resealed else "SHA-256") in refused.stderr
    assert not new_dir.exists()

    empty = _made(tmp_path, "empty")
    assert _restore(folder, empty).exit_code == 4
    assert list(empty.iterdir()) == []


def test_a_backup_with_another_station_key_is_refused(hall_dir: Path, tmp_path: Path) -> None:
    folder = Path(_backup(hall_dir, _made(tmp_path, "stick")).json["path"])
    (folder / "station.key").write_text(StationKey.generate().to_hex() + "\n")
    _reseal(folder, "station.key")
    refused = _restore(folder, tmp_path / "new")
    assert refused.exit_code == 4 and "not the key the hall certified" in refused.stderr
    assert not (tmp_path / "new").exists()


def test_restore_refuses_a_directory_that_is_not_empty(hall_dir: Path, tmp_path: Path) -> None:
    folder = Path(_backup(hall_dir, _made(tmp_path, "stick")).json["path"])
    busy = _made(tmp_path, "busy")
    (busy / "notes.txt").write_text("keep me")
    refused = _restore(folder, busy)
    assert refused.exit_code == 2 and "not empty" in refused.stderr
    assert [p.name for p in busy.iterdir()] == ["notes.txt"]
    # Nor over a live station.
    assert _restore(folder, hall_dir).exit_code == 2


def test_missing_or_garbled_backups_are_bad_input(hall_dir: Path, tmp_path: Path) -> None:
    stick = _made(tmp_path, "stick")
    folder = Path(_backup(hall_dir, stick).json["path"])

    nothing = _restore(tmp_path / "no-such-backup", tmp_path / "a")
    assert nothing.exit_code == 2
    which = _restore(stick, tmp_path / "b")  # the stick, not one backup on it
    assert which.exit_code == 2 and folder.name in which.stderr

    garbled = tmp_path / "garbled"
    shutil.copytree(folder, garbled)
    (garbled / "manifest.json").write_text("{not json")
    assert _restore(garbled, tmp_path / "c").exit_code == 2

    not_a_ledger = tmp_path / "not-a-ledger"
    shutil.copytree(folder, not_a_ledger)
    (not_a_ledger / LEDGER_FILE).write_bytes(b"this is no database" * 100)
    _reseal(not_a_ledger, LEDGER_FILE)
    assert _restore(not_a_ledger, tmp_path / "d").exit_code == 2

    incomplete = tmp_path / "incomplete"
    shutil.copytree(folder, incomplete)
    (incomplete / "player.secret").unlink()
    assert _restore(incomplete, tmp_path / "e").exit_code == 2
    assert not any((tmp_path / name).exists() for name in "abcde")

    assert _backup(hall_dir, tmp_path / "unplugged-stick").exit_code == 2


def _booth_in_a_mount(
    hall_dir: Path, mount: Path, options: str
) -> subprocess.CompletedProcess[str]:
    """`booth backup` onto a tmpfs mounted with `options`, in a private mount namespace
    (needs root: CI runs as root). Prints what the mount holds afterwards."""
    script = (
        f'mount -t tmpfs -o {options} booth-test "{mount}" || exit 99\n'
        f'"{sys.executable}" -c "$CHILD" --hall "{hall_dir}" backup "{mount}" --json\n'
        "code=$?\n"
        f'echo "left: $(ls -A "{mount}")"\n'
        "exit $code\n"
    )
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "CHILD": CHILD_BOOTH},
        timeout=60,
    )


def test_a_read_only_destination_is_a_storage_failure(hall_dir: Path, tmp_path: Path) -> None:
    dest = _made(tmp_path, "stick")
    if os.geteuid() != 0:
        dest.chmod(0o555)  # a developer's machine: no mounts, but permissions hold
        refused = _backup(hall_dir, dest)
        assert refused.exit_code == 3, refused.stderr
        assert list(dest.iterdir()) == []
        return
    # As root permissions do not stop a write: a stick mounted read-only does.
    ran = _booth_in_a_mount(hall_dir, dest, "ro,size=1m")
    assert ran.returncode == 3, ran.stdout + ran.stderr
    assert "read-only" in ran.stderr
    assert json.loads(ran.stdout.split("left:")[0])["exit"] == 3
    assert ran.stdout.rstrip().endswith("left:")


def test_a_full_destination_is_a_storage_failure_and_leaves_no_partial_backup(
    sold: Hall, tmp_path: Path
) -> None:
    if os.geteuid() != 0:
        pytest.skip("filling a file system needs a private tmpfs mount (root; CI runs as root)")
    dest = _made(tmp_path, "stick")
    size = (sold.directory / LEDGER_FILE).stat().st_size
    ran = _booth_in_a_mount(sold.directory, dest, f"size={size // 2}")
    assert ran.returncode == 3, ran.stdout + ran.stderr
    assert "full" in ran.stderr
    assert ran.stdout.rstrip().endswith("left:")  # the .partial folder was removed


def test_backup_needs_a_station(tmp_path: Path) -> None:
    refused = _backup(tmp_path / "nothing-here", _made(tmp_path, "stick"))
    assert refused.exit_code == 2 and "no station" in refused.stderr
