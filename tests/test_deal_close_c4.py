"""C4: a deal closed unfinished records its diligent efforts, and waits for a scheduled session
that sells its type of ticket unless a manager overrides, on the record."""

from __future__ import annotations

import pytest

from tests.halls import Hall, flare, refused


def _digest(hall: Hall) -> str:
    return str(hall("verify", "--json").json["digest"])


@pytest.mark.rule("C4")
def test_closing_unsold_records_the_sessions_offered_and_the_note(selling: Hall) -> None:
    assert selling("sell", "A123456", "--qty", "10").exit_code == 0
    closed = selling(
        "deal",
        "close",
        "A123456",
        "--unsold",
        "3990",
        "--note",
        "offered at two sessions",
        "--json",
    )
    assert closed.exit_code == 0, closed.stderr
    assert closed.json["offered_in"] == ["2026-11-28/1"]
    assert closed.json["close_note"] == "offered at two sessions"
    assert closed.json["close_override"] is None


def test_a_note_is_required_when_tickets_are_unsold(selling: Hall) -> None:
    before = selling.count()
    result = selling("deal", "close", "A123456", "--unsold", "4000")
    assert result.exit_code == 2 and "--note" in result.stderr
    assert selling.count() == before


def test_refused_while_a_later_session_selling_the_type_is_scheduled(selling: Hall) -> None:
    assert selling("session", "schedule", "2026-12-05", "--sells", "event").exit_code == 0
    assert selling("session", "schedule", "2026-12-05", "--sells", "pull-tab").exit_code == 0
    digest = _digest(selling)
    refused(selling("deal", "close", "A123456", "--unsold", "4000", "--note", "slow night"), "C4")
    assert _digest(selling) == digest
    bad = selling("deal", "close", "A123456", "--unsold", "4000", "--note", "x", "--override")
    assert bad.exit_code == 2 and _digest(selling) == digest
    closed = selling(
        "deal",
        "close",
        "A123456",
        "--unsold",
        "4000",
        "--note",
        "slow night",
        "--override",
        "--reason",
        "the supplier recalled the form",
        "--json",
    )
    assert closed.exit_code == 0, closed.stderr
    assert closed.json["close_override"] == "the supplier recalled the form"
    report = selling("verify", "--json")
    assert report.exit_code == 0


def test_a_sold_out_deal_closes_without_a_note(hall: Hall) -> None:
    small = flare("B1", tickets=10, prizes=[{"amount": "1.00", "count": 1}])
    assert hall.receive(small).exit_code == 0
    assert hall("deal", "open", "B1", "--bin", "drawer-2").exit_code == 0
    assert hall("session", "open").exit_code == 0
    assert hall("session", "schedule", "2026-12-05").exit_code == 0
    assert hall("sell", "B1", "--qty", "10").exit_code == 0
    assert hall("deal", "close", "B1", "--unsold", "0").exit_code == 0


def test_schedule_refuses_bad_dates(hall: Hall) -> None:
    before = hall.count()
    assert hall("session", "schedule", "2026-13-01").exit_code == 2
    assert hall("session", "schedule", "2020-01-01").exit_code == 2
    assert hall.count() == before
