"""Exceptions the manager decides: accepted, rejected or noted, once, on the record."""

from __future__ import annotations

import json
import sqlite3

import pytest

from pos.cli.exceptions import exception
from pos.cli.main import cli
from pos.errors import BadInput, NotFound, NotPermitted
from pos.ledger.events import Event
from pos.ledger.projections.winners import SCHEMA, WINNERS
from pos.services import exceptions
from pos.services.station import Station
from tests.halls import Hall, refused

# Until pos/cli/main.py lists it in COMMANDS (then this is a no-op).
if exception.name not in cli.commands:
    cli.add_command(exception)


@pytest.fixture
def flagged(selling: Hall) -> tuple[Hall, str]:
    """A hall with one double payment flagged; its ORIGIN:SEQ."""
    assert selling("sell", "A123456", "--qty", "10").exit_code == 0
    assert selling("redeem", "A123456/0042/10000", "--as", "S1").exit_code == 0
    refused(selling("redeem", "A123456/0042/10000", "--as", "S1"), "C2")
    listed = selling("exception", "list", "--json")
    assert listed.exit_code == 0, listed.stderr
    assert [e["kind"] for e in listed.json] == ["double-payment"]
    return selling, listed.json[0]["exception"]


def test_a_manager_decides_an_exception_once_and_it_leaves_the_open_list(
    flagged: tuple[Hall, str],
) -> None:
    hall, ref = flagged
    done = hall(
        "exception", "resolve", ref, "--decision", "accepted", "--note", "same player, rescan",
        "--json",
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert done.json["resolved"] is True
    assert (done.json["decision"], done.json["note"], done.json["resolved_by"]) == (
        "accepted",
        "same player, rescan",
        "M1",
    )
    assert hall("exception", "list", "--json").json == []
    again = hall("exception", "resolve", ref, "--decision", "rejected", "--note", "no")
    assert again.exit_code == 2
    assert "already decided (accepted by M1)" in again.stderr
    assert hall("rebuild").exit_code == 0
    with Station(hall.directory) as st:
        row = st.ledger.conn.execute(
            "SELECT resolved, decision, note, resolved_by FROM p_flags"
        ).fetchone()
        assert row == (1, "accepted", "same player, rescan", "M1")
        assert exceptions.open_exceptions(st) == []


def test_only_a_manager_decides_and_input_is_checked(flagged: tuple[Hall, str]) -> None:
    hall, ref = flagged
    origin, seq = exceptions.parse_ref(ref)
    before = hall.count()
    with Station(hall.directory) as st:
        with pytest.raises(NotPermitted):
            exceptions.resolve_exception(
                st, origin, seq, decision="accepted", note="ok", operator="S1"
            )
        with pytest.raises(BadInput):
            exceptions.resolve_exception(st, origin, seq, decision="maybe", note="x", operator="M1")
        with pytest.raises(BadInput):
            exceptions.resolve_exception(st, origin, seq, decision="noted", note=" ", operator="M1")
        with pytest.raises(NotFound):
            exceptions.resolve_exception(
                st, origin, seq + 999, decision="noted", note="x", operator="M1"
            )
    bad = hall("exception", "resolve", "nope", "--decision", "noted", "--note", "x")
    assert bad.exit_code == 2 and "ORIGIN:SEQ" in bad.stderr
    assert hall.count() == before
    with Station(hall.directory) as st:
        exceptions.resolve_exception(st, origin, seq, decision="noted", note="x", operator="M1")
        with pytest.raises(BadInput) as twice:
            exceptions.resolve_exception(st, origin, seq, decision="noted", note="x", operator="M1")
        assert "already decided (noted by M1)" in twice.value.message


def _event(origin: str, seq: int, kind: str, hlc: str, body: dict[str, object]) -> Event:
    return Event(origin, seq, kind, hlc, "", json.dumps(body), "", "")


def test_a_decision_synced_before_its_flag_still_applies() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    resolved = _event(
        "manager", 9, "ExceptionResolved", "h2",
        {"origin": "booth-1", "seq": 4, "decision": "rejected", "note": "fake", "by": "M1"},
    )  # fmt: skip
    flag = _event(
        "booth-1", 4, "ExceptionFlagged", "h1",
        {"flag": "probable-counterfeit", "serial": "A1", "ticket": "0001", "detail": "too many"},
    )  # fmt: skip
    for event in (resolved, flag):
        WINNERS.handlers[event.kind](conn, event, event.body)
    row = conn.execute("SELECT resolved, decision, note, resolved_by FROM p_flags").fetchone()
    assert row == (1, "rejected", "fake", "M1")


def test_two_decisions_made_apart_converge_on_the_earlier() -> None:
    flag = _event(
        "booth-1", 4, "ExceptionFlagged", "h1",
        {"flag": "probable-counterfeit", "serial": "A1", "ticket": "0001", "detail": "too many"},
    )  # fmt: skip
    early = _event(
        "manager", 9, "ExceptionResolved", "h2",
        {"origin": "booth-1", "seq": 4, "decision": "rejected", "note": "fake", "by": "M1"},
    )  # fmt: skip
    late = _event(
        "manager-2", 3, "ExceptionResolved", "h3",
        {"origin": "booth-1", "seq": 4, "decision": "accepted", "note": "real", "by": "M2"},
    )  # fmt: skip
    rows = []
    for order in ((flag, early, late), (late, flag, early), (flag, late, early)):
        conn = sqlite3.connect(":memory:")
        conn.executescript(SCHEMA)
        for event in order:
            WINNERS.handlers[event.kind](conn, event, event.body)
        rows.append(
            conn.execute("SELECT resolved, decision, note, resolved_by FROM p_flags").fetchone()
        )
    assert rows == [(1, "rejected", "fake", "M1")] * 3
