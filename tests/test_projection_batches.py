"""Projecting a batch at once (`apply_many`: one savepoint, reads remembered for the batch) gives
the same tables as projecting its events one by one, whatever their order."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pos.domain.canonical import canonical_json
from pos.domain.hlc import Stamp
from pos.ledger.events import GENESIS, Event
from pos.ledger.projections import ALL

SESSION = "2026-11-28/1"
EVENING = datetime(2026, 11, 28, 23, 0, tzinfo=UTC)


def _event(origin: str, seq: int, minute: int, kind: str, body: dict[str, Any]) -> Event:
    stamp = str(Stamp(int(EVENING.timestamp() * 1000) + minute * 60_000, 0))
    return Event(origin, seq, kind, stamp, GENESIS, canonical_json(body), "0" * 64, "")


def _sale(origin: str, seq: int, minute: int, *, body: dict[str, Any] | None = None) -> Event:
    sale = {"serial": "A1", "qty": 1, "amount": 100, "price": 100, "session": SESSION}
    sale |= {"receipt": seq, "seller": "S1", "buyer_staff": "S1" if seq % 3 == 0 else None}
    return _event(origin, seq, minute, "TicketsSold", sale if body is None else body)


def _day() -> list[Event]:
    hall = {
        "hall": "H",
        "organisation": "O",
        "location": "L",
        "time_zone": "America/New_York",
        "training": 1,
        "hall_public_key": "00",
        "certificate": {"station": "manager", "role": "manager", "key": "00"},
    }
    opened = {"session": SESSION, "game_date": "2026-11-28", "number": 1, "by": "M1"}
    events = [
        _event("manager", 1, 0, "HallCreated", hall),
        _event("manager", 2, 1, "SessionOpened", opened),
    ]
    events += [_sale("booth-1", seq, 2 + seq) for seq in range(1, 7)]
    events.append(_event("manager", 3, 20, "SessionClosed", {"session": SESSION, "by": "M1"}))
    events += [_sale("booth-1", seq, 20 + seq) for seq in range(7, 10)]  # late: after the close
    events.append(_sale("booth-1", 10, 40, body={"not": "a sale"}))  # no handler understands it
    return events


def _tables(events: list[Event], *, batch: bool) -> dict[str, list[Any]]:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    ALL.create(conn)
    conn.execute("BEGIN")
    if batch:
        ALL.apply_many(conn, events)
    else:
        for event in events:
            ALL.apply(conn, event, strict=False)
    conn.execute("COMMIT")
    rows = {table: conn.execute(f"SELECT * FROM {table}").fetchall() for table in ALL.tables()}
    return {table: sorted(found, key=repr) for table, found in rows.items()}


def test_a_batch_projects_as_its_events_one_by_one() -> None:
    events = _day()
    tables = _tables(events, batch=True)
    assert tables == _tables(events, batch=False)
    assert [row[1] for row in tables["p_late_events"]] == [7, 8, 9]
    assert [row[:3] for row in tables["p_projection_errors"]] == [("booth-1", 10, "TicketsSold")]
    assert len(tables["p_sales"]) == 9


@settings(max_examples=40, deadline=None)
@given(st.permutations(_day()))
def test_in_any_order_of_arrival(events: list[Event]) -> None:
    assert _tables(events, batch=True) == _tables(events, batch=False)
