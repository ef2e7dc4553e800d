"""A station restored from an older backup does not fork the hall (issue #29, item 2).

Three stations run as processes (`booth serve`), every command is a `booth` process beside them.
The restored station (the manager, or a booth) had recorded events after its backup, which a
peer pulled. Restored, it records nothing until a sync brought them back; its peers notice its
feed went backwards and start over; no sequence, receipt or voucher number is issued twice, and
every station ends with the same digest.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TRAINING_NOW
from tests.live.owners import Ran, booth, owner
from tests.sync.conftest import build_hall, free_port

pytestmark = pytest.mark.slow
ENV = {"BOOTH_NOW": TRAINING_NOW}
SERVE = ("serve", "--no-discovery", "--interval", "3600")


def run(hall: Path, *args: str) -> Ran:
    return booth(hall, *args, env=ENV)


def ok(hall: Path, *args: str) -> Any:
    ran = run(hall, *args, "--json")
    assert ran.exit_code == 0, (args, ran.stdout, ran.stderr)
    return json.loads(ran.stdout)


class Hall:
    """The stations, each with its owner running on a port of its own."""

    def __init__(self, root: Path) -> None:
        built = build_hall(root, ["booth-1", "booth-2"])
        self.dirs = built.stations
        self.ports = {name: free_port() for name in self.dirs}
        self.owners: dict[str, ExitStack] = {}

    def url(self, name: str) -> str:
        return f"https://127.0.0.1:{self.ports[name]}"

    def start(self, name: str) -> None:
        stack = ExitStack()
        stack.enter_context(
            owner(self.dirs[name], *SERVE, "--port", str(self.ports[name]), env=ENV)
        )
        self.owners[name] = stack

    def stop(self, name: str) -> None:
        self.owners.pop(name).close()

    def pull(self, name: str, *peers: str) -> list[dict[str, Any]]:
        args = [arg for peer in peers for arg in ("--peer", self.url(peer))]
        result: list[dict[str, Any]] = ok(self.dirs[name], "sync", "now", *args)
        assert all("error" not in r and not r["refused"] for r in result), result
        return result

    def sync_all(self) -> None:
        for name in self.dirs:
            self.pull(name, *[other for other in self.dirs if other != name])

    def sell(self, name: str) -> Ran:
        return run(self.dirs[name], "sell", f"D-{name.upper()}", "--qty", "1", "--as", "S1")


@contextmanager
def running(root: Path) -> Iterator[Hall]:
    hall = Hall(root)
    try:
        for name in hall.dirs:
            hall.start(name)
        yield hall
    finally:
        for name in list(hall.owners):
            hall.stop(name)


def numbers(ledger: Path) -> Iterator[tuple[tuple[str, str, int], str]]:
    """Every number issued, as ((kind, origin, number), the hash of the event that issued it):
    sequence, receipt and voucher numbers."""
    conn = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        for origin, seq, body_json, event_hash in conn.execute(
            "SELECT origin, seq, body, hash FROM events"
        ):
            body = json.loads(body_json)
            yield ("seq", origin, seq), event_hash
            for kind in ("receipt", "voucher_number"):
                if isinstance(body.get(kind), int):
                    yield (kind, origin, body[kind]), event_hash
    finally:
        conn.close()


@pytest.mark.parametrize(("restored", "puller"), [("booth-1", "manager"), ("manager", "booth-1")])
def test_a_station_restored_from_an_older_backup_catches_up_before_it_records(
    tmp_path: Path, restored: str, puller: str
) -> None:
    with running(tmp_path) as hall:
        hall.sync_all()
        target = hall.dirs[restored]
        stick = tmp_path / "stick"
        stick.mkdir()
        backed_up = ok(target, "backup", str(stick))["path"]

        # Five more events after the backup, which one peer pulls (the third does not).
        receipts = [ok(target, "sell", f"D-{restored.upper()}", "--qty", "1", "--as", "S1")
                    for _ in range(4)]  # fmt: skip
        voucher = ok(target, "voucher", "issue", "2.00", "--as", "S1")
        lost_end = ok(target, "verify")["origins"][restored]["last_seq"]
        assert hall.pull(puller, restored)[0]["applied"] == 5

        # The others are down while it comes back, so it cannot catch up before the checks
        # below (its owner pulls from its listed peers as soon as it starts).
        for name in list(hall.owners):
            hall.stop(name)
        shutil.move(target, tmp_path / f"{restored}.dead")
        restore = run(target, "restore", backed_up, "--json")
        assert restore.exit_code == 0, restore.stderr
        assert json.loads(restore.stdout)["catching_up"] is True
        hall.start(restored)

        # Restored: it records nothing until it caught up, and says why.
        refused = hall.sell(restored)
        assert refused.exit_code == 3, (refused.stdout, refused.stderr)
        assert "restored from a backup" in refused.stderr, refused.stderr
        assert "sync" in refused.stderr, refused.stderr
        status = ok(target, "sync", "status")
        assert status["restored"]["catching_up"] is True, status

        # The peer that was past the restored station's end notices and starts over.
        [again] = hall.pull(puller, restored)
        assert again["restarted"], again
        assert "went back" in again["restarted"], again
        [after] = hall.pull(puller, restored)
        assert not after["restarted"], "once started over, the checkpoint is right again"

        # A sync with its peers brings its own events back; then it records again.
        for name in hall.dirs:
            if name != restored:
                hall.start(name)
        hall.pull(restored, *[name for name in hall.dirs if name != restored])
        assert ok(target, "verify")["origins"][restored]["last_seq"] == lost_end
        assert ok(target, "sync", "status")["restored"]["catching_up"] is False
        sale = ok(target, "sell", f"D-{restored.upper()}", "--qty", "1", "--as", "S1")
        lost = [key for key, _ in numbers(tmp_path / f"{restored}.dead" / "ledger.db")]
        last_receipt = max(
            n for kind, origin, n in lost if kind == "receipt" and origin == restored
        )
        assert last_receipt > receipts[-1]["receipt"], "the voucher took a receipt number too"
        assert sale["receipt"] == last_receipt + 1, "numbers go on, never re-issued"
        again_voucher = ok(target, "voucher", "issue", "3.00", "--as", "S1")
        assert voucher["voucher"] == last_receipt, "a voucher's number is its receipt's"
        assert again_voucher["voucher"] == sale["receipt"] + 1

        hall.sync_all()
        hall.sync_all()
        digests = {}
        for name, directory in hall.dirs.items():
            verified = run(directory, "verify", "--json")
            assert verified.exit_code == 0, (name, verified.stdout, verified.stderr)
            digests[name] = json.loads(verified.stdout)["digest"]
            forks = [
                e for e in ok(directory, "exception", "list", "--as", "M1") if e["kind"] == "fork"
            ]
            assert forks == [], (name, forks)
        assert len(set(digests.values())) == 1, digests

    # A number is one event's, wherever it is held: the same number under two different events
    # (a re-issued one) would show as two hashes.
    issued: dict[tuple[str, str, int], set[str]] = {}
    for directory in hall.dirs.values():
        for key, event_hash in numbers(directory / "ledger.db"):
            issued.setdefault(key, set()).add(event_hash)
    twice = {key: hashes for key, hashes in issued.items() if len(hashes) > 1}
    assert twice == {}, twice
    for name, directory in hall.dirs.items():
        report = ok(directory, "report", "day", "--date", "2026-11-28", "--as", "M1")
        assert report, name
