"""A dying disk is not a damaged ledger (issue #29, item 8). A read that fails with EIO is a
storage failure, exit 3: "check the disk; do not restore yet", since a restore onto a failing
disk would bury what only this file holds. Only a file SQLite reads and finds corrupt is
"damaged", and once `verify` has found it so, no write is taken until it is restored. A ledger
emptied to 0 bytes is damaged too, never migrated as a new station."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pos.services.station import LEDGER_FILE
from tests.faults.dying_disk import build_shim, failing_reads
from tests.halls import ENV, Hall
from tests.test_damaged_storage import _root_page, _smash_page


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shim(tmp_path_factory.mktemp("eio"))


def _booth(env: dict[str, str], hall: Hall, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pos", "--hall", str(hall.directory), *args],
        env={**env, **ENV},
        capture_output=True,
        text=True,
        check=False,
    )


def _bad_sector_under(hall: Hall, table: str, shim: Path) -> dict[str, str]:
    ledger = hall.directory / LEDGER_FILE
    with sqlite3.connect(ledger) as conn:  # every page in the file, none left in the WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    page_size, root = _root_page(ledger, table)
    start = (root - 1) * page_size
    return failing_reads(shim, ledger, start, start + page_size)


def test_the_shim_fails_reads_of_its_range_only_and_sqlite_calls_it_malformed(
    selling: Hall, shim: Path
) -> None:
    env = _bad_sector_under(selling, "p_staff", shim)
    probe = (
        "import errno, os, sqlite3, sys\n"
        "path, start = sys.argv[1], int(os.environ['BOOTH_EIO_FROM'])\n"
        "fd = os.open(path, os.O_RDONLY)\n"
        "assert os.pread(fd, 100, 0)\n"
        "try:\n"
        "    os.pread(fd, 100, start)\n"
        "except OSError as e:\n"
        "    print(errno.errorcode[e.errno])\n"
        "try:\n"
        "    sqlite3.connect(path).execute('SELECT * FROM p_staff').fetchall()\n"
        "except sqlite3.Error as e:\n"
        "    print(e.sqlite_errorcode, e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(selling.directory / LEDGER_FILE)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    # SQLite turns the disk's EIO into SQLITE_CORRUPT (11): its words cannot tell them apart.
    assert out == ["EIO", "11 database disk image is malformed"], out


def test_verify_on_a_dying_disk_exits_3_and_says_check_the_disk_not_restore(
    selling: Hall, shim: Path
) -> None:
    env = _bad_sector_under(selling, "p_staff", shim)
    result = _booth(env, selling, "verify")
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "check the disk" in result.stderr and "do not restore yet" in result.stderr
    assert "damaged" not in result.stderr and "restore the station" not in result.stderr
    assert "Traceback" not in result.stderr
    assert not (selling.directory / (LEDGER_FILE + ".damaged")).exists()
    # The disk recovered (a reseated card): the same file verifies, nothing was lost.
    assert selling("verify").exit_code == 0


def test_a_write_on_a_dying_disk_exits_3_and_records_nothing(selling: Hall, shim: Path) -> None:
    count = selling.count()
    env = _bad_sector_under(selling, "events", shim)
    result = _booth(env, selling, "sell", "A123456", "--qty", "1")
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "check the disk" in result.stderr and "do not restore yet" in result.stderr
    assert "damaged" not in result.stderr
    assert selling.count() == count


def test_writes_stop_on_a_file_verify_found_malformed(selling: Hall) -> None:
    count = selling.count()
    _smash_page(selling.directory / LEDGER_FILE, "p_disbursements")  # no sale touches it
    assert selling("verify").exit_code == 4
    for command in (("sell", "A123456", "--qty", "1"), ("session", "close")):
        result = selling(*command)
        assert result.exit_code == 3, (command, result.stdout, result.stderr)
        assert "damaged" in result.stderr and "verify" in result.stderr
    with sqlite3.connect(selling.directory / LEDGER_FILE) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == count
    conn.close()


@pytest.mark.parametrize("command", [("session", "open"), ("staff", "list"), ("verify",)])
def test_a_ledger_emptied_to_0_bytes_is_damaged_never_a_new_station(
    hall: Hall, command: tuple[str, ...]
) -> None:
    for name in (LEDGER_FILE + "-wal", LEDGER_FILE + "-shm"):
        (hall.directory / name).unlink(missing_ok=True)
    (hall.directory / LEDGER_FILE).write_bytes(b"")
    result = hall(*command)
    assert result.exit_code in (3, 4), (command, result.stdout, result.stderr)
    assert "0 bytes" in result.stderr and "backup" in result.stderr, result.stderr
    assert (hall.directory / LEDGER_FILE).stat().st_size == 0  # nothing migrated into it
