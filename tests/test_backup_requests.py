"""A backup carries no answers kept for request ids (issue #29, item 12f): a restored station
answers a retry from the events it holds, never with text kept on another timeline, and never
does the request twice."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.conftest import TRAINING_NOW, run_booth
from tests.halls import Hall

ENV = {"BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "M1"}


def _requests(ledger: Path) -> list[tuple[str, str | None, int | None, int | None, str | None]]:
    conn = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        return [
            (str(r[0]), r[1], r[2], r[3], r[4])
            for r in conn.execute(
                "SELECT request_id, origin, last_seq, exit_code, answer FROM requests "
                "ORDER BY request_id"
            )
        ]
    finally:
        conn.close()


def _sales(ledger: Path) -> int:
    conn = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        return int(
            conn.execute("SELECT count(*) FROM events WHERE type = 'TicketsSold'").fetchone()[0]
        )
    finally:
        conn.close()


def test_a_backup_keeps_claims_but_no_answers_and_a_retry_after_restore_is_not_redone(
    selling: Hall, tmp_path: Path
) -> None:
    station = selling.directory
    sold = run_booth(
        "--hall", str(station), "sell", "A123456", "--qty", "2", "--request-id", "till-1", env=ENV
    )  # fmt: skip
    assert sold.exit_code == 0, sold.stderr
    refused = run_booth(
        "--hall", str(station), "sell", "A123456", "--qty", "99999", "--request-id", "till-2",
        env=ENV,
    )  # fmt: skip
    assert refused.exit_code in (1, 2), refused
    held = {row[0]: row for row in _requests(station / "ledger.db")}
    assert held["till-1"][4] is not None, "the station keeps its answer"

    stick = tmp_path / "stick"
    stick.mkdir()
    made = run_booth("--hall", str(station), "backup", str(stick), "--json", env=ENV)
    assert made.exit_code == 0, made.stderr
    folder = Path(json.loads(made.stdout)["path"])
    on_stick = _requests(folder / "ledger.db")
    # Claims stay (their events are in the backup), without their answers; the refusal, which
    # recorded nothing, is not carried.
    assert [r[0] for r in on_stick if r[0].startswith("till-")] == ["till-1"], on_stick
    assert all(r[3] is None and r[4] is None for r in on_stick), on_stick
    assert b"Sold 2" not in (folder / "ledger.db").read_bytes(), "not in free pages either"

    target = tmp_path / "restored"
    back = run_booth("restore", str(folder), "--hall", str(target), "--json", env=ENV)
    assert back.exit_code == 0, back.stderr
    assert "till-1" in [r[0] for r in _requests(target / "ledger.db")]
    finished = run_booth("--hall", str(target), "sync", "finish-restore", env=ENV)
    assert finished.exit_code == 0, finished.stderr

    before = _sales(target / "ledger.db")
    retry = run_booth(
        "--hall", str(target), "sell", "A123456", "--qty", "2", "--request-id", "till-1", env=ENV
    )  # fmt: skip
    assert retry.exit_code == 0, retry.stderr
    assert "done before" in retry.stderr and "manager:" in retry.stderr, retry
    assert retry.stdout != sold.stdout, "answered from the events, not the kept text"
    assert _sales(target / "ledger.db") == before, "not sold twice"
