"""The ledger's own contract: append, apply, rebuild, migrations, storage failures."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pos.errors import BadInput, StorageFailure
from pos.ledger import Ledger
from pos.ledger.events import GENESIS
from pos.ledger.schema import migrations
from pos.ledger.schema_names import MIGRATION_NAMES
from pos.ledger.verify import verify
from pos.services import hall as hall_service
from pos.services import staff as staff_service
from pos.services.station import LEDGER_FILE, Station
from tests.conftest import TRAINING_NOW

NOW = datetime.fromisoformat(TRAINING_NOW)


def test_append_chains_signs_and_numbers_events_without_gaps(station: Station) -> None:
    first = station.append("DrawerOpened", {"drawer": "1"})
    second = station.append("DrawerOpened", {"drawer": "2"})
    assert second.seq == first.seq + 1
    assert second.prev == first.hash
    assert second.hash_matches() and first.hash_matches()
    key = station.ledger.public_key(station.id)
    assert key is not None and second.signed_by(key)
    assert second.hlc > first.hlc


def test_origin_starts_from_genesis(station: Station) -> None:
    first = next(station.ledger.origin_events(station.id))
    assert (first.seq, first.prev, first.kind) == (1, GENESIS, "HallCreated")


def test_hlc_never_goes_back_when_the_wall_clock_does(station: Station) -> None:
    stamps = []
    for minutes in (0, -30, -60, 5):
        event = station.ledger.append("Tick", {}, now=NOW + timedelta(minutes=minutes))
        stamps.append(event.hlc)
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


def test_a_body_with_floats_is_bad_input_and_records_nothing(station: Station) -> None:
    before = station.ledger.count()
    with pytest.raises(BadInput, match="integer cents"):
        station.append("TicketsSold", {"amount": 1.5})
    assert station.ledger.count() == before


def test_a_failed_command_rolls_back_whole(station: Station) -> None:
    before = station.ledger.count()
    with pytest.raises(RuntimeError), station.ledger.transaction():
        station.append("DrawerOpened", {"drawer": "1"})
        raise RuntimeError("the check after the append failed")
    assert station.ledger.count() == before
    assert verify(station.ledger).ok


def test_a_full_disk_refuses_the_write_and_keeps_what_was_recorded(station: Station) -> None:
    conn = station.ledger.conn
    before = station.ledger.count()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # the database can grow no further
    with pytest.raises(StorageFailure, match="full"):
        for n in range(200):
            station.append("DrawerOpened", {"padding": "x" * 2000, "n": n})
    conn.execute("PRAGMA max_page_count = 1073741823")
    assert verify(station.ledger).ok
    assert station.ledger.count() >= before
    station.append("DrawerOpened", {"drawer": "after the disk was freed"})
    assert verify(station.ledger).ok


def test_migrations_are_recorded_and_not_rerun(station: Station) -> None:
    applied = [m.name for m in migrations.applied(station.ledger.db)]
    assert applied == list(MIGRATION_NAMES)
    assert migrations.pending(station.ledger.db) == []


def test_a_projection_schema_change_rebuilds_on_open(hall_dir: Path) -> None:
    with Station(hall_dir) as st:
        expected = st.ledger.projection_rows()
        st.ledger.conn.execute("UPDATE meta SET value = 'stale' WHERE key = 'projections'")
        st.ledger.conn.execute("DELETE FROM p_staff")
    with Station(hall_dir) as st:
        assert st.ledger.projection_rows() == expected


def _second_station(hall_dir: Path, tmp_path: Path) -> Path:
    with Station(hall_dir) as st:
        bundle = hall_service.add_station(st, name="booth-1", role="booth", operator="M1")
    path = tmp_path / "booth-1.json"
    path.write_text(__import__("json").dumps(bundle))
    hall_service.join(tmp_path / "booth-1", path, environ={"BOOTH_NOW": TRAINING_NOW})
    return tmp_path / "booth-1"


def test_rebuild_gives_identical_rows_after_thousands_of_random_events(
    hall_dir: Path, tmp_path: Path
) -> None:
    booth_dir = _second_station(hall_dir, tmp_path)
    rng = random.Random(20261128)
    with Station(hall_dir) as manager, Station(booth_dir) as booth:
        for event in booth.ledger.origin_events("booth-1"):
            manager.ledger.apply(event)
        now = NOW
        for n in range(3000):
            now += timedelta(seconds=rng.randint(0, 90))
            roll = rng.random()
            if roll < 0.05:
                staff_service.add_staff(
                    manager,
                    badge=f"B{n}",
                    name=f"Worker {n}",
                    roles=rng.sample(["seller", "redeemer", "inspector"], k=rng.randint(1, 2)),
                    date_of_birth=f"{1950 + n % 50}-01-01",
                    operator="M1",
                )
            elif roll < 0.55:
                manager.ledger.append("Note", {"n": n, "text": "é" * rng.randint(0, 40)}, now=now)
            else:
                event = booth.ledger.append("Note", {"n": n}, now=now)
                assert manager.ledger.apply(event) is True
        before = manager.ledger.projection_rows()
        assert manager.ledger.rebuild() == manager.ledger.count()
        assert manager.ledger.projection_rows() == before
        assert verify(manager.ledger).ok


def test_applying_twice_changes_nothing(hall_dir: Path, tmp_path: Path) -> None:
    booth_dir = _second_station(hall_dir, tmp_path)
    with Station(booth_dir) as booth:
        events = list(booth.ledger.origin_events("booth-1"))
    with Station(hall_dir) as manager:
        assert [manager.ledger.apply(e) for e in events] == [True] * len(events)
        rows = manager.ledger.projection_rows()
        assert [manager.ledger.apply(e) for e in events] == [False] * len(events)
        assert manager.ledger.projection_rows() == rows


def test_unwritable_ledger_is_a_storage_failure(tmp_path: Path) -> None:
    path = tmp_path / "not-a-db" / LEDGER_FILE
    path.parent.mkdir()
    path.write_bytes(b"this is not an SQLite file" * 100)
    with pytest.raises(StorageFailure, match="cannot open the ledger"):
        Ledger.open(path, station="x", key=None, hall_public_key="00" * 32)


def test_connection_settings_are_durable(station: Station) -> None:
    conn = station.ledger.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_the_log_refuses_updates_and_deletes(station: Station) -> None:
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        station.ledger.conn.execute("UPDATE events SET body = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        station.ledger.conn.execute("DELETE FROM events")


def test_stamps_record_utc(station: Station) -> None:
    event = station.append("Tick", {})
    from pos.domain.hlc import Stamp

    assert Stamp.parse(event.hlc).instant == NOW.astimezone(UTC)
