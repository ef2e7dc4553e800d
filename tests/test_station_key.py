"""A station opens only with its own key (issue #16, item 5): every command checks that
station.key is the key the hall certified for this station, and that the hall key verifies that
certificate; otherwise exit 4 before anything is written."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pos.errors import IntegrityFailure
from pos.services.station import Station
from tests.conftest import TRAINING_NOW, run_booth
from tests.halls import ENV, Hall


def _join(hall: Hall, tmp_path: Path, name: str) -> Path:
    bundle = tmp_path / f"{name}.join.json"
    added = hall("station", "add", name, "--role", "booth", "--out", str(bundle))
    assert added.exit_code == 0, added.stderr
    directory = tmp_path / name
    joined = run_booth("--hall", str(directory), "join", str(bundle), env=ENV)
    assert joined.exit_code == 0, joined.stderr
    return directory


def _events(directory: Path) -> int:
    conn = sqlite3.connect(f"file:{directory / 'ledger.db'}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


def test_a_station_holding_another_stations_key_exits_4_and_writes_nothing(
    hall: Hall, tmp_path: Path
) -> None:
    booth_1 = _join(hall, tmp_path, "booth-1")
    booth_2 = _join(hall, tmp_path, "booth-2")
    shutil.copy(booth_2 / "station.key", booth_1 / "station.key")  # a swapped SD card
    before = _events(booth_1)
    for command in (
        ("session", "open"),  # a write
        ("staff", "list"),  # a read (read-only path)
        ("verify",),
    ):
        result = run_booth("--hall", str(booth_1), *command, env=ENV)
        assert result.exit_code == 4, (command, result.stdout, result.stderr)
        assert "station.key is not the key the hall certified for station booth-1" in (
            result.stderr
        )
    assert _events(booth_1) == before
    with pytest.raises(IntegrityFailure):
        Station(booth_1, environ={"BOOTH_NOW": TRAINING_NOW})


def test_a_station_json_of_another_hall_exits_4(hall: Hall, tmp_path: Path) -> None:
    booth_1 = _join(hall, tmp_path, "booth-1")
    config = json.loads((booth_1 / "station.json").read_text())
    config["hall_public_key"] = "11" * 32  # a mixed restore: another hall's station.json
    (booth_1 / "station.json").write_text(json.dumps(config))
    before = _events(booth_1)
    result = run_booth("--hall", str(booth_1), "session", "open", env=ENV)
    assert result.exit_code == 4, result.stderr
    assert _events(booth_1) == before


def test_a_certificate_the_hall_did_not_sign_exits_4(hall: Hall, tmp_path: Path) -> None:
    booth_1 = _join(hall, tmp_path, "booth-1")
    conn = sqlite3.connect(booth_1 / "ledger.db")
    with conn:
        row = conn.execute("SELECT certificate FROM p_stations WHERE station = 'booth-1'")
        cert = json.loads(row.fetchone()[0])
        cert["signature"] = "00" * 64
        conn.execute(
            "UPDATE p_stations SET certificate = ? WHERE station = 'booth-1'",
            (json.dumps(cert),),
        )
    conn.close()
    result = run_booth("--hall", str(booth_1), "staff", "list", env=ENV)
    assert result.exit_code == 4 and "not signed by the hall" in result.stderr, result.stderr


def test_the_own_key_opens_as_before(hall: Hall, tmp_path: Path) -> None:
    booth_1 = _join(hall, tmp_path, "booth-1")
    assert run_booth("--hall", str(booth_1), "staff", "list", env=ENV).exit_code == 0
    assert run_booth("--hall", str(booth_1), "verify", env=ENV).exit_code == 0
