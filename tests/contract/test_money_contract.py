"""One contract for money, run against every product kind (issue #26).

Modelled on eventsourcing's contract suites: one set of invariant tests, each run against every
kind of tests/contract/kinds.py, at booth-1 of a whole hall night, through the `booth` command:

- a retried or double-tapped write lands once (the same request id twice);
- a closed station refuses, and sells again once a manager reopens it on the record;
- a prize cannot be paid twice, and the refusal names the first payment;
- limits hold: stock and prize limits refuse, and the refusal records nothing;
- the age rule applies to every kind sold to a buyer (the refusal recorded as PurchaseBlocked);
- bad input records nothing;
- every cash sale opens the drawer with its receipt;
- the day report's line and the drawer's expected cash move by exactly the events' amounts.
"""

from __future__ import annotations

import uuid

import pytest

from pos.services import receipts
from pos.services.station import Station
from tests.conftest import Result
from tests.contract.conftest import Night
from tests.contract.hall_night import ENVIRON
from tests.contract.kinds import KIND_NAMES, by_name, paying
from tests.halls import licence_barcode

MINOR = licence_barcode("Young", "Tim", "2010-06-01")  # 16 on the night


def refused_by(result: Result, *rules: str) -> None:
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert any(f"(rule {rule})" in result.stderr for rule in rules), result.stderr


ALL = pytest.mark.parametrize("kind_name", KIND_NAMES)
PAYING = pytest.mark.parametrize("kind_name", paying())
WITH_BUYER = pytest.mark.parametrize("kind_name", paying(lambda kind: kind.takes_buyer))
WITH_PRIZE_LIMIT = pytest.mark.parametrize(
    "kind_name", paying(lambda kind: kind.prize_over_limit is not None)
)
ON_REPORT = pytest.mark.parametrize("kind_name", paying(lambda kind: True))


@ALL
def test_a_retried_write_lands_once(night: Night, kind_name: str) -> None:
    kind = by_name(kind_name)
    attempt = uuid.uuid4().hex
    before = night.last_seq()
    first = night("--request-id", attempt, *kind.sale)
    assert first.exit_code == 0, first.stderr
    written = night.last_seq()
    assert written > before
    again = night("--request-id", attempt, *kind.sale)
    assert again.exit_code == 0, again.stderr
    assert again.stdout == first.stdout  # the first answer, given again
    assert night.last_seq() == written


@ALL
def test_a_closed_station_refuses_until_a_manager_reopens_it(night: Night, kind_name: str) -> None:
    kind = by_name(kind_name)
    assert night("session", "close", "--as", "S1").exit_code == 0
    before = night.last_seq()
    refusal = night(*kind.sale)
    refused_by(refusal, "CLOSE")
    assert "closed for session 2026-11-28/1" in refusal.stderr
    assert night.last_seq() == before
    reopened = night("session", "reopen", "--manager", "M1", "--reason", "a late sale")
    assert reopened.exit_code == 0, reopened.stderr
    assert night(*kind.sale).exit_code == 0


@PAYING
def test_a_closed_station_pays_nothing(night: Night, kind_name: str) -> None:
    payment = night.prepare_prize(by_name(kind_name))
    assert night("session", "close", "--as", "S1").exit_code == 0
    before = night.last_seq()
    refused_by(night(*payment), "CLOSE")
    assert night.last_seq() == before


@PAYING
def test_a_prize_cannot_be_paid_twice(night: Night, kind_name: str) -> None:
    payment = night.prepare_prize(by_name(kind_name))
    paid = night(*payment)
    assert paid.exit_code == 0, paid.stderr
    before = night.last_seq()
    again = night(*payment)
    refused_by(again, "PAID", "C2")
    assert "18:00 by Sam Seller (S1)" in again.stderr and "pay nothing" in again.stderr
    # nothing paid again: at most the manager's flag of a second presentation
    assert set(night.kinds_recorded(before)) <= {"ExceptionFlagged"}


@WITH_PRIZE_LIMIT
def test_a_prize_limit_refuses_and_records_nothing(night: Night, kind_name: str) -> None:
    kind = by_name(kind_name)
    payment = night.prepare_prize(kind)
    assert kind.prize_over_limit is not None
    before = night.last_seq()
    over = night(*kind.prize_over_limit)
    assert over.exit_code in (1, 2), (over.stdout, over.stderr)
    assert set(night.kinds_recorded(before)) <= {"ExceptionFlagged"}
    assert night(*payment).exit_code == 0  # the prize itself is still there to pay, once


@ALL
def test_a_sale_beyond_the_kinds_limits_records_nothing(night: Night, kind_name: str) -> None:
    kind = by_name(kind_name)
    before = night.last_seq()
    over = night(*kind.over_limit)
    assert over.exit_code in (1, 2), (over.stdout, over.stderr)
    assert night.last_seq() == before


@WITH_BUYER
def test_the_age_rule_applies_to_every_kind_sold(night: Night, kind_name: str) -> None:
    kind = by_name(kind_name)
    before = night.last_seq()
    refused_by(night(*kind.with_buyer(MINOR)), "AGE")
    assert set(night.kinds_recorded(before)) <= {"PurchaseBlocked"}  # rule D's record aside


@ALL
def test_bad_input_records_nothing(night: Night, kind_name: str) -> None:
    kind = by_name(kind_name)
    before = night.last_seq()
    bad = night(*kind.bad_value)
    assert bad.exit_code == 2, (bad.stdout, bad.stderr)
    assert "Traceback" not in bad.stderr
    assert night.last_seq() == before


@ALL
def test_a_cash_sale_opens_the_drawer(night: Night, kind_name: str) -> None:
    """The booth's printer job of every cash sale kicks the drawer, whatever the game."""
    assert night(*by_name(kind_name).sale).exit_code == 0
    with Station(night.booth.directory, environ=ENVIRON) as st:
        job = receipts.claim_next_job(st)
    assert job is not None and job.kick_drawer


@ON_REPORT
def test_the_report_line_and_expected_cash_equal_the_events(night: Night, kind_name: str) -> None:
    kind = by_name(kind_name)
    before = night.last_seq()
    cash = night.expected_cash()
    gross = night.report_gross(kind.report_line) if kind.report_line else 0
    sold = night(*kind.sale)
    assert sold.exit_code == 0, sold.stderr
    moved = night.amounts_since(before)
    assert moved > 0
    assert night.expected_cash() - cash == moved
    if kind.report_line:
        assert night.report_gross(kind.report_line) - gross == moved
