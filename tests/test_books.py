"""The bookkeeper's quarter: blind counts verified by two people, deposits and their deadlines
(weekends and Virginia's holidays), disbursements by check, and the state's quarterly figures
(Form 102) checked against figures worked out by hand, read back from the xlsx cell by cell."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from pos.domain import books
from pos.domain.business_days import (
    add_business_days,
    holidays,
    is_business_day,
    virginia_holidays,
)
from pos.domain.rulebook import InvalidSetting, Settings
from pos.errors import BadInput, RuleRefused
from pos.services import (
    books_cash,
    books_deposits,
    books_quarter,
    deals,
    devices_rental,
    exceptions,
    reports,
    sales,
    sessions,
    staff,
    winners,
)
from pos.services import hall as hall_service
from pos.services.station import Station
from tests.conftest import run_booth
from tests.halls import flare

# -- deadlines ------------------------------------------------------------------------------------


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    following = date(year + (month == 12), month % 12 + 1, 1)
    last = following - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def statute_days(year: int) -> set[date]:
    """Code of Virginia § 2.2-3300 as written, by hand: the legal holidays of `year` on the days
    they are observed (Saturday to the Friday before, Sunday to the Monday after). Inauguration
    Day is "the twentieth day of January following the quadrennial election of the President"."""
    mon, thu = 0, 3
    thanksgiving = _nth_weekday(year, 11, thu, 4)
    days = {
        date(year, 1, 1),
        _nth_weekday(year, 1, mon, 3),  # Martin Luther King, Jr., Day
        _nth_weekday(year, 2, mon, 3),  # George Washington Day
        _nth_weekday(year, 5, mon, -1),  # Memorial Day
        date(year, 6, 19),  # Juneteenth
        date(year, 7, 4),
        _nth_weekday(year, 9, mon, 1),  # Labor Day
        _nth_weekday(year, 10, mon, 2),  # Columbus Day and Yorktown Victory Day
        _nth_weekday(year, 11, mon, 1) + timedelta(days=1),  # Election Day
        date(year, 11, 11),
        thanksgiving,
        thanksgiving + timedelta(days=1),
        date(year, 12, 25),
    }
    observed = set()
    for day in days:
        shift = {5: -1, 6: 1}.get(day.weekday(), 0)
        observed.add(day + timedelta(days=shift))
    inauguration = date(year, 1, 20)
    if year % 4 == 1 and inauguration.weekday() < 5:
        # on its day only, as the `holidays` package keeps it (5 U.S.C. 6103 (c) moves only a
        # Sunday's, to the Monday: none falls on a Sunday before 2041)
        observed.add(inauguration)
    return {d for d in observed if d.year == year}


@pytest.mark.rule("DEPOSIT")
@pytest.mark.parametrize("year", range(2021, 2041))
def test_the_virginia_calendar_holds_every_day_of_the_statute(year: int) -> None:
    """§ 2.2-3300's list, by hand, against the calendar from the `holidays` package. A 1 January
    on a Saturday is observed on 31 December of the year before, in that year's list."""
    found = set(holidays("virginia", year))
    statute = statute_days(year) | {
        date(year, 12, 31) for _ in [0] if date(year + 1, 1, 1).weekday() == 5
    }
    assert found == statute, (sorted(statute - found), sorted(found - statute))
    assert holidays("virginia", 2026)[date(2026, 10, 12)] == (
        "Columbus Day and Yorktown Victory Day"
    )  # the statute's words


@pytest.mark.rule("DEPOSIT")
def test_inauguration_day_is_a_holiday_for_the_deposit_deadline() -> None:
    """11VAC20-20-80 D, § 2.2-3300: a session on Tuesday 18 January 2033 is deposited by the
    second business day following it. Wednesday the 19th is the first; Thursday the 20th is
    Inauguration Day; so Friday the 21st is the second (the hand-written calendar said the
    20th)."""
    assert date(2033, 1, 20) in virginia_holidays(2033)
    assert books.deposit_due(date(2033, 1, 18), business_days=2, calendar="virginia") == date(
        2033, 1, 21
    )
    # Lee-Jackson Day is gone since 2020 (the Friday before MLK Day was one until then)
    assert date(2026, 1, 16) not in virginia_holidays(2026)


@pytest.mark.rule("DEPOSIT")
def test_deposit_deadline_across_a_weekend() -> None:
    # a Friday session: Saturday and Sunday do not count, so Monday then Tuesday
    friday = date(2026, 8, 14)
    assert books.deposit_due(friday, business_days=2, calendar="virginia") == date(2026, 8, 18)
    # a Thursday session: Friday, then (over the weekend) Monday
    assert books.deposit_due(date(2026, 8, 13), business_days=2, calendar="virginia") == date(
        2026, 8, 17
    )
    assert not is_business_day(date(2026, 8, 15), "virginia")


@pytest.mark.rule("DEPOSIT")
def test_deposit_deadline_across_a_state_holiday() -> None:
    # Thursday 2 July 2026: Friday 3 July is Independence Day observed, then the weekend
    assert books.deposit_due(date(2026, 7, 2), business_days=2, calendar="virginia") == date(
        2026, 7, 7
    )
    # Thursday 3 September: Friday 4, then Labor Day Monday 7 is skipped -> Tuesday 8
    assert books.deposit_due(date(2026, 9, 3), business_days=2, calendar="virginia") == date(
        2026, 9, 8
    )
    # Wednesday 25 November: Thanksgiving and the Friday after, the weekend -> Tuesday 1 Dec
    assert books.deposit_due(date(2026, 11, 25), business_days=2, calendar="virginia") == date(
        2026, 12, 1
    )
    # the holiday calendar is a setting: with none, only the weekend is skipped
    assert add_business_days(date(2026, 7, 2), 2, "none") == date(2026, 7, 6)
    # electronic gaming receipts: at least every seven calendar days, holidays or not
    assert books.weekly_due(date(2026, 7, 2), days=7) == date(2026, 7, 9)


@pytest.mark.rule("DEPOSIT", "FEE")
def test_the_holiday_calendar_and_fee_rates_are_rulebook_settings() -> None:
    rules = Settings()
    assert rules.holiday_calendar == "virginia"
    assert (rules.audit_fee_basis_points, rules.audit_fee_additional_basis_points) == (50, 25)
    assert Settings.from_mapping({"holiday-calendar": "none"}).holiday_calendar == "none"
    with pytest.raises(InvalidSetting, match="holiday_calendar"):
        Settings.from_mapping({"holiday_calendar": "narnia"})
    with pytest.raises(InvalidSetting, match="audit_fee_basis_points"):
        Settings.from_mapping({"audit_fee_basis_points": "200"})  # § 18.2-340.31 B: 1.25% at most


def test_the_state_reports_due_dates() -> None:
    assert [books.quarter(2026, q).due for q in (1, 2, 3, 4)] == [
        date(2026, 6, 1),
        date(2026, 9, 1),
        date(2026, 12, 1),
        date(2027, 3, 1),
    ]
    assert books.annual(2026).due == date(2027, 3, 15)
    assert books.quarter(2026, 4).end == date(2026, 12, 31)
    due = books.due_next(date(2027, 2, 1))
    assert [(p.label, p.due) for p in due] == [
        ("2026 Q4", date(2027, 3, 1)),
        ("2026", date(2027, 3, 15)),
    ]
    assert [p.label for p in books.due_next(date(2026, 10, 1))] == ["2026 Q3"]


@pytest.mark.rule("FEE")
def test_the_audit_and_administration_fee() -> None:
    # 0.5% + 0.25% of $10,000.00 gross = $75.00; electronic: of $1,000 adjusted = $7.50
    assert books.audit_fee(1_000_000, 0, rate_bp=50, additional_bp=25) == 7_500
    assert books.audit_fee(1_000_000, 100_000, rate_bp=50, additional_bp=25) == 8_250
    assert books.audit_fee(1_234, 0, rate_bp=50, additional_bp=25) == 9  # 9.255 cents -> 9


def test_every_product_kind_maps_to_a_form_line() -> None:
    game_types = {key for key, _ in books.GAME_TYPES}
    for kind in ("pull-tab", "seal-card", "event", "device-rental"):
        assert books.game_type(kind) in game_types
    assert all(line.game_type in game_types for line in books.PRODUCT_LINES.values())
    assert books.PRODUCT_LINES["electronic-pull-tab"].deposit == books.WEEKLY


# -- the scripted quarter -------------------------------------------------------------------------

START = "2026-06-25T16:00:00+00:00"
# (game date, when the session opens: 18:00 hall time = 22:00 UTC in summer)
SESSIONS = {
    "2026-07-02": "2026-07-02T22:00:00+00:00",  # Thursday before Independence Day (observed)
    "2026-07-18": "2026-07-18T22:00:00+00:00",  # a Saturday
    "2026-08-14": "2026-08-14T22:00:00+00:00",  # a Friday: the short drawer
    "2026-09-03": "2026-09-03T22:00:00+00:00",  # Thursday before Labor Day
}
# tickets sold, winners paid ($5 tickets), devices rented ($15 each) per session
PLAY = {
    "2026-07-02": (120, 3, 1),
    "2026-07-18": (80, 2, 0),
    "2026-08-14": (150, 4, 2),
    "2026-09-03": (60, 1, 0),
}
SHORT = 700  # the 14 August drawer comes up $7.00 short


def _env(when: str) -> dict[str, str]:
    return {"BOOTH_NOW": when}


def _at(directory: Path, when: str) -> Station:
    return Station(directory, environ=_env(when))


@pytest.fixture(scope="module")
def quarter_hall(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A training hall's third quarter of 2026, scripted: four sessions over ten weeks, each
    counted blind and deposited (one late), two checks written, one drawer short."""
    directory = tmp_path_factory.mktemp("quarter") / "manager"
    hall_service.init_hall(
        directory,
        organisation="Riverside Volunteer Fire Company",
        location="12 Main St, Richmond VA",
        time_zone="America/New_York",
        training=True,
        environ=_env(START),
    )
    with _at(directory, START) as m:
        staff.add_staff(m, badge="M1", name="Mary Manager", roles=["manager"],
                        date_of_birth="1970-01-01", operator=None)  # fmt: skip
        staff.add_staff(m, badge="M2", name="Max Treasurer", roles=["manager"],
                        date_of_birth="1968-02-02", operator="M1")  # fmt: skip
        staff.add_staff(m, badge="S1", name="Sam Seller", roles=["seller", "redeemer"],
                        date_of_birth="1990-05-05", operator="M1")  # fmt: skip
        prizes = [{"amount": "5.00", "count": 200}]
        deals.receive_deal(
            m,
            deals.flare_from_mapping(flare("P1", tickets=2000, prizes=prizes, invoice="INV-1001")),
            operator="M1",
        )
        deals.receive_deal(
            m,
            deals.flare_from_mapping(flare("P2", tickets=2000, prizes=prizes, invoice="INV-2002")),
            operator="M1",
        )
        deals.open_deal(m, "P1", bin_name="drawer-1", operator="M1")
        devices_rental.add_devices(m, ["D1", "D2"], model=None, operator="M1")
        devices_rental.define_package(m, "basic", faces="12", games="10", price="15.00",
                                      operator="M1")  # fmt: skip
    ticket = 0
    counts: dict[str, dict[str, Any]] = {}
    for game_date, when in SESSIONS.items():
        sold, paid, rented = PLAY[game_date]
        with _at(directory, when) as m:
            sessions.open_session(m, operator="M1")
            sales.sell(m, "P1", qty=sold, operator="S1")
            for _ in range(paid):
                ticket += 1
                winners.redeem(m, f"P1/{ticket:04d}/500", operator="S1", punched=True)
            rentals = [
                devices_rental.rent(m, faces="12", games="10", operator="S1") for _ in range(rented)
            ]
            for rental in rentals:
                devices_rental.return_device(m, rental.device, operator="S1")
            expected = sold * 100 + rented * 1500 - paid * 500
            counted = expected - (SHORT if game_date == "2026-08-14" else 0)
            # blind: S1 counts and only then is told what the ledger expected
            first = books_cash.count(m, f"{counted / 100:.2f}", operator="S1")
            assert first["status"] == "not verified"
            second = books_cash.verify(m, f"{counted / 100:.2f}", operator="M2")
            counts[game_date] = {"expected": expected, "counted": counted, "first": first,
                                 "second": second}  # fmt: skip
            sessions.close_session(m, operator="M1")
    deposits_made = {
        # on time: Tuesday 7 July, across Independence Day observed and the weekend
        "2026-07-02": ("B-101", "2026-07-07"),
        "2026-07-18": ("B-102", "2026-07-20"),
        # late: due Tuesday 18 August, taken Thursday 20 August
        "2026-08-14": ("B-103", "2026-08-20"),
        # on time: Tuesday 8 September, across Labor Day
        "2026-09-03": ("B-104", "2026-09-08"),
    }
    with _at(directory, "2026-10-01T14:00:00+00:00") as m:
        session_of = {
            game_date: next(s for s in m.ledger.conn.execute(
                "SELECT session FROM p_sessions WHERE game_date = ?", (game_date,)))[0]
            for game_date in SESSIONS
        }  # fmt: skip
        for game_date, (bag, on) in deposits_made.items():
            counted = counts[game_date]["counted"]
            checks = 2000 if game_date == "2026-07-18" else 0  # one $20 check taken at the door
            books_deposits.record(
                m, bag=bag, sessions=[session_of[game_date]],
                cash=f"{(counted - checks) / 100:.2f}", checks=f"{checks / 100:.2f}",
                taken_by="M2", on=on, operator="M1",
            )  # fmt: skip
        books_deposits.confirm(m, "B-101", credited=f"{counts['2026-07-02']['counted'] / 100:.2f}",
                               on="2026-07-08", operator="M1")  # fmt: skip
        books_deposits.disburse(
            m, payee="Bingo Supply Co", amount="420.00", check="1001", on="2026-07-10",
            category="supplies", invoice="INV-1001", operator="M1",
        )  # fmt: skip
        books_deposits.disburse(
            m, payee="Main St Hall LLC", amount="600.00", check="1002", on="2026-08-01",
            category="rent", invoice="August lease", operator="M1",
        )  # fmt: skip
    return {"directory": directory, "counts": counts, "sessions": session_of}


def _by_hand() -> dict[str, int]:
    sold = sum(p[0] for p in PLAY.values()) * 100
    rented = sum(p[2] for p in PLAY.values()) * 1500
    prizes = sum(p[1] for p in PLAY.values()) * 500
    gross = sold + rented
    expenses = 42_000 + 60_000
    return {
        "receipts.bingo": rented,  # electronic bingo device rentals
        "receipts.instant": sold,
        "receipts.raffle": 0,
        "receipts.electronic": 0,
        "receipts.total": gross,
        "prizes.instant": prizes,
        "prizes.total": prizes,
        "expenses.supplies": 42_000,
        "expenses.rent": 60_000,
        "expenses.total": expenses,
        "net.gaming": gross - prizes - expenses,
        "proceeds.use": 0,
        "fee.base": gross,
        "fee.amount": (gross * 75 + 5_000) // 10_000,
    }


@pytest.mark.rule("FEE", "DISBURSE")
def test_the_quarters_form_102_matches_the_hand_count(quarter_hall: dict[str, Any]) -> None:
    with _at(quarter_hall["directory"], "2026-10-01T15:00:00+00:00") as m:
        result = books_quarter.state_report(m, "quarter", 2026, 3)
    lines = {line["key"]: line for line in books_quarter.lines_of(result)}
    hand = _by_hand()
    # 410 tickets at $1, 3 rentals at $15, 10 winners at $5; checks $420 + $600
    assert hand["receipts.total"] == 45_500 and hand["prizes.total"] == 5_000
    for key, cents in hand.items():
        assert lines[key]["cents"] == cents, key
    assert result["due"] == "2026-12-01" and len(result["sessions"]) == 4
    # every figure traces to its events: 4 sales, 3 rentals, 10 prizes, 2 checks
    assert len(lines["receipts.instant"]["sources"]) == 4
    assert (
        sum(s["amount"] for s in lines["receipts.instant"]["sources"]) == hand["receipts.instant"]
    )
    assert len(lines["receipts.bingo"]["sources"]) == 3
    assert len(lines["prizes.instant"]["sources"]) == 10
    assert [s["kind"] for s in lines["expenses.rent"]["sources"]] == ["DisbursementRecorded"]
    # what only a person knows is listed, never guessed
    assert lines["cash.end"]["cents"] is None
    gaps = " | ".join(g["what"] for g in result["gaps"])
    assert "balance on 2026-09-30" in gaps
    assert "deal P2" in gaps and "INV-2002" in gaps and "deal P1" not in gaps
    # once the treasurer reads the statement, the money on hand is filled
    with _at(quarter_hall["directory"], "2026-10-02T15:00:00+00:00") as m:
        books_deposits.record_balance(m, on="2026-09-30", amount="1234.56", operator="M2")
        filled = books_quarter.state_report(m, "quarter", 2026, 3)
    cash_end = next(x for x in books_quarter.lines_of(filled) if x["key"] == "cash.end")
    assert cash_end["cents"] == 123_456 and cash_end["sources"][0]["kind"] == "BankBalanceRecorded"
    assert not any("balance on 2026-09-30" in g["what"] for g in filled["gaps"])


@pytest.mark.rule("DEPOSIT")
def test_deposits_on_time_late_and_reconciled(quarter_hall: dict[str, Any]) -> None:
    with _at(quarter_hall["directory"], "2026-10-01T15:00:00+00:00") as m:
        made = {d["bag"]: d for d in books_deposits.deposits(m)}
        listed = exceptions.review_list(m)
    assert made["B-101"]["due"] == "2026-07-07" and not made["B-101"]["late"]
    assert made["B-102"]["due"] == "2026-07-21" and not made["B-102"]["late"]
    assert made["B-102"]["checks"] == "20.00"
    assert made["B-103"]["due"] == "2026-08-18" and made["B-103"]["late"]
    assert made["B-104"]["due"] == "2026-09-08" and not made["B-104"]["late"]
    assert not any(d["short"] for d in made.values())
    assert made["B-101"]["reconciled"] is True and made["B-102"]["reconciled"] is None
    late = [e for e in listed if e["kind"].startswith("deposit")]
    assert [(e["kind"], e["subject"]) for e in late] == [
        ("deposit-late", f"bag B-103 ({quarter_hall['sessions']['2026-08-14']})")
    ]
    assert "due by 2026-08-18" in late[0]["detail"]


@pytest.mark.rule("COUNT2")
def test_the_short_drawer_verified_by_two_people(
    quarter_hall: dict[str, Any], tmp_path: Path
) -> None:
    short = quarter_hall["counts"]["2026-08-14"]
    assert short["first"]["variance"] == "-7.00" and short["first"]["counted_by"] == "S1"
    assert short["second"]["status"] == "verified" and short["second"]["verified_by"] == "M2"
    with _at(quarter_hall["directory"], "2026-10-01T15:00:00+00:00") as m:
        day = reports.day_report(m, "2026-08-14")
        running = books_cash.running_list(m)
    (count,) = day["counts"]
    assert (count["counted_by"], count["verified_by"], count["status"]) == ("S1", "M2", "verified")
    assert count["variance"] == "-7.00"
    assert day["variance"]["people"][0] == {
        "person": "S1", "counts": 1, "short": 1, "over": 0, "short_total": "7.00",
        "over_total": "0.00", "net": "-7.00",
    }  # fmt: skip
    assert running["people"][0]["person"] == "S1" and running["people"][0]["short"] == 1
    assert running["people"][0]["counts"] == 4 and running["not_verified"] == 0
    reports.write_csv(day, tmp_path / "day")
    with (tmp_path / "day" / "counts.csv").open() as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["counted_by"], row["verified_by"], row["status"], row["variance"]) == (
        "S1", "M2", "verified", "-7.00"
    )  # fmt: skip


@pytest.mark.rule("COUNT2", "DEPOSIT")
def test_a_count_by_one_person_is_not_verified(
    quarter_hall: dict[str, Any], tmp_path: Path
) -> None:
    directory = tmp_path / "copy"
    shutil.copytree(quarter_hall["directory"], directory)
    with _at(directory, "2026-10-08T22:00:00+00:00") as m:
        sessions.open_session(m, operator="M1")
        sales.sell(m, "P1", qty=10, operator="S1")
        recorded = books_cash.count(m, "10.00", operator="S1")
        assert recorded["expected"] == "10.00" and recorded["status"] == "not verified"
        with pytest.raises(RuleRefused, match="COUNT2"):
            books_cash.verify(m, "10.00", operator="S1")  # the same badge
        with pytest.raises(RuleRefused, match="differs"):
            books_cash.verify(m, "9.00", operator="M1")  # the second count disagrees
        with pytest.raises(BadInput):
            books_cash.count(m, "ten", operator="S1")
        day = reports.day_report(m)
        assert [c["status"] for c in day["counts"]] == ["not verified"]
        assert books_cash.awaiting(m) == [
            {"session": recorded["session"], "station": "manager",
             "drawer": "manager's drawer", "counted_by": "S1"}
        ]  # fmt: skip
        sessions.close_session(m, operator="M1")
        # the Thursday session's receipts are due by the second business day: Friday 9, then
        # (the weekend, and Monday 12 October is Columbus Day and Yorktown Victory Day) Tuesday 13
        (due,) = books_deposits.reminders(m, date(2026, 10, 9))
        assert due["due"] == "2026-10-13" and not due["overdue"]
        assert "2026-10-12 Columbus Day and Yorktown Victory Day" in due["not_business_days"]
        # the manager decides the late deposit once, on the record
        (late,) = [e for e in exceptions.review_list(m) if e["kind"] == "deposit-late"]
        exceptions.resolve_exception(
            m, late["origin"], late["seq"], decision="noted", note="bank closed early",
            operator="M1",
        )  # fmt: skip
        assert not [e for e in exceptions.review_list(m) if e["kind"] == "deposit-late"]


# -- the commands ---------------------------------------------------------------------------------


def test_the_quarter_from_the_command_line(quarter_hall: dict[str, Any], tmp_path: Path) -> None:
    from openpyxl import load_workbook

    hall = str(quarter_hall["directory"])
    env = {"BOOTH_NOW": "2026-10-01T15:00:00+00:00", "BOOTH_OPERATOR": "M1"}
    xlsx, pdf, sources = tmp_path / "q3.xlsx", tmp_path / "q3.pdf", tmp_path / "q3.csv"
    result = run_booth(
        "--hall", hall, "report", "quarter", "--year", "2026", "--quarter", "3", "--json",
        "--xlsx", str(xlsx), "--pdf", str(pdf), "--csv", str(sources), env=env,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    lines = books_quarter.lines_of(report)
    # the xlsx, cell by cell: the form's order, each line's number, words and amount
    sheet = load_workbook(xlsx).active
    assert sheet.title == "Form 102"
    assert sheet["A1"].value == "TRAINING - NOT REAL FIGURES - " + report["title"]
    assert sheet["A4"].value == "Due 2026-12-01"
    assert [sheet.cell(row=6, column=c).value for c in (1, 2, 3)] == [
        "Line", "Description", "Amount ($)"
    ]  # fmt: skip
    row = books_quarter.HEADER_ROW
    hand = _by_hand()
    for section in report["sections"]:
        row += 1
        assert sheet.cell(row=row, column=2).value == section["title"]
        for line in section["lines"]:
            row += 1
            assert sheet.cell(row=row, column=1).value == line["number"]
            assert sheet.cell(row=row, column=2).value == line["label"]
            amount = sheet.cell(row=row, column=3).value
            if line["cents"] is None:
                assert amount is None
                assert str(sheet.cell(row=row, column=4).value).startswith("GAP")
            else:
                assert round(amount * 100) == line["cents"]
                if line["key"] in hand:
                    assert round(amount * 100) == hand[line["key"]], line["key"]
    assert sheet.cell(row=row + 1, column=2).value is None  # nothing after the last line
    gaps = load_workbook(xlsx)["Gaps"]
    assert gaps.max_row == 1 + len(report["gaps"])
    # the CSV: each line's source events
    with sources.open() as handle:
        rows = list(csv.DictReader(handle))
    instant = [r for r in rows if r["key"] == "receipts.instant"]
    assert len(instant) == 4 and {r["kind"] for r in instant} == {"TicketsSold"}
    assert sum(round(float(r["amount"]) * 100) for r in instant) == hand["receipts.instant"]
    assert all(r["event"].startswith("manager:") for r in instant)
    total = next(r for r in rows if r["key"] == "receipts.total")
    assert total["line_amount"] == "455.00" and total["detail"].startswith("computed:")
    # the PDF to sign, rendered to PNG (looked at by the author; kept for the screenshots)
    assert pdf.read_bytes()[:4] == b"%PDF"
    png = tmp_path / "q3"
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(png)], check=True)
    pages = sorted(tmp_path.glob("q3*.png"))
    assert pages and pages[0].stat().st_size > 10_000
    if os.environ.get("BOOTH_BOOKS_SHOTS"):  # to look at them
        shots = Path(os.environ["BOOTH_BOOKS_SHOTS"])
        shots.mkdir(parents=True, exist_ok=True)
        for page in pages:
            shutil.copy(page, shots / page.name)
    template = books_quarter.load_template("quarter")
    assert len(lines) == sum(len(section["lines"]) for section in template["sections"]) == 24


def test_annual_report_and_another_states_template(
    quarter_hall: dict[str, Any], tmp_path: Path
) -> None:
    hall = str(quarter_hall["directory"])
    env = {"BOOTH_NOW": "2027-01-10T15:00:00+00:00", "BOOTH_OPERATOR": "M1"}
    result = run_booth("--hall", hall, "report", "annual", "--year", "2026", "--json", env=env)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["form"] == "101" and report["due"] == "2027-03-15"
    keys = [line["key"] for line in books_quarter.lines_of(report)]
    assert keys.index("cash.start") < keys.index("cash.end")
    # another state's form: a new template, no new code
    other = {
        "state": "Elsewhere", "form": "G-7", "title": "Elsewhere Gaming Return G-7",
        "report": "quarter",
        "sections": [{"title": "Money", "lines": [
            {"number": "A", "key": "receipts.instant", "label": "Pull-tab sales"},
            {"number": "B", "key": "prizes.instant", "label": "Pull-tab prizes"},
            {"number": "C", "key": "net.pulltabs", "label": "Pull-tab net",
             "sum": ["receipts.instant"], "less": ["prizes.instant"]},
        ]}],
    }  # fmt: skip
    template = tmp_path / "g7.json"
    template.write_text(json.dumps(other))
    result = run_booth(
        "--hall", hall, "report", "quarter", "--year", "2026", "--quarter", "3",
        "--template", str(template), "--json", env=env,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    got = {x["number"]: x["amount"] for x in books_quarter.lines_of(json.loads(result.stdout))}
    assert got == {"A": "410.00", "B": "50.00", "C": "360.00"}
    bad = run_booth("--hall", hall, "report", "quarter", "--year", "2026", "--quarter", "5",
                    env=env)  # fmt: skip
    assert bad.exit_code == 2 and "quarter" in bad.stderr


@pytest.mark.rule("COUNT2", "DEPOSIT", "DISBURSE")
def test_blind_count_and_deposit_commands(quarter_hall: dict[str, Any], tmp_path: Path) -> None:
    directory = tmp_path / "copy"
    shutil.copytree(quarter_hall["directory"], directory)
    hall = str(directory)
    env = {"BOOTH_NOW": "2026-10-15T22:00:00+00:00"}
    assert run_booth("--hall", hall, "session", "open", "--as", "M1", env=env).exit_code == 0
    assert (
        run_booth("--hall", hall, "sell", "P1", "--qty", "25", "--as", "S1", env=env).exit_code == 0
    )
    counted = run_booth("--hall", hall, "drawer", "count", "24.00", "--as", "S1", env=env)
    assert counted.exit_code == 0, counted.stderr
    # the expected figure comes with the answer, after the count is on the record
    assert "Counted $24.00" in counted.stdout and "expected $25.00: short $1.00" in counted.stdout
    assert "NOT VERIFIED" in counted.stdout
    same = run_booth("--hall", hall, "drawer", "verify", "24.00", "--as", "S1", env=env)
    assert same.exit_code == 1 and "COUNT2" in same.stderr
    verified = run_booth("--hall", hall, "drawer", "verify", "24.00", "--as", "M2", env=env)
    assert verified.exit_code == 0 and "VERIFIED by M2" in verified.stdout
    day = run_booth("--hall", hall, "report", "day", "--as", "M1", env=env)
    assert "verified by M2" in day.stdout and "state report due: Form 102 2026 Q3" in day.stdout
    assert run_booth("--hall", hall, "session", "close", "--as", "M1", env=env).exit_code == 0
    listed = run_booth("--hall", hall, "deposit", "list", "--as", "M1", env=env)
    assert "Due: session" in listed.stdout and "by 2026-10-19" in listed.stdout
    session = json.loads(
        run_booth("--hall", hall, "deposit", "list", "--json", "--as", "M1", env=env).stdout
    )["due"][0]["session"]
    short = run_booth(
        "--hall", hall, "deposit", "record", "--bag", "B-200", "--session", session,
        "--cash", "20.00", "--taken-by", "M2", "--on", "2026-10-16", "--as", "M1", env=env,
    )  # fmt: skip
    assert short.exit_code == 0 and "SHORT by $4.00" in short.stdout
    again = run_booth(
        "--hall", hall, "deposit", "record", "--bag", "B-201", "--session", session,
        "--cash", "4.00", "--taken-by", "M2", "--as", "M1", env=env,
    )  # fmt: skip
    assert again.exit_code == 1 and "DEPOSIT" in again.stderr
    confirm = run_booth("--hall", hall, "deposit", "confirm", "B-200", "--credited", "19.00",
                        "--as", "M1", env=env)  # fmt: skip
    assert "DOES NOT MATCH" in confirm.stdout
    exceptions = run_booth("--hall", hall, "exception", "list", "--json", "--as", "M1", env=env)
    kinds = {e["kind"] for e in json.loads(exceptions.stdout)}
    assert {"deposit-short", "deposit-credit"} <= kinds
    cash_prize = run_booth(
        "--hall", hall, "disbursement", "record", "--payee", "A Winner", "--amount", "50.00",
        "--check", "", "--category", "prizes-by-check", "--as", "M1", env=env,
    )  # fmt: skip
    assert cash_prize.exit_code == 1 and "DISBURSE" in cash_prize.stderr
    seller = run_booth(
        "--hall", hall, "disbursement", "record", "--payee", "X", "--amount", "5.00",
        "--check", "9", "--category", "supplies", "--invoice", "I-1", "--as", "S1", env=env,
    )  # fmt: skip
    assert seller.exit_code == 1 and "ROLE" in seller.stderr
    variances = run_booth("--hall", hall, "drawer", "variances", "--as", "M1", env=env)
    assert "S1" in variances.stdout and "short 2 times" in variances.stdout


@pytest.mark.rule("DEPOSIT")
def test_the_calendar_setting_and_weekly_receipts_move_the_due_dates(
    quarter_hall: dict[str, Any], tmp_path: Path
) -> None:
    from pos.services import settings

    directory = tmp_path / "copy"
    shutil.copytree(quarter_hall["directory"], directory)
    with _at(directory, "2026-10-20T15:00:00+00:00") as m:
        july = quarter_hall["sessions"]["2026-07-02"]
        assert books_deposits.due_date(m, date(2026, 7, 2)) == date(2026, 7, 7)
        # electronic gaming receipts: at least every seven calendar days
        assert books_deposits.due_date(m, date(2026, 7, 2), books.WEEKLY) == date(2026, 7, 9)
        settings.set_rulebook_setting(m, "holiday_calendar", "none", operator="M1")
        # without Virginia's holidays, Friday 3 July counts: due Monday 6 July
        assert books_deposits.due_date(m, date(2026, 7, 2)) == date(2026, 7, 6)
        made = {d["bag"]: d for d in books_deposits.deposits(m)}
        assert made["B-101"]["sessions"] == [july] and made["B-101"]["due"] == "2026-07-06"
        with pytest.raises(RuleRefused, match="ROLE"):
            settings.set_rulebook_setting(m, "holiday_calendar", "virginia", operator="S1")


@pytest.mark.rule("DEPOSIT")
def test_the_reconciliation_form_deposit_date_skips_the_holiday(
    quarter_hall: dict[str, Any], tmp_path: Path
) -> None:
    # Thursday 2 July 2026: the form says deposit by Tuesday 7 July (Independence Day observed
    # on Friday 3 July, then the weekend), as the day report does
    assert reports.deadlines(date(2026, 7, 2)) == (date(2026, 7, 4), date(2026, 7, 7))
    result = run_booth(
        "--hall", str(quarter_hall["directory"]), "report", "form", "--date", "2026-07-02",
        "--pdf", str(tmp_path / "form.pdf"), "--json",
        env={"BOOTH_NOW": "2026-07-03T15:00:00+00:00", "BOOTH_OPERATOR": "M1"},
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["deposit_by"] == "2026-07-07"
