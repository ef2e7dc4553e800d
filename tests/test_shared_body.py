"""An event's body is parsed once when the ledger applies it (`Event.shared_body`): the body
check and every projection's handlers then read the same dict. None of them may change it, or
the next reader (a handler after it, or the event projected again one by one after a failed
batch) would read another body than the one signed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from pos.ledger.projections import ALL
from pos.services.station import Station
from tests.conftest import TRAINING_NOW, make_training_hall
from tests.halls import Hall
from tests.test_bingo_session import S, ok, stock_bingo_hall
from tests.test_hostile_values import set_up_the_night


def test_no_projection_changes_the_body_it_is_handed(tmp_path: Path) -> None:
    flares = tmp_path / "flares"
    flares.mkdir()
    night = set_up_the_night(
        stock_bingo_hall(Hall(make_training_hall(tmp_path / "manager"), flares), tmp_path)
    )
    ok(night("sell", "A123456", "--qty", "3", *S))
    with Station(night.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        events = list(st.ledger.events())
    assert len({event.kind for event in events}) >= 14, sorted({e.kind for e in events})
    conn = sqlite3.connect(":memory:", isolation_level=None)
    ALL.create(conn)
    conn.execute("BEGIN")
    for event in events:
        ALL.apply(conn, event, strict=False)
    conn.execute("COMMIT")
    changed = [
        f"{event.kind} {event.origin}:{event.seq}"
        for event in events
        if event.shared_body() != json.loads(event.body_json)
    ]
    assert not changed, f"projected events whose shared body a handler changed: {changed}"


def test_the_shared_body_is_parsed_once_and_body_stays_the_callers_own(tmp_path: Path) -> None:
    with Station(
        make_training_hall(tmp_path / "manager"), environ={"BOOTH_NOW": TRAINING_NOW}
    ) as st:
        event = next(iter(st.ledger.events()))
    assert event.shared_body() is event.shared_body()
    mine = event.body
    mine["changed"] = True
    assert "changed" not in event.body and "changed" not in event.shared_body()
