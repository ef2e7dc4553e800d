"""Issue #17, C1/K1, C2/K6 and deal figures: nothing tampered or counterfeit gets into play or
is paid, every prize counts against a deal, and a punch is a recorded fact."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from pos.services.station import Station
from tests.halls import Hall, flare, refused


def test_a_deal_marked_tampered_never_goes_into_play_whichever_way_taken_in(
    hall: Hall, tmp_path: Path
) -> None:
    # by flare file with --tampered (the flag was dropped before)
    path = hall.tmp / "t1.json"
    path.write_text(json.dumps(flare("T1")))
    taken = hall("deal", "receive", "--flare", str(path), "--tampered", "--json")
    assert taken.exit_code == 0, taken.stderr
    assert taken.json["state"] == "tampered" and taken.json["tampered"] is True
    # by a flare that says so, and by the command's options
    assert hall.receive(flare("T2", tampered=True)).exit_code == 0
    by_options = hall(
        "deal", "receive", "--serial", "T3", "--game", "pull-tab", "--name", "Lucky 7s",
        "--form", "LS-4000", "--manufacturer", "Arrow", "--tickets", "100", "--price", "1.00",
        "--prize", "5.00x2", "--supplier-name", "Bingo Supply Co",
        "--supplier-address", "1 Main St", "--invoice", "INV-9", "--tampered", "--json",
    )  # fmt: skip
    assert by_options.exit_code == 0, by_options.stderr
    for serial in ("T1", "T2", "T3"):
        before = hall.count()
        refused(hall("deal", "open", serial, "--bin", "drawer-1"), "C1")
        assert hall.count() == before
        shown = hall("deal", "show", serial)
        assert "MARKED TAMPERED" in shown.stdout and "state tampered" in shown.stdout
    assert hall("session", "open").exit_code == 0
    refused(hall("sell", "T1", "--qty", "1"), "C1")
    out = tmp_path / "export"
    assert hall("export", "--inspector", str(out)).exit_code == 0
    with (out / "tables" / "deals.csv").open() as handle:
        rows = {row["serial"]: row for row in csv.DictReader(handle)}
    assert rows["T1"]["tampered"] == "1" and rows["T1"]["state"] == "tampered"
    with Station(hall.directory) as st:
        assert st.ledger.conn.execute("SELECT count(*) FROM p_bins").fetchone() == (0,)


# --- C1: ticket numbers outside the deal ------------------------------------------------------


def test_a_ticket_number_outside_the_deal_is_refused_and_never_paid(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "10")
    before = selling.count()
    for code in ("A123456/4001/500", "A123456/0000/500", "A123456/999999/500"):
        outside = selling("redeem", code, "--as", "S1")
        refused(outside, "C1")
        assert "outside deal A123456's tickets 1..4000" in outside.stderr
    refused(selling("void", "A123456/4001", "--reason", "odd", "--as", "S1"), "C1")
    assert selling.count() == before
    assert selling("check", "A123456/4001/500", "--json").json["status"] == "invalid"
    assert selling("redeem", "A123456/4000/500", "--as", "S1").exit_code == 0


# --- C1: never more winners than tickets sold ---------------------------------------------------


def _flags(hall: Hall) -> list[tuple[str, str, str | None, str]]:
    with Station(hall.directory) as st:
        return [
            tuple(row)
            for row in st.ledger.conn.execute(
                "SELECT kind, ticket, player, detail FROM p_flags ORDER BY hlc"
            )
        ]


def test_winners_paid_never_exceed_tickets_sold(selling: Hall) -> None:
    selling("player", "register", "C-9", "--dob", "1970-01-01", "--initials", "JD")
    assert selling("sell", "A123456", "--qty", "2").exit_code == 0
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 0
    assert selling("redeem", "A123456/0002/500", "--as", "S1").exit_code == 0
    before = selling.count()
    third = selling("redeem", "A123456/0003/500", "--as", "S1", "--player", "C-9")
    refused(third, "C1")
    assert "probable counterfeit" in third.stderr
    # the exception is recorded for the manager (one event), and nothing is paid
    assert selling.count() == before + 1
    kind, ticket, player, detail = _flags(selling)[-1]
    assert (kind, ticket, player) == ("probable-counterfeit", "0003", "C-9")
    assert "sold 2 ticket(s) and has paid 2 winner(s)" in detail and "C-9" in detail
    assert selling("deal", "show", "A123456", "--json").json["prizes_paid"] == "10.00"
    listed = selling("exception", "list", "--json")
    assert any("winner 3 of 2 sold" in str(item) for item in listed.json)
    # once more are sold, the ticket pays
    assert selling("sell", "A123456", "--qty", "1").exit_code == 0
    assert selling("redeem", "A123456/0003/500", "--as", "S1").exit_code == 0


# --- C1: other marks of a counterfeit -----------------------------------------------------------


def test_a_ticket_of_a_deal_never_in_play_is_refused(selling: Hall) -> None:
    assert selling.receive(flare("B222")).exit_code == 0  # received, never opened
    before = selling.count()
    never = selling("redeem", "B222/0001/500", "--as", "S1")
    refused(never, "C1")
    assert "never put in play" in never.stderr
    assert selling.receive(flare("T9", tampered=True)).exit_code == 0
    refused(selling("redeem", "T9/0001/500", "--as", "S1"), "C1")
    assert selling.count() == before + 1  # only T9's intake


def test_a_closed_deal_pays_only_what_it_sold_today(selling: Hall) -> None:
    from tests.test_winners import NEXT_DAY

    assert selling("sell", "A123456", "--qty", "4000").exit_code == 0
    assert selling("deal", "close", "A123456", "--unsold", "0").exit_code == 0
    # sold today, closed today: its winners still pay today (B)
    assert selling("redeem", "A123456/0001/500", "--as", "S1").exit_code == 0
    assert selling("session", "close").exit_code == 0
    assert selling("session", "open", BOOTH_NOW=NEXT_DAY).exit_code == 0
    before = selling.count()
    late = selling("redeem", "A123456/0002/500", "--as", "S1", BOOTH_NOW=NEXT_DAY)
    refused(late, "C1")
    assert "closed and sold nothing today" in late.stderr
    assert selling.count() == before


def test_many_winners_from_one_buyer_are_paid_and_flagged(selling: Hall) -> None:
    selling("player", "register", "C-7", "--dob", "1970-01-01", "--initials", "PQ")
    assert selling("sell", "A123456", "--qty", "50").exit_code == 0
    for number in ("0001", "0002"):
        paid = selling("redeem", f"A123456/{number}/500", "--as", "S1", "--player", "C-7")
        assert paid.exit_code == 0, paid.stderr
    assert _flags(selling) == []
    third = selling("redeem", "A123456/0003/500", "--as", "S1", "--player", "C-7", "--json")
    assert third.exit_code == 0, third.stderr
    assert "3 winners of deal A123456 today" in third.json["flagged"]
    kind, ticket, player, detail = _flags(selling)[-1]
    assert (kind, ticket, player) == ("many-winners", "0003", "C-7")
    assert "bought 0 identified ticket(s)" in detail


def test_winners_within_what_a_buyer_bought_are_not_flagged(selling: Hall) -> None:
    selling("player", "register", "C-8", "--dob", "1970-01-01", "--initials", "PQ")
    assert selling("sell", "A123456", "--qty", "5", "--buyer", "C-8").exit_code == 0
    for number in ("0001", "0002", "0003"):
        paid = selling("redeem", f"A123456/{number}/500", "--as", "S1", "--player", "C-8")
        assert paid.exit_code == 0, paid.stderr
    assert _flags(selling) == []


# --- deal figures: every prize paid, seal prizes included -------------------------------------


def test_deal_figures_count_seal_prizes(hall: Hall) -> None:
    from tests.halls import seal_flare

    assert hall.receive(seal_flare("S1", tickets=20)).exit_code == 0
    assert hall("deal", "open", "S1", "--bin", "drawer-7").exit_code == 0
    assert hall("session", "open").exit_code == 0
    hall("player", "register", "C-1", "--dob", "1970-01-01", "--initials", "JD")
    hall("seal", "sign", "S1", "--ticket", "013", "--line", "7", "--player", "C-1")
    assert hall("sell", "S1", "--qty", "20").exit_code == 0
    assert hall("redeem", "S1/0005/5000", "--as", "S1").exit_code == 0
    assert hall("seal", "open", "S1", "--line", "7").exit_code == 0
    assert hall("seal", "claim", "S1", "--line", "7", "--as", "S1").exit_code == 0
    shown = hall("deal", "show", "S1", "--json").json
    assert shown["prizes_paid"] == "300.00"  # $50 instant winner + $250 seal prize
    assert shown["gross"] == "20.00" and shown["net"] == "-280.00"
    history = hall("report", "deal", "S1", "--json").json
    assert history["prizes_paid"] == "300.00" and history["net"] == "-280.00"


# --- C2/K6: the punch is a recorded fact -------------------------------------------------------


def test_the_punch_is_confirmed_and_recorded_with_who_and_when(selling: Hall) -> None:
    assert selling("sell", "A123456", "--qty", "10").exit_code == 0
    at_once = selling("redeem", "A123456/0001/500", "--as", "S1", "--punched", "--json")
    assert at_once.exit_code == 0 and at_once.json["punched"] is True
    assert selling("redeem", "A123456/0002/500", "--as", "S1").exit_code == 0
    assert selling("redeem", "A123456/0003/500", "--as", "S1").exit_code == 0
    day = selling("report", "day", "--json").json
    assert [u["ticket"] for u in day["unpunched"]] == ["A123456/0002", "A123456/0003"]
    assert "punch not confirmed (C2): 2" in selling("report", "day").stdout
    punched = selling("punch", "A123456/0002", "--as", "S1", "--json")
    assert punched.exit_code == 0, punched.stderr
    assert punched.json["by"] == "S1" and punched.json["at"]
    before = selling.count()
    refused(selling("punch", "A123456/0002", "--as", "S1"), "C2")  # once
    refused(selling("punch", "A123456/0009", "--as", "S1"), "C2")  # never paid
    assert selling("punch", "A123456", "--as", "S1").exit_code == 2  # no ticket number
    assert selling.count() == before
    day = selling("report", "day", "--json").json
    assert [u["ticket"] for u in day["unpunched"]] == ["A123456/0003"]
    with Station(selling.directory) as st:
        rows = st.ledger.conn.execute(
            "SELECT ticket, punched_by FROM p_redemptions WHERE punched_hlc IS NOT NULL "
            "ORDER BY ticket"
        ).fetchall()
        assert rows == [("0001", "S1"), ("0002", "S1")]
        kinds = [e.kind for e in st.ledger.events() if e.kind == "TicketPunched"]
        assert len(kinds) == 2


def test_punches_project_alike_in_either_order() -> None:
    import sqlite3
    from types import SimpleNamespace
    from typing import Any

    from pos.ledger.projections import deals as deals_projection
    from pos.ledger.projections import winners as winners_projection
    from pos.ledger.projections.base import ProjectionSet

    paid = (
        SimpleNamespace(origin="booth-1", seq=5, hlc="0005"),
        "WinnerRedeemed",
        {"serial": "A1", "ticket": "0001", "amount": 500, "by": "S1", "session": "s"},
    )
    punches = [
        (SimpleNamespace(origin="booth-2", seq=9, hlc="0009"), "TicketPunched",
         {"origin": "booth-1", "seq": 5, "serial": "A1", "ticket": "0001", "how": "scan",
          "by": "S2"}),
        (SimpleNamespace(origin="booth-1", seq=6, hlc="0006"), "TicketPunched",
         {"origin": "booth-1", "seq": 5, "serial": "A1", "ticket": "0001", "how": "tap",
          "by": "S1"}),
    ]  # fmt: skip
    handlers = winners_projection.WINNERS.handlers

    def project(order: list[Any]) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(":memory:")
        ProjectionSet([deals_projection.DEALS, winners_projection.WINNERS]).create(conn)
        for event, kind, body in order:
            handlers[kind](conn, event, body)
        return conn.execute("SELECT punched_by, punched_hlc FROM p_redemptions").fetchall()

    expected = [("S1", "0006")]  # the earliest punch by stamp stands
    assert project([paid, *punches]) == expected
    assert project([*punches, paid]) == expected
    assert project([punches[1], paid, punches[0]]) == expected
