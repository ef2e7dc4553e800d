"""Winners through the `booth` command: PUNCH NOW, refusals citing their rule, seal cards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pos.services import winners
from pos.services.station import Station
from tests.halls import Hall, flare, refused, seal_flare

NEXT_DAY = "2026-11-29T23:00:00+00:00"


def test_a_winner_pays_and_says_punch_now(selling: Hall) -> None:
    assert selling("sell", "A123456", "--qty", "10").exit_code == 0
    paid = selling("redeem", "A123456/0042/10000", "--as", "S1", "--json")
    assert paid.exit_code == 0, paid.stderr
    assert (paid.json["pay"], paid.json["say"]) == ("100.00", "PUNCH NOW")
    human = selling("redeem", "A123456/0043", "--tier", "5.00", "--as", "S1")
    assert "PUNCH NOW" in human.stdout and "$5.00" in human.stdout
    shown = selling("deal", "show", "A123456", "--json").json
    tiers = {t["amount"]: (t["paid"], t["left"]) for t in shown["tiers"]}
    assert tiers["100.00"] == (1, 1) and tiers["5.00"] == (1, 99)
    assert shown["prizes_paid"] == "105.00" and shown["net"] == "-95.00"


def test_a_second_scan_says_who_paid_it_and_pays_nothing(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "10")
    assert selling("redeem", "A123456/0042/10000", "--as", "S1").exit_code == 0
    again = selling("redeem", "A123456/0042/10000", "--as", "S1")
    refused(again, "C2")
    assert "already paid at 2026-11-28 18:00 by Sam Seller (S1) at manager" in again.stderr
    assert selling("deal", "show", "A123456", "--json").json["prizes_paid"] == "100.00"
    with Station(selling.directory) as st:
        flags = st.ledger.conn.execute("SELECT kind, ticket FROM p_flags").fetchall()
    assert flags == [("double-payment", "0042")]


def test_more_winners_than_the_flare_holds_is_a_probable_counterfeit(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "10")
    assert selling("redeem", "A123456/0001/50000", "--as", "S1").exit_code == 0
    second = selling("redeem", "A123456/0002/50000", "--as", "S1")
    refused(second, "DEAL")
    assert "probable counterfeit" in second.stderr
    with Station(selling.directory) as st:
        assert st.ledger.conn.execute("SELECT kind FROM p_flags").fetchall() == [
            ("probable-counterfeit",)
        ]


def test_a_voided_ticket_never_pays(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "10")
    voided = selling("void", "A123456/0007", "--reason", "tampered: tabs lifted", "--as", "S1")
    assert voided.exit_code == 0, voided.stderr
    refused(selling("redeem", "A123456/0007/500", "--as", "S1"), "C1")
    refused(selling("void", "A123456/0007", "--reason", "again", "--as", "S1"), "C1")


def test_prizes_are_paid_only_on_the_game_date_of_sale(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "10")
    assert selling("session", "close").exit_code == 0
    refused(selling("redeem", "A123456/0001/500", "--as", "S1"), "B")
    assert selling("session", "open", BOOTH_NOW=NEXT_DAY).exit_code == 0
    late = selling("redeem", "A123456/0001/500", "--as", "S1", BOOTH_NOW=NEXT_DAY)
    refused(late, "B")
    assert "last 2026-11-28" in late.stderr
    selling("sell", "A123456", "--qty", "1", BOOTH_NOW=NEXT_DAY)
    assert selling("redeem", "A123456/0001/500", "--as", "S1", BOOTH_NOW=NEXT_DAY).exit_code == 0


def test_only_the_holder_pays(selling: Hall, tmp_path: Path) -> None:
    from pos.services import hall as hall_service

    with Station(selling.directory) as st:
        bundle = hall_service.add_station(st, name="booth-2", role="booth", operator="M1")
    path = tmp_path / "b2.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "booth-2", path, environ={"BOOTH_NOW": NEXT_DAY})
    other = Hall(tmp_path / "booth-2", selling.tmp)
    refused(other("redeem", "A123456/0001/500", "--as", "S1"), "OWNER")


def test_an_unknown_deal_is_refused(selling: Hall) -> None:
    refused(selling("redeem", "ZZZ999/0001/500", "--as", "S1"), "DEAL")


def test_only_redeemers_pay(selling: Hall) -> None:
    added = selling(
        "staff", "add", "--name", "Sue", "--badge", "S9", "--role", "seller", "--dob", "1980-01-01"
    )
    assert added.exit_code == 0, added.stderr
    refused(selling("redeem", "A123456/0001/500", "--as", "S9"), "ROLE")


def test_a_minor_is_not_paid(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "10")
    selling("player", "register", "C-KID", "--dob", "2012-02-02", "--initials", "KD")
    refused(selling("redeem", "A123456/0001/500", "--as", "S1", "--player", "C-KID"), "AGE")


def test_w2g_prizes_record_the_winner_sealed_to_the_hall(hall: Hall) -> None:
    assert (
        hall.receive(
            flare("BIG1", price="1.00", prizes=[{"amount": "2000.00", "count": 1}])
        ).exit_code
        == 0
    )
    hall("deal", "open", "BIG1", "--bin", "drawer-5")
    hall("session", "open")
    hall("sell", "BIG1", "--qty", "1")
    refused(hall("redeem", "BIG1/0001/200000", "--as", "S1"), "W2G")
    paid = hall(
        "redeem",
        "BIG1/0001/200000",
        "--as",
        "S1",
        "--winner-name",
        "Pat Doe",
        "--winner-address",
        "9 Elm St",
        "--winner-tin",
        "123-45-6789",
        "--winner-id",
        "VA DL T1234567",
        "--json",
    )
    assert paid.exit_code == 0 and paid.json["w2g"] is True
    for path in (p for p in hall.directory.rglob("*") if p.is_file()):
        assert b"123-45-6789" not in path.read_bytes(), "the tax ID is stored only sealed"
    origin, seq = paid.json["event"].split(":")
    with Station(hall.directory) as st:
        opened = winners.winner_data(st, origin, int(seq))
    assert opened["tin"] == "123-45-6789" and opened["name"] == "Pat Doe"


@pytest.mark.parametrize(
    ("code", "extra", "field"),
    [
        ("A123456/00\x0742", [], "code"),
        ("", [], "code"),
        ("A123456/0042", [], "tier"),
        ("A123456/0042", ["--tier", "7.00"], "tier"),
        ("A123456/0042/500", ["--tier", "1.00"], "tier"),
        ("A123456/0042", ["--tier", "abc"], "tier"),
    ],
)
def test_bad_scans_are_exit_2_and_record_nothing(
    selling: Hall, code: str, extra: list[str], field: str
) -> None:
    before = selling.count()
    result = selling("redeem", code, "--as", "S1", *extra)
    assert result.exit_code == 2, result.stderr
    assert field in result.stderr
    assert selling.count() == before


def test_a_ticket_void_needs_its_number(selling: Hall) -> None:
    result = selling("void", "A123456", "--reason", "torn", "--as", "S1")
    assert result.exit_code == 2 and "ticket number" in result.stderr


def test_a_sale_voided_by_a_manager_comes_off_the_totals(selling: Hall) -> None:
    sale = selling("sell", "A123456", "--qty", "4", "--json").json
    refused(
        selling("void", "--sale", str(sale["receipt"]), "--reason", "rung twice", "--as", "S1"),
        "ROLE",
    )
    voided = selling("void", "--sale", str(sale["receipt"]), "--reason", "rung twice", "--json")
    assert voided.exit_code == 0 and voided.json["amount"] == "4.00"
    shown = selling("deal", "show", "A123456", "--json").json
    assert (shown["tickets_sold"], shown["gross"]) == (0, "0.00")
    refused(selling("void", "--sale", str(sale["receipt"]), "--reason", "again"), "DEAL")


def test_a_kiosk_checks_a_ticket_without_paying(selling: Hall) -> None:
    checked = selling("check", "A123456/0042/10000", "--json")
    assert checked.json["status"] == "winner" and checked.json["pay"] == "100.00"
    selling("sell", "A123456", "--qty", "1")
    selling("redeem", "A123456/0042/10000", "--as", "S1")
    assert selling("check", "A123456/0042/10000", "--json").json["status"] == "paid"


# --- seal cards -------------------------------------------------------------------------------


@pytest.fixture
def seal_deal(hall: Hall) -> Hall:
    assert hall.receive(seal_flare("S1", tickets=20)).exit_code == 0
    assert hall("deal", "open", "S1", "--bin", "drawer-7").exit_code == 0
    assert hall("session", "open").exit_code == 0
    hall("player", "register", "C-1", "--dob", "1970-01-01", "--initials", "JD")
    return hall


def test_hold_tickets_sign_the_sheet_once(seal_deal: Hall) -> None:
    signed = seal_deal(
        "seal", "sign", "S1", "--ticket", "013", "--line", "7", "--player", "C-1", "--json"
    )
    assert signed.exit_code == 0, signed.stderr
    assert signed.json["lines"][6] == {"line": 7, "ticket": "013", "player": "C-1", "winner": False}
    refused(seal_deal("seal", "sign", "S1", "--ticket", "013", "--line", "8"), "C5")
    refused(seal_deal("seal", "sign", "S1", "--ticket", "113", "--line", "7"), "C5")
    refused(seal_deal("seal", "sign", "S1", "--ticket", "999", "--line", "9"), "C5")
    bad = seal_deal("seal", "sign", "S1", "--ticket", "113", "--line", "31")
    assert bad.exit_code == 2 and "line" in bad.stderr
    sheet = seal_deal("seal", "sheet", "S1")
    assert "line   7: hold 013 (C-1)" in sheet.stdout


def test_the_seal_opens_only_when_sold_out_and_pays_within_the_window(seal_deal: Hall) -> None:
    seal_deal("seal", "sign", "S1", "--ticket", "013", "--line", "7", "--player", "C-1")
    refused(seal_deal("seal", "open", "S1", "--line", "7"), "C5")
    assert seal_deal("sell", "S1", "--qty", "20").exit_code == 0
    opened = seal_deal("seal", "open", "S1", "--line", "7", "--json")
    assert opened.exit_code == 0, opened.stderr
    assert opened.json["claim_until"] == "2026-12-28"
    assert opened.json["lines"][6]["winner"] is True
    assert seal_deal("deal", "show", "S1", "--json").json["state"] == "closed"
    refused(seal_deal("seal", "claim", "S1", "--line", "8", "--as", "S1"), "B")
    late = seal_deal(
        "seal", "claim", "S1", "--line", "7", "--as", "S1", BOOTH_NOW="2026-12-30T20:00:00+00:00"
    )
    refused(late, "B")
    paid = seal_deal("seal", "claim", "S1", "--line", "7", "--as", "S1", "--json")
    assert paid.exit_code == 0 and paid.json["pay"] == "250.00"
    refused(seal_deal("seal", "claim", "S1", "--line", "7", "--as", "S1"), "C2")


def test_unclaimed_progressive_prizes_move_to_the_next_game_by_themselves(hall: Hall) -> None:
    progressive = {"lines": 30, "prize": "100.00", "progressive": True, "hold_tickets": ["013"]}
    hall.receive(seal_flare("PR1", tickets=10, seal=progressive))
    hall.receive(seal_flare("PR2", tickets=10, seal=progressive))
    hall("deal", "open", "PR1", "--bin", "drawer-1")
    hall("deal", "open", "PR2", "--bin", "drawer-2")
    hall("session", "open")
    hall("sell", "PR1", "--qty", "10")
    assert hall("seal", "open", "PR1", "--line", "3").exit_code == 0
    hall("session", "close")
    later = "2027-01-05T23:00:00+00:00"
    reopened = hall("session", "open", "--json", BOOTH_NOW=later)
    assert reopened.json["progressive_carried"] == [
        {"from": "PR1", "line": 3, "to": "PR2", "amount": "100.00"}
    ]
    refused(hall("seal", "claim", "PR1", "--line", "3", "--as", "S1", BOOTH_NOW=later), "C6")
    hall("sell", "PR2", "--qty", "10", BOOTH_NOW=later)
    opened = hall("seal", "open", "PR2", "--line", "5", "--json", BOOTH_NOW=later)
    assert opened.json["lines"][4]["prize"]["amount"] == "200.00"
