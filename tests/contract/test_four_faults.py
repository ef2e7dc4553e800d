"""Issue #26's four faults at the command line, at booth-1 of the hall night. Each failed on
the code before the one money path: a prize paid twice, the late rescan, selling after the
booth closed, and a double tap (here: the same request id sent twice, as the control socket
and a retrying script send it)."""

from __future__ import annotations

import uuid

from tests.contract.conftest import Night
from tests.contract.hall_night import sync


def test_a_bingo_prize_paid_twice_is_refused_naming_the_first(night: Night) -> None:
    assert night("bingo", "pay", "--game", "1", "--amount", "100.00", "--as", "S1").exit_code == 0
    again = night("bingo", "pay", "--game", "1", "--amount", "100.00", "--as", "S1")
    assert again.exit_code == 1
    assert "game 1 (Early Bird) was already paid, $100.00 at 18:00 by Sam Seller (S1)" in (
        again.stderr
    )
    assert "pay nothing (rule PAID)" in again.stderr
    report = night("report", "day", "--json").json
    assert report["bingo"]["prizes"][0]["amount"] == "100.00"
    assert len(report["bingo"]["prizes"]) == 1


def test_a_late_rescan_reads_already_paid_and_records_no_punch(night: Night) -> None:
    assert night("sell", "A123456", "--qty", "10", "--as", "S1").exit_code == 0
    # the payer's own second scan, moments after paying, confirms the punch
    assert night("redeem", "A123456/0043/10000", "--as", "S1").exit_code == 0
    moment = night("scan-code", "A123456/0043/10000", "--as", "S1")
    assert moment.json["action"] == "punched", moment.stdout
    assert night("redeem", "A123456/0042/10000", "--as", "S1").exit_code == 0
    later = {"BOOTH_NOW": "2026-11-29T01:00:00+00:00"}  # 20:00 in the hall, two hours on
    rescan = night.booth("scan-code", "A123456/0042/10000", "--as", "S1", **later)
    assert rescan.exit_code == 0, rescan.stderr
    said = rescan.json
    assert said["ok"] is False
    assert "already paid at 2026-11-28 18:00 by Sam Seller (S1)" in said["message"]
    assert "pay nothing" in said["message"]
    assert night.kinds_recorded(0).count("TicketPunched") == 1  # 0043's only


def test_a_closed_booth_sells_nothing_until_a_manager_reopens_it(night: Night) -> None:
    assert night("session", "close", "--as", "S1").exit_code == 0
    sold = night("sell", "A123456", "--qty", "1", "--as", "S1")
    assert sold.exit_code == 1
    assert "closed for session 2026-11-28/1 at 18:00 (rule CLOSE)" in sold.stderr
    nobody = night("session", "reopen", "--manager", "S1", "--reason", "late sale")
    assert nobody.exit_code == 1  # a seller does not reopen a booth
    blank = night("session", "reopen", "--manager", "M1", "--reason", "  ")
    assert blank.exit_code == 2
    reopened = night("session", "reopen", "--manager", "M1", "--reason", "a late sale")
    assert reopened.exit_code == 0, reopened.stderr
    assert night("sell", "A123456", "--qty", "1", "--as", "S1").exit_code == 0


def test_the_same_request_sent_twice_pays_once(night: Night) -> None:
    request = uuid.uuid4().hex
    first = night("--request-id", request, "bingo", "pay", "--game", "2", "--amount", "100.00",
                  "--as", "S1")  # fmt: skip
    second = night("--request-id", request, "bingo", "pay", "--game", "2", "--amount", "100.00",
                   "--as", "S1")  # fmt: skip
    assert (first.exit_code, second.exit_code) == (0, 0)
    assert second.stdout == first.stdout
    assert night.kinds_recorded(0).count("BingoPrizePaid") == 1


def test_a_prize_two_stations_paid_apart_is_an_exception_for_the_manager(night: Night) -> None:
    """Cut apart, the manager and booth-1 each pay game 1: neither could see the other. Once
    synced, the second payment is on the manager's exception list, and stays one row per
    prize in the prizes paid."""
    assert night("bingo", "pay", "--game", "1", "--amount", "100.00", "--as", "S1").exit_code == 0
    paid_at_manager = night.manager("bingo", "pay", "--game", "1", "--amount", "100.00",
                                    "--as", "S1")  # fmt: skip
    assert paid_at_manager.exit_code == 0, paid_at_manager.stderr
    sync(night.root)
    listed = night.manager("exception", "list", "--json")
    assert listed.exit_code == 0, listed.stderr
    repeated = [e for e in listed.json if e["kind"] == "prize-paid-twice"]
    assert len(repeated) == 1, listed.json
    assert repeated[0]["subject"] == "game 1 of session 2026-11-28/1"
    assert "two stations paid it while cut apart" in repeated[0]["detail"]
    again = night.manager("bingo", "pay", "--game", "1", "--amount", "100.00", "--as", "S1")
    assert again.exit_code == 1 and "(rule PAID)" in again.stderr
