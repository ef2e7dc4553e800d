"""Deals, bins, sessions and sales through the `booth` command: every refusal cites its rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pos.services import hall as hall_service
from pos.services import reports
from pos.services.station import Station
from tests.conftest import TRAINING_NOW, run_booth
from tests.halls import ENV, Hall, flare, refused, seal_flare

# --- intake -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "rule", "words"),
    [
        (flare(prizes=[{"amount": "2500.00", "count": 1}]), "K3", "above the $2,000.00 cap"),
        (flare(tickets=50, prizes=[{"amount": "1.00", "count": 51}]), "DEAL", "51 winners"),
        (flare(price="0.00"), "DEAL", "price of $0.00"),
        (seal_flare(sheet_and_seal_present=False), "C5", "sign-up sheet"),
        (
            seal_flare(
                seal={
                    "lines": 30,
                    "prize": "2000.01",
                    "progressive": False,
                    "hold_tickets": ["013"],
                }
            ),
            "K3",
            "seal prize",
        ),
    ],
)
@pytest.mark.rule("K3", "DEAL", "C5", "C1")
def test_intake_refusals(hall: Hall, data: dict[str, Any], rule: str, words: str) -> None:
    before = hall.count()
    result = hall.receive(data)
    refused(result, rule)
    assert words in result.stderr
    assert hall.count() == before


def test_a_duplicate_serial_is_refused(hall: Hall) -> None:
    assert hall.receive(flare()).exit_code == 0
    refused(hall.receive(flare(serial="a123456")), "DEAL")


def test_the_cap_is_a_setting_of_the_rulebook(hall: Hall) -> None:
    refused(hall.receive(flare(prizes=[{"amount": "2500.00", "count": 1}])), "K3")
    assert hall("rules", "set", "prize_cap", "3000.00").exit_code == 0
    assert hall.receive(flare(prizes=[{"amount": "2500.00", "count": 1}])).exit_code == 0
    listed = hall("rules", "--json").json
    k3 = next(rule for rule in listed if rule["id"] == "K3")
    assert "3,000.00" in json.dumps(k3) or "3000.00" in json.dumps(k3)


def test_intake_from_options_and_toml(hall: Hall) -> None:
    result = hall(
        "deal",
        "receive",
        "--serial",
        "B1",
        "--game",
        "pull-tab",
        "--name",
        "Cherries",
        "--form",
        "F-1",
        "--manufacturer",
        "Arrow",
        "--tickets",
        "1000",
        "--price",
        "0.50",
        "--prize",
        "100.00x1",
        "--prize",
        "1.00x200",
        "--supplier-name",
        "Supply",
        "--supplier-address",
        "2 Road",
        "--invoice",
        "I-9",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    assert result.json["ideal_gross"] == "500.00"
    assert result.json["total_prizes"] == "300.00"
    assert result.json["ideal_net"] == "200.00"
    toml = hall.tmp / "c.toml"
    toml.write_text(
        'serial = "C1"\ngame = "pull-tab"\nname = "Bells"\nform = "B-2"\nmanufacturer = "Arrow"\n'
        'tickets = 200\nprice = "1.00"\ninvoice = "I-1"\n'
        '[supplier]\nname = "S"\naddress = "A"\n[[prizes]]\namount = "20.00"\ncount = 3\n'
    )
    assert hall("deal", "receive", "--flare", str(toml)).exit_code == 0


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ("{not json", "flare"),
        (json.dumps(flare(price="1.005")), "price"),
        (json.dumps(flare(tickets="many")), "tickets"),
        (json.dumps(flare(prizes=[{"amount": "-5.00", "count": 1}])), "prizes[0].amount"),
        (json.dumps({k: v for k, v in flare().items() if k != "serial"}), "serial"),
        (json.dumps([1, 2, 3]), "flare"),
    ],
)
def test_malformed_flares_are_bad_input_naming_the_field(
    hall: Hall, content: str, field: str
) -> None:
    path = hall.tmp / "bad.json"
    path.write_text(content)
    before = hall.count()
    result = hall("deal", "receive", "--flare", str(path))
    assert result.exit_code == 2, result.stderr
    assert field in result.stderr
    assert hall.count() == before


# --- bins (C3) --------------------------------------------------------------------------------


def test_a_bin_takes_a_second_pull_tab_deal_only_when_commingling_is_disclosed(hall: Hall) -> None:
    for serial in ("P1", "P2", "P3"):
        assert hall.receive(flare(serial)).exit_code == 0
    assert hall("deal", "open", "P1", "--bin", "drawer-1").exit_code == 0
    refused(hall("deal", "open", "P2", "--bin", "drawer-1"), "C3")
    assert hall("house", "set", "commingling", "on").exit_code == 0
    assert hall("deal", "open", "P2", "--bin", "drawer-1").exit_code == 0
    third = hall("deal", "open", "P3", "--bin", "drawer-1")
    refused(third, "C3")
    assert "at most 2" in third.stderr


def test_a_seal_card_deal_is_always_alone(hall: Hall) -> None:
    assert hall("house", "set", "commingling", "on").exit_code == 0
    assert hall.receive(flare("P1")).exit_code == 0
    assert hall.receive(seal_flare("S1")).exit_code == 0
    assert hall("deal", "open", "P1", "--bin", "drawer-1").exit_code == 0
    refused(hall("deal", "open", "S1", "--bin", "drawer-1"), "C3")
    assert hall("deal", "open", "S1", "--bin", "drawer-2").exit_code == 0


# --- sessions and sales -----------------------------------------------------------------------


def test_a_sale_outside_a_session_is_refused(hall: Hall) -> None:
    assert hall.receive(flare()).exit_code == 0
    assert hall("deal", "open", "A123456", "--bin", "drawer-1").exit_code == 0
    refused(hall("sell", "A123456", "--qty", "1"), "SESSION")


def test_a_deal_not_in_play_is_refused(hall: Hall) -> None:
    assert hall.receive(flare()).exit_code == 0
    assert hall("session", "open").exit_code == 0
    refused(hall("sell", "A123456", "--qty", "1"), "BIN")


def test_a_deal_held_by_another_station_is_refused(selling: Hall, tmp_path: Path) -> None:
    with Station(selling.directory) as st:
        bundle = hall_service.add_station(st, name="booth-2", role="booth", operator="M1")
        events = list(st.ledger.events())
    path = tmp_path / "b2.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "booth-2", path, environ={"BOOTH_NOW": TRAINING_NOW})
    with Station(tmp_path / "booth-2") as booth:
        for event in events:
            booth.ledger.apply(event)
    result = run_booth(
        "--hall", str(tmp_path / "booth-2"), "sell", "A123456", "--qty", "1", env=ENV
    )
    refused(result, "OWNER")
    assert "held by manager" in result.stderr


def test_selling_more_than_remain_is_refused(selling: Hall) -> None:
    result = selling("sell", "A123456", "--qty", "4001")
    refused(result, "DEAL")


def test_a_sale_records_seller_amount_and_sequential_receipts(selling: Hall) -> None:
    first = selling("sell", "A123456", "--qty", "3", "--json")
    second = selling("sell", "A123456", "--qty", "2", "--json")
    assert first.exit_code == 0 and second.exit_code == 0
    assert (first.json["amount"], second.json["amount"]) == ("3.00", "2.00")
    assert second.json["receipt"] == first.json["receipt"] + 1
    shown = selling("deal", "show", "A123456", "--json").json
    assert (shown["tickets_sold"], shown["gross"], shown["tickets_left"]) == (5, "5.00", 3995)


def test_event_games_sell_only_at_the_flare_price(hall: Hall) -> None:
    assert (
        hall.receive(
            flare("E1", game="event", price="2.00", prizes=[{"amount": "50.00", "count": 2}])
        ).exit_code
        == 0
    )
    assert hall("deal", "open", "E1", "--bin", "drawer-9").exit_code == 0
    assert hall("session", "open").exit_code == 0
    refused(hall("sell", "E1", "--qty", "1", "--price", "1.00"), "K2")
    assert hall("sell", "E1", "--qty", "1", "--price", "2.00").exit_code == 0


@pytest.mark.rule("K5")
def test_event_games_end_with_their_session_and_others_carry_over(hall: Hall) -> None:
    assert (
        hall.receive(
            flare(
                "E1",
                game="event",
                price="2.00",
                tickets=100,
                prizes=[{"amount": "50.00", "count": 2}],
            )
        ).exit_code
        == 0
    )
    assert hall.receive(flare("P1")).exit_code == 0
    assert hall("deal", "open", "E1", "--bin", "drawer-9").exit_code == 0
    assert hall("deal", "open", "P1", "--bin", "drawer-1").exit_code == 0
    assert hall("session", "open").exit_code == 0
    assert hall("sell", "E1", "--qty", "10").exit_code == 0
    closed = hall("session", "close", "--json")
    assert closed.json["event_games_ended"] == ["E1"]
    assert closed.json["carried_over"] == ["P1"]
    e1 = hall("deal", "show", "E1", "--json").json
    assert (e1["state"], e1["unsold"], e1["tickets_sold"]) == ("closed", 90, 10)
    assert hall("deal", "show", "P1", "--json").json["state"] == "carried-over"
    reopened = hall("session", "open", "--json", BOOTH_NOW="2026-11-29T23:00:00+00:00")
    assert reopened.json["resumed"] == ["P1"] and reopened.json["session"] == "2026-11-29/1"
    assert hall("sell", "P1", "--qty", "1").exit_code == 0


def test_closing_records_unsold_and_keep_until(selling: Hall) -> None:
    assert selling("sell", "A123456", "--qty", "10").exit_code == 0
    refused(selling("deal", "close", "A123456", "--unsold", "3000"), "C4")
    closed = selling(
        "deal", "close", "A123456", "--unsold", "3990", "--note", "offered all night", "--json"
    )
    assert closed.exit_code == 0
    assert closed.json["unsold"] == 3990
    assert closed.json["keep_until"] == "2029-12-31"  # 3 years after the fiscal year of closing
    refused(selling("sell", "A123456", "--qty", "1"), "BIN")


def test_a_session_cannot_be_opened_twice(selling: Hall) -> None:
    refused(selling("session", "open"), "SESSION")


def test_a_buyer_under_18_is_refused(selling: Hall) -> None:
    assert (
        selling(
            "player",
            "register",
            "C-KID",
            "--dob",
            "2010-01-01",
            "--initials",
            "KB",
            "--id-number",
            "T1234567",
        ).exit_code
        == 0
    )
    result = selling("sell", "A123456", "--qty", "1", "--buyer", "C-KID")
    refused(result, "AGE")
    assert (
        selling(
            "player", "register", "C-ADULT", "--dob", "1980-01-01", "--initials", "AB"
        ).exit_code
        == 0
    )
    assert selling("sell", "A123456", "--qty", "1", "--buyer", "C-ADULT").exit_code == 0


def test_the_raw_id_number_is_never_stored(selling: Hall) -> None:
    selling(
        "player",
        "register",
        "C-1",
        "--dob",
        "1980-01-01",
        "--initials",
        "AB",
        "--id-number",
        "T7654321",
    )
    for path in (p for p in selling.directory.rglob("*") if p.is_file()):
        assert b"T7654321" not in path.read_bytes(), path


def test_a_worker_who_sold_today_is_refused_and_the_refusal_recorded(selling: Hall) -> None:
    assert selling("sell", "A123456", "--qty", "1", "--as", "S1").exit_code == 0
    result = selling("sell", "A123456", "--qty", "1", "--buyer", "S1")
    refused(result, "D")
    assert "sold deal A123456 on 2026-11-28" in result.stderr
    with Station(selling.directory) as st:
        blocked = st.ledger.conn.execute("SELECT rule, buyer, serial FROM p_blocked").fetchall()
    assert blocked == [("D", "S1", "A123456")]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["A123456", "--qty", "-1"], "qty"),
        (["A123456", "--qty", "0"], "qty"),
        (["A123456", "--qty", "99999999999999999999"], "qty"),
        (["A123456", "--qty", "three"], "qty"),
        (["A123456", "--qty", "1", "--price", "1.005"], "price"),
        (["NOPE", "--qty", "1"], "serial"),
        (["A123456", "--qty", "1", "--buyer", "UNKNOWN"], "buyer"),
    ],
)
def test_bad_sale_input_is_exit_2_and_records_nothing(
    selling: Hall, args: list[str], field: str
) -> None:
    before = selling.count()
    result = selling("sell", *args)
    assert result.exit_code == 2, result.stderr
    assert field in result.stderr
    assert selling.count() == before


def test_only_sellers_sell(selling: Hall) -> None:
    assert (
        selling("staff", "add", "--name", "Ida", "--badge", "I1", "--role", "inspector").exit_code
        == 0
    )
    refused(selling("sell", "A123456", "--qty", "1", "--as", "I1"), "ROLE")


# --- kiosks -----------------------------------------------------------------------------------


@pytest.fixture
def kiosk(hall: Hall, tmp_path: Path) -> Hall:
    """A kiosk holding pull-tab deal A123456 in dispenser column col-1, a session open."""
    assert hall.receive(flare()).exit_code == 0
    assert (
        hall("player", "register", "C-ADULT", "--dob", "1980-01-01", "--initials", "AB").exit_code
        == 0
    )
    assert hall("session", "open").exit_code == 0
    with Station(hall.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        bundle = hall_service.add_station(st, name="kiosk-1", role="kiosk", operator="M1")
    path = tmp_path / "k.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "kiosk-1", path, environ={"BOOTH_NOW": TRAINING_NOW})
    kiosk = Hall(tmp_path / "kiosk-1", hall.tmp)
    assert kiosk("deal", "open", "A123456", "--bin", "col-1").exit_code == 0
    return kiosk


def test_kiosks_sell_pull_tabs_only_where_the_house_allows(kiosk: Hall) -> None:
    result = kiosk("sell", "A123456", "--qty", "2", "--buyer", "C-ADULT")
    refused(result, "A")
    assert kiosk("house", "set", "kiosk-pull-tab-sales", "on").exit_code == 0
    refused(kiosk("sell", "A123456", "--qty", "2"), "ID")
    sold = kiosk("sell", "A123456", "--qty", "2", "--buyer", "C-ADULT", "--json")
    assert sold.exit_code == 0 and sold.json["qty"] == 2


def test_a_jammed_dispenser_records_what_came_out_and_credits_the_rest(kiosk: Hall) -> None:
    assert kiosk("house", "set", "kiosk-pull-tab-sales", "on").exit_code == 0
    assert kiosk("dispenser", "set", "sim:jam-every=3").exit_code == 0
    sold = kiosk("sell", "A123456", "--qty", "5", "--buyer", "C-ADULT", "--json")
    assert sold.exit_code == 0, sold.stderr
    assert (sold.json["requested"], sold.json["qty"], sold.json["credit"]) == (5, 2, "3.00")
    assert kiosk("deal", "show", "A123456", "--json").json["tickets_sold"] == 2
    assert kiosk("dispenser", "set", "sim:capacity=3").exit_code == 0
    empty = kiosk("sell", "A123456", "--qty", "2", "--buyer", "C-ADULT", "--json")
    assert (empty.json["qty"], empty.json["credit"]) == (0, "2.00")
    assert kiosk("verify").exit_code == 0


def _kiosk_voucher(directory: Path, cents: int) -> str:
    """A voucher on file at the kiosk (a credit it issued), as its QR code."""
    from pos.services import receipts, vouchers

    with Station(directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        with st.ledger.transaction():
            number = vouchers.issue_credit_voucher(st, cents, reason="dispenser credit")
        return receipts.receipt(st, st.id, number).qr


def test_a_kiosk_takes_a_voucher_and_gives_change_as_a_voucher(kiosk: Hall) -> None:
    assert kiosk("house", "set", "kiosk-pull-tab-sales", "on").exit_code == 0
    code = _kiosk_voucher(kiosk.directory, 500)
    sold = kiosk("sell", "A123456", "--qty", "2", "--buyer", "C-ADULT", "--voucher", code, "--json")
    assert sold.exit_code == 0, sold.stderr
    assert (sold.json["qty"], sold.json["amount"]) == (2, "2.00")
    assert (sold.json["voucher_paid"], sold.json["change"]) == ("5.00", "3.00")
    with Station(kiosk.directory) as st:
        rows = st.ledger.conn.execute(
            "SELECT number, amount, reason, redeemed_by_origin FROM p_vouchers ORDER BY number"
        ).fetchall()
        sale = st.ledger.conn.execute(
            "SELECT origin, seq FROM p_receipts WHERE type = 'TicketsSold'"
        ).fetchone()
        redeemed = st.ledger.conn.execute(
            "SELECT redeemed_seq FROM p_vouchers WHERE amount = 500"
        ).fetchone()
    assert [(r[1], r[2], r[3]) for r in rows] == [
        (500, "dispenser credit", "kiosk-1"),
        (300, "voucher change", None),
    ]
    assert rows[1][0] == sold.json["change_voucher"]
    assert redeemed[0] == sale[1] + 1, "redeemed in the sale's transaction, right after it"
    again = kiosk("sell", "A123456", "--qty", "1", "--buyer", "C-ADULT", "--voucher", code)
    refused(again, "PAID")  # a voucher is a prize paid once
    assert "already paid" in again.stderr
    assert kiosk("verify").exit_code == 0
    with Station(kiosk.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        (cash,) = reports.day_report(st)["cash"]
    # The $5 credit voucher stands for cash the kiosk took; paying with it moved no cash.
    assert (cash["station"], cash["expected"]) == ("kiosk-1", "5.00")


def test_a_voucher_that_does_not_cover_or_is_not_on_file_pays_nothing(
    kiosk: Hall, hall: Hall
) -> None:
    assert kiosk("house", "set", "kiosk-pull-tab-sales", "on").exit_code == 0
    small = _kiosk_voucher(kiosk.directory, 150)
    before = kiosk.count()
    short = kiosk("sell", "A123456", "--qty", "2", "--buyer", "C-ADULT", "--voucher", small)
    refused(short, "VOUCHER")
    assert "is for $1.50; 2 tickets cost $2.00" in short.stderr
    with Station(hall.directory) as st:
        from pos.services import receipts, vouchers

        issued = vouchers.issue_voucher(st, "20.00", reason="cash", operator="S1")
        elsewhere = receipts.receipt(st, st.id, issued.voucher).qr
    unknown = kiosk("sell", "A123456", "--qty", "1", "--buyer", "C-ADULT", "--voucher", elsewhere)
    refused(unknown, "VOUCHER")
    assert "not on file" in unknown.stderr
    assert kiosk.count() == before
    paid = kiosk(
        "sell", "A123456", "--qty", "1", "--buyer", "C-ADULT", "--voucher", small, "--json"
    )
    assert paid.exit_code == 0 and paid.json["change"] == "0.50"


def test_a_jam_while_paying_by_voucher_returns_the_unused_value(kiosk: Hall) -> None:
    assert kiosk("house", "set", "kiosk-pull-tab-sales", "on").exit_code == 0
    assert kiosk("dispenser", "set", "sim:jam-every=3").exit_code == 0
    code = _kiosk_voucher(kiosk.directory, 1000)
    sold = kiosk("sell", "A123456", "--qty", "5", "--buyer", "C-ADULT", "--voucher", code, "--json")
    assert sold.exit_code == 0, sold.stderr
    assert (sold.json["qty"], sold.json["amount"], sold.json["change"]) == (2, "2.00", "8.00")
    with Station(kiosk.directory) as st:
        credits = st.ledger.conn.execute(
            "SELECT amount, reason FROM p_vouchers WHERE redeemed_seq IS NULL"
        ).fetchall()
    assert credits == [(800, "voucher change")], "one voucher: the change and the shortfall"


def test_only_a_kiosk_takes_a_voucher_for_tickets(selling: Hall) -> None:
    result = selling("sell", "A123456", "--qty", "1", "--voucher", "anything")
    assert result.exit_code == 2 and "voucher" in result.stderr
