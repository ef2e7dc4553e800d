"""Damaged storage is found and reported (issue #16, item 8): SQLite's integrity check in
`booth verify` (exit 4), writes to a malformed file refused (exit 3, saying how to restore),
`rebuild` refusing a ledger that fails verification, `verify --deep` comparing every projection
with a fresh rebuild, and a deleted ledger never made anew."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from pos.services.station import LEDGER_FILE
from tests.halls import Hall


def _root_page(path: Path, table: str) -> tuple[int, int]:
    conn = sqlite3.connect(path)
    try:
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        root = int(
            conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[
                0
            ]
        )
    finally:
        conn.close()
    return page_size, root


def _smash_page(path: Path, table: str) -> None:
    """Garbage over the root page of `table`, as a failing SD card leaves it."""
    page_size, root = _root_page(path, table)
    with path.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(bytes((i * 37 + 11) % 256 for i in range(page_size)))


def _shell(hall: Hall) -> sqlite3.Connection:
    conn = sqlite3.connect(hall.directory / LEDGER_FILE, isolation_level=None)
    conn.execute("DROP TRIGGER events_append_only_update")
    conn.execute("DROP TRIGGER events_append_only_delete")
    return conn


def test_verify_reports_a_malformed_file_as_exit_4(hall: Hall) -> None:
    _smash_page(hall.directory / LEDGER_FILE, "p_staff")
    result = hall("verify")
    assert result.exit_code == 4, (result.stdout, result.stderr)
    assert "damaged" in result.stderr and "Traceback" not in result.stderr
    assert "backup-and-restore" in result.stderr
    as_json = hall("verify", "--json")
    assert as_json.exit_code == 4


def test_a_write_to_a_malformed_file_is_refused_with_exit_3_saying_how_to_restore(
    hall: Hall,
) -> None:
    _smash_page(hall.directory / LEDGER_FILE, "events")
    result = hall("session", "open")
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert "damaged" in result.stderr and "restore" in result.stderr
    assert "backup-and-restore.md" in result.stderr and "Traceback" not in result.stderr
    assert hall("verify").exit_code == 4


def test_rebuild_refuses_a_ledger_that_fails_verification(hall: Hall) -> None:
    conn = _shell(hall)
    try:
        body = json.loads(
            conn.execute(
                "SELECT body FROM events WHERE type = 'StaffAdded' AND seq = 3"
            ).fetchone()[0]
        )
        body["roles"] = ["manager"]  # Sam Seller made a manager, by editing the log
        conn.execute(
            "UPDATE events SET body = ? WHERE type = 'StaffAdded' AND seq = 3",
            (json.dumps(body, sort_keys=True, separators=(",", ":")),),
        )
    finally:
        conn.close()
    result = hall("rebuild")
    assert result.exit_code == 4, (result.stdout, result.stderr)
    assert "edited" in result.stderr and "nothing was rebuilt" in result.stderr
    staff = {s["badge"]: s["roles"] for s in hall("staff", "list", "--json").json}
    assert staff["S1"] == ["redeemer", "seller"], "the tampered body was not projected"


def test_verify_deep_finds_rows_deleted_from_a_projection(selling: Hall) -> None:
    assert selling("verify", "--deep").exit_code == 0
    conn = sqlite3.connect(selling.directory / LEDGER_FILE, isolation_level=None)
    try:
        conn.execute("DELETE FROM p_staff WHERE badge = 'S1'")
    finally:
        conn.close()
    assert selling("verify").exit_code == 0, "the log itself is intact"
    deep = selling("verify", "--deep")
    assert deep.exit_code == 4, (deep.stdout, deep.stderr)
    assert "p_staff differs from a rebuild of the log: 1 row(s) missing" in deep.stderr
    assert selling("rebuild").exit_code == 0
    assert selling("verify", "--deep").exit_code == 0


def test_a_deleted_ledger_exits_3_and_creates_nothing(hall: Hall) -> None:
    for name in (LEDGER_FILE, LEDGER_FILE + "-wal", LEDGER_FILE + "-shm"):
        (hall.directory / name).unlink(missing_ok=True)
    for command in (("session", "open"), ("staff", "list"), ("verify",)):
        result = hall(*command)
        assert result.exit_code == 3, (command, result.stderr)
        assert "the ledger is missing: restore it (docs/backup-and-restore.md)" in result.stderr
        assert not (hall.directory / LEDGER_FILE).exists()
