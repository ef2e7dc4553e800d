"""Tampering with the ledger file behind Booth's back, and events refused on the apply path.

The attacker here has the sqlite3 shell and the ledger file, but not the hall's key nor any
station's key. Each edit must make `booth verify` exit 4 and name what is wrong and where.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest

from pos.domain import hlc
from pos.domain.canonical import canonical_json
from pos.errors import ForkDetected, IntegrityFailure
from pos.ledger import Event, Ledger
from pos.ledger.events import GENESIS
from pos.ledger.keys import Certificate, StationKey
from pos.ledger.verify import verify
from pos.services import hall as hall_service
from pos.services.station import LEDGER_FILE, Station, StationConfig
from tests.conftest import TRAINING_NOW, run_booth

ENVIRON = {"BOOTH_NOW": TRAINING_NOW}
MANAGER = "manager"
SALES = 5  # appended after the hall fixture's three events: seqs 4..8
MIDDLE_SEQ = 6
LAST_SEQ = 8
A_STAMP = str(hlc.tick(None, datetime.fromisoformat(TRAINING_NOW)))
# A kind no projection handles, so the tests do not depend on what a real sale must carry.
PROBE_KIND = "TamperProbe"


@pytest.fixture
def sales(hall_dir: Path) -> list[Event]:
    with Station(hall_dir, environ=ENVIRON) as st:
        return [st.append(PROBE_KIND, _sale(quantity)) for quantity in range(1, SALES + 1)]


def _sale(quantity: int) -> dict[str, object]:
    return {"deal": "DEAL-1", "quantity": quantity, "total_cents": 100 * quantity, "seller": "S1"}


@contextmanager
def sqlite_shell(hall_dir: Path) -> Iterator[sqlite3.Connection]:
    """The ledger file as an attacker opens it: autocommit, append-only triggers dropped."""
    conn = sqlite3.connect(hall_dir / LEDGER_FILE, isolation_level=None)
    try:
        conn.execute("DROP TRIGGER events_append_only_update")
        conn.execute("DROP TRIGGER events_append_only_delete")
        yield conn
    finally:
        conn.close()


def _stored_event(conn: sqlite3.Connection, origin: str, seq: int) -> Event:
    row = conn.execute(
        "SELECT origin, seq, type, hlc, prev, body, hash, sig FROM events "
        "WHERE origin = ? AND seq = ?",
        (origin, seq),
    ).fetchone()
    return Event(*row)


def _insert(conn: sqlite3.Connection, event: Event) -> None:
    conn.execute(
        "INSERT INTO events (origin, seq, type, hlc, prev, body, hash, sig) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            event.origin,
            event.seq,
            event.kind,
            event.hlc,
            event.prev,
            event.body_json,
            event.hash,
            event.sig,
        ),
    )


def _with_more_tickets(event: Event) -> str:
    return canonical_json({**event.body, "quantity": event.body["quantity"] + 100})


def _flip_first_hex_digit(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


def _verify_fails_naming(hall_dir: Path, kind: str, origin: str, seq: int) -> None:
    result = run_booth("--hall", str(hall_dir), "verify")
    assert result.exit_code == 4, (result.stdout, result.stderr)
    assert f"{kind}: {origin}:{seq}:" in result.stderr, result.stderr


def _rogue_station(hall: str) -> list[Event]:
    """A station that joined with a certificate signed by some key that is not the hall's."""
    impostor_hall_key, rogue_key = StationKey.generate(), StationKey.generate()
    certificate = Certificate.issue(
        impostor_hall_key,
        hall=hall,
        station="rogue",
        role="booth",
        key=rogue_key.public_hex,
        issued=TRAINING_NOW,
    )
    joined = Event.create(
        rogue_key,
        origin="rogue",
        seq=1,
        kind="StationJoined",
        hlc=A_STAMP,
        prev=GENESIS,
        body={"certificate": certificate.to_dict(), "token": "0" * 32},
    )
    sale = Event.create(
        rogue_key,
        origin="rogue",
        seq=2,
        kind=PROBE_KIND,
        hlc=A_STAMP,
        prev=joined.hash,
        body=_sale(1000),
    )
    return [joined, sale]


# --- booth verify on a tampered file ----------------------------------------------------------


@pytest.mark.usefixtures("sales")
def test_an_untouched_ledger_verifies(hall_dir: Path) -> None:
    result = run_booth("--hall", str(hall_dir), "verify")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"OK: {3 + SALES} events from 1 stations verify")


@pytest.mark.usefixtures("sales")
def test_an_edited_body_is_named(hall_dir: Path) -> None:
    with sqlite_shell(hall_dir) as conn:
        event = _stored_event(conn, MANAGER, MIDDLE_SEQ)
        conn.execute(
            "UPDATE events SET body = ? WHERE origin = ? AND seq = ?",
            (_with_more_tickets(event), MANAGER, MIDDLE_SEQ),
        )
    _verify_fails_naming(hall_dir, "edited", MANAGER, MIDDLE_SEQ)


@pytest.mark.usefixtures("sales")
def test_a_row_removed_from_the_middle_is_a_gap(hall_dir: Path) -> None:
    with sqlite_shell(hall_dir) as conn:
        conn.execute("DELETE FROM events WHERE origin = ? AND seq = ?", (MANAGER, MIDDLE_SEQ))
    _verify_fails_naming(hall_dir, "gap", MANAGER, MIDDLE_SEQ)


@pytest.mark.usefixtures("sales")
def test_a_removed_last_row_is_a_truncation(hall_dir: Path) -> None:
    with sqlite_shell(hall_dir) as conn:
        conn.execute("DELETE FROM events WHERE origin = ? AND seq = ?", (MANAGER, LAST_SEQ))
        recorded = conn.execute(
            "SELECT last_seq FROM origin_heads WHERE origin = ?", (MANAGER,)
        ).fetchone()
    assert recorded == (LAST_SEQ,), "the evidence the test relies on"
    _verify_fails_naming(hall_dir, "truncated", MANAGER, LAST_SEQ)


@pytest.mark.usefixtures("sales")
def test_a_changed_signature_is_named(hall_dir: Path) -> None:
    with sqlite_shell(hall_dir) as conn:
        event = _stored_event(conn, MANAGER, MIDDLE_SEQ)
        conn.execute(
            "UPDATE events SET sig = ? WHERE origin = ? AND seq = ?",
            (_flip_first_hex_digit(event.sig), MANAGER, MIDDLE_SEQ),
        )
    _verify_fails_naming(hall_dir, "bad-signature", MANAGER, MIDDLE_SEQ)


@pytest.mark.usefixtures("sales")
def test_an_event_re_signed_by_another_key_is_named(hall_dir: Path) -> None:
    with sqlite_shell(hall_dir) as conn:
        event = _stored_event(conn, MANAGER, MIDDLE_SEQ)
        forged = Event.create(
            StationKey.generate(),
            origin=event.origin,
            seq=event.seq,
            kind=event.kind,
            hlc=event.hlc,
            prev=event.prev,
            body=json.loads(_with_more_tickets(event)),
        )
        assert forged.hash_matches()
        conn.execute(
            "UPDATE events SET body = ?, hash = ?, sig = ? WHERE origin = ? AND seq = ?",
            (forged.body_json, forged.hash, forged.sig, MANAGER, MIDDLE_SEQ),
        )
    _verify_fails_naming(hall_dir, "bad-signature", MANAGER, MIDDLE_SEQ)


def test_a_station_certified_by_another_key_than_the_halls_is_named(hall_dir: Path) -> None:
    rogue = _rogue_station(StationConfig.load(hall_dir).hall)
    with sqlite_shell(hall_dir) as conn:
        for event in rogue:
            _insert(conn, event)
    _verify_fails_naming(hall_dir, "bad-certificate", "rogue", 1)

    result = run_booth("--hall", str(hall_dir), "verify", "--json")
    problems = [(p["kind"], p["origin"], p["seq"]) for p in result.json["problems"]]
    # Without a certificate the hall signed, none of the rogue's events is trusted.
    assert problems == [("bad-certificate", "rogue", 1), ("unknown-origin", "rogue", 1)]


@pytest.mark.usefixtures("sales")
def test_verify_json_lists_the_problems(hall_dir: Path) -> None:
    with sqlite_shell(hall_dir) as conn:
        event = _stored_event(conn, MANAGER, MIDDLE_SEQ)
        conn.execute(
            "UPDATE events SET body = ? WHERE origin = ? AND seq = ?",
            (_with_more_tickets(event), MANAGER, MIDDLE_SEQ),
        )
    result = run_booth("--hall", str(hall_dir), "verify", "--json")
    assert result.exit_code == 4
    report = result.json
    assert report["ok"] is False
    assert [(p["kind"], p["origin"], p["seq"]) for p in report["problems"]] == [
        ("edited", MANAGER, MIDDLE_SEQ)
    ]
    assert "does not match its hash" in report["problems"][0]["detail"]
    # The intact prefix is what the report still vouches for.
    assert report["origins"][MANAGER] == {"events": MIDDLE_SEQ - 1, "last_seq": MIDDLE_SEQ - 1}


def test_a_fork_is_refused_recorded_and_named_by_verify(hall_dir: Path) -> None:
    copy_dir = hall_dir.with_name("manager-copy")
    shutil.copytree(hall_dir, copy_dir)  # no process has either directory open
    with Station(hall_dir, environ=ENVIRON) as original:
        ours = original.append(PROBE_KIND, _sale(1))
    with Station(copy_dir, environ=ENVIRON) as copy:
        theirs = copy.append(PROBE_KIND, _sale(2))
    assert ours.key == theirs.key == (MANAGER, 4) and ours.hash != theirs.hash

    with Station(hall_dir, environ=ENVIRON) as original:
        ledger = original.ledger
        count, rows = ledger.count(), ledger.projection_rows()
        with pytest.raises(ForkDetected) as refused:
            ledger.apply(theirs)
        assert (refused.value.origin, refused.value.seq) == ours.key
        assert ledger.count() == count
        assert ledger.projection_rows() == rows
        held = ledger.get(*ours.key)
        assert held is not None and held.hash == ours.hash
        [incident] = ledger.incidents()
        assert (incident["kind"], incident["origin"], incident["seq"]) == ("fork", MANAGER, 4)
        assert json.loads(incident["evidence"]) == theirs.to_dict()

    _verify_fails_naming(hall_dir, "fork", MANAGER, 4)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET body = '{}' WHERE seq = 2",
        "DELETE FROM events WHERE seq = 2",
    ],
    ids=["update", "delete"],
)
def test_the_log_refuses_changes_until_its_triggers_are_dropped(
    hall_dir: Path, statement: str
) -> None:
    conn = sqlite3.connect(hall_dir / LEDGER_FILE, isolation_level=None)
    try:
        before = conn.execute("SELECT * FROM events ORDER BY rowid").fetchall()
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute(statement)
        assert conn.execute("SELECT * FROM events ORDER BY rowid").fetchall() == before
    finally:
        conn.close()


# --- Ledger.apply: what another station's event must pass ---------------------------------------


@pytest.fixture
def booth_events(hall_dir: Path, tmp_path: Path) -> list[Event]:
    """booth-1's own events (StationJoined, then three sales); the manager holds none of them."""
    with Station(hall_dir, environ=ENVIRON) as manager:
        bundle = hall_service.add_station(manager, name="booth-1", role="booth", operator="M1")
    bundle_path = tmp_path / "booth-1.join.json"
    bundle_path.write_text(json.dumps(bundle))
    booth_dir = tmp_path / "booth-1"
    hall_service.join(booth_dir, bundle_path, environ=ENVIRON)
    with Station(booth_dir, environ=ENVIRON) as booth:
        for quantity in (1, 2, 3):
            booth.append(PROBE_KIND, _sale(quantity))
        return list(booth.ledger.origin_events("booth-1"))


@pytest.fixture
def manager_ledger(hall_dir: Path, booth_events: list[Event]) -> Iterator[Ledger]:
    """The manager's ledger, opened once booth-1 exists (one process per station at a time)."""
    with Station(hall_dir, environ=ENVIRON) as manager:
        yield manager.ledger


def test_applying_a_held_event_again_returns_false_and_changes_nothing(
    manager_ledger: Ledger, booth_events: list[Event]
) -> None:
    assert [manager_ledger.apply(event) for event in booth_events] == [True] * len(booth_events)
    count, rows = manager_ledger.count(), manager_ledger.projection_rows()
    assert [manager_ledger.apply(event) for event in booth_events] == [False] * len(booth_events)
    assert manager_ledger.count() == count
    assert manager_ledger.projection_rows() == rows
    assert manager_ledger.incidents() == []


def _skipping_a_seq(ledger: Ledger, booth_events: list[Event]) -> Event:
    ledger.apply(booth_events[0])
    return booth_events[2]


def _of_an_uncertified_origin(ledger: Ledger, booth_events: list[Event]) -> Event:
    return Event.create(
        StationKey.generate(),
        origin="ghost",
        seq=1,
        kind=PROBE_KIND,
        hlc=A_STAMP,
        prev=GENESIS,
        body=_sale(1),
    )


def _with_an_edited_body(ledger: Ledger, booth_events: list[Event]) -> Event:
    first_sale = booth_events[1]
    return dataclasses.replace(first_sale, body_json=_with_more_tickets(first_sale))


def _with_a_changed_signature(ledger: Ledger, booth_events: list[Event]) -> Event:
    return dataclasses.replace(booth_events[0], sig=_flip_first_hex_digit(booth_events[0].sig))


def _certified_by_another_key_than_the_halls(ledger: Ledger, booth_events: list[Event]) -> Event:
    return _rogue_station(ledger.conn.execute("SELECT hall FROM p_hall").fetchone()[0])[0]


@pytest.mark.parametrize(
    ("offer", "incident_kind"),
    [
        (_skipping_a_seq, "gap"),
        (_of_an_uncertified_origin, "unknown-origin"),
        (_with_an_edited_body, "bad-hash"),
        (_with_a_changed_signature, "bad-signature"),
        (_certified_by_another_key_than_the_halls, "bad-certificate"),
    ],
    ids=["gap", "unknown-origin", "bad-hash", "bad-signature", "bad-certificate"],
)
def test_apply_refuses_stores_nothing_and_records_an_incident(
    manager_ledger: Ledger,
    booth_events: list[Event],
    offer: Callable[[Ledger, list[Event]], Event],
    incident_kind: str,
) -> None:
    event = offer(manager_ledger, booth_events)
    count, rows = manager_ledger.count(), manager_ledger.projection_rows()
    incidents = manager_ledger.incidents()

    with pytest.raises(IntegrityFailure, match=f"{event.origin}:{event.seq}") as refused:
        manager_ledger.apply(event)

    assert not isinstance(refused.value, ForkDetected)
    assert manager_ledger.count() == count
    assert manager_ledger.projection_rows() == rows
    held = manager_ledger.get(event.origin, event.seq)
    assert held is None or held.hash != event.hash
    [incident] = manager_ledger.incidents()[len(incidents) :]
    assert (incident["kind"], incident["origin"], incident["seq"]) == (
        incident_kind,
        event.origin,
        event.seq,
    )
    assert json.loads(incident["evidence"]) == event.to_dict()


def test_an_unsigned_event_under_a_held_key_is_refused_without_crying_fork(
    manager_ledger: Ledger, booth_events: list[Event]
) -> None:
    joined, held = booth_events[:2]
    manager_ledger.apply(joined)
    manager_ledger.apply(held)
    edited = _with_an_edited_body(manager_ledger, booth_events)
    forged = dataclasses.replace(edited, hash=edited.digest().hex())  # the signature is held's
    assert forged.key == held.key and forged.hash_matches() and forged.hash != held.hash

    with pytest.raises(IntegrityFailure) as refused:
        manager_ledger.apply(forged)

    # Anyone can make such an event without any key: it proves nothing against booth-1.
    assert not isinstance(refused.value, ForkDetected)
    assert [incident["kind"] for incident in manager_ledger.incidents()] == ["bad-signature"]
    assert verify(manager_ledger).ok


def test_a_rebuild_does_not_forget_a_truncated_tail(hall_dir: Path) -> None:
    with Station(hall_dir) as st:
        st.append("TamperProbe", {"n": 1})
        last = st.ledger.head(st.id)[0]
    conn = sqlite3.connect(hall_dir / "ledger.db")
    conn.execute("DROP TRIGGER events_append_only_delete")
    conn.execute("DELETE FROM events WHERE origin = 'manager' AND seq = ?", (last,))
    conn.commit()
    conn.close()
    rebuilt = run_booth("--hall", str(hall_dir), "rebuild")
    assert rebuilt.exit_code == 4, "a ledger that fails verification is not rebuilt (#16)"
    assert f"truncated: manager:{last}" in rebuilt.stderr
    result = run_booth("--hall", str(hall_dir), "verify")
    assert result.exit_code == 4
    assert f"truncated: manager:{last}" in result.stderr


def test_a_body_that_does_not_fit_its_kind_is_refused_and_recorded(
    manager_ledger: Ledger, booth_events: list[Event], tmp_path: Path
) -> None:
    """Signed by booth-1's own key, as a buggy build (or a thief of its key) would make it: its
    projection could not take it, so it is refused like a bad signature (issue #16, item 3)."""
    for event in booth_events:
        manager_ledger.apply(event)
    key = StationKey.from_hex((tmp_path / "booth-1" / "station.key").read_text())
    last = booth_events[-1]
    odd = Event.create(
        key,
        origin="booth-1",
        seq=last.seq + 1,
        kind="TicketsSold",
        hlc=str(hlc.tick(hlc.Stamp.parse(last.hlc), datetime.fromisoformat(TRAINING_NOW))),
        prev=last.hash,
        body={"not": "a sale"},
    )
    rows = manager_ledger.projection_rows()
    with pytest.raises(IntegrityFailure, match="does not fit TicketsSold: serial: is missing"):
        manager_ledger.apply(odd)
    assert manager_ledger.get("booth-1", odd.seq) is None
    assert manager_ledger.projection_rows() == rows
    incidents = [(i["kind"], i["origin"], i["seq"]) for i in manager_ledger.incidents()]
    assert incidents == [("bad-body", "booth-1", odd.seq)]
