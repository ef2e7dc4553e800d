"""A scripted training-hall day, and its report checked against figures worked out by hand."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pos.services import (
    books_cash,
    deals,
    devices_rental,
    reports,
    roster,
    sales,
    seals,
    sessions,
    settings,
    staff,
    winners,
)
from pos.services import hall as hall_service
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import flare, seal_flare

ENVIRON = {"BOOTH_NOW": TRAINING_NOW}


class JammingDispenser:
    def dispense(self, column: str, count: int) -> int:
        return min(count, 3)


def _join(root: Path, manager: Station, name: str, role: str) -> Path:
    bundle = hall_service.add_station(manager, name=name, role=role, operator="M1")
    path = root / f"{name}.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(root / name, path, environ=ENVIRON)
    return root / name


def _converge(directories: list[Path]) -> None:
    for _ in range(2):
        for target in directories:
            for source in directories:
                if source != target:
                    with (
                        Station(source, environ=ENVIRON) as s,
                        Station(target, environ=ENVIRON) as t,
                    ):
                        pull(s.ledger, t.ledger)


@pytest.fixture
def day(hall_dir: Path, tmp_path: Path) -> dict[str, Path]:
    root = tmp_path
    with Station(hall_dir, environ=ENVIRON) as m:
        staff.add_staff(
            m,
            badge="W1",
            name="Wendy Worker",
            roles=["seller"],
            date_of_birth="1980-01-01",
            operator="M1",
        )
        settings.set_house_rule(m, "kiosk-pull-tab-sales", "on", operator="M1")
        for data in (
            flare(
                "P1",
                tickets=1000,
                prizes=[{"amount": "100.00", "count": 1}, {"amount": "5.00", "count": 20}],
            ),
            flare(
                "P2",
                tickets=500,
                price="0.50",
                prizes=[{"amount": "50.00", "count": 1}, {"amount": "1.00", "count": 50}],
            ),
            seal_flare(
                "S1",
                tickets=20,
                prizes=[{"amount": "10.00", "count": 2}],
                seal={"lines": 30, "prize": "25.00", "progressive": False, "hold_tickets": ["013"]},
            ),
            flare("KP", tickets=300, prizes=[{"amount": "20.00", "count": 2}]),
        ):
            deals.receive_deal(m, deals.flare_from_mapping(data), operator="M1")
        devices_rental.add_devices(m, ["D1"], model=None, operator="M1")
        devices_rental.define_package(
            m, "basic", faces="12", games="10", price="20.00", operator="M1"
        )
        sessions.open_session(m, operator="M1")
        csv_path = root / "roster.csv"
        csv_path.write_text(
            "name,date_of_birth,badge,organisation,date,start,end,duty\n"
            "Wendy Worker,1980-01-01,W1,Test Fire Company,2026-11-28,17:00,"
            "23:00,sell\n"
        )
        roster.import_roster(m, csv_path, operator="M1")
        stations = {
            "manager": hall_dir,
            "booth-1": _join(root, m, "booth-1", "booth"),
            "booth-2": _join(root, m, "booth-2", "booth"),
            "kiosk-1": _join(root, m, "kiosk-1", "kiosk"),
        }
        devices_rental.rent(m, faces="12", games="10", operator="M1")  # $20 rental
    with Station(stations["booth-1"], environ=ENVIRON) as b1:
        deals.open_deal(b1, "P1", bin_name="drawer-1", operator="S1")
        deals.open_deal(b1, "S1", bin_name="drawer-2", operator="S1")
        sales.sell(b1, "P1", qty=10, operator="S1")  # $10
        sales.sell(b1, "P1", qty=5, operator="S1")  # $5
        sales.sell(b1, "S1", qty=20, operator="S1")  # $20, sold out
        winners.redeem(b1, "P1/0001/500", operator="S1")  # $5
        winners.redeem(b1, "P1/0002/10000", operator="S1")  # $100
        winners.redeem(b1, "S1/0003/1000", operator="S1")  # $10
        winners.void_ticket(b1, "P1/0009", reason="damaged", operator="S1")  # void, $0
        seals.open_seal(b1, "S1", lines=[7], operator="S1")
        seals.claim_seal_prize(b1, "S1", line=7, operator="S1")  # $25
    with Station(stations["booth-2"], environ=ENVIRON) as b2:
        deals.open_deal(b2, "P2", bin_name="drawer-1", operator="S1")
        sales.sell(b2, "P2", qty=8, operator="S1")  # $4.00
        wrong = sales.sell(b2, "P2", qty=4, operator="S1")  # $2.00, rung in error
        winners.void_sale(b2, wrong.receipt, reason="rung twice", operator="M1")
        winners.redeem(b2, "P2/0001/100", operator="S1")  # $1
        with pytest.raises(Exception, match="rule D"):
            sales.sell(b2, "P2", qty=1, operator="S1", buyer="W1")  # blocked worker
    with Station(stations["kiosk-1"], environ=ENVIRON) as k:
        deals.open_deal(k, "KP", bin_name="col-1", operator="M1")
        sales.sell(k, "KP", qty=5, operator=None, buyer="S1", dispenser=JammingDispenser())
    _converge(list(stations.values()))
    for name in ("booth-1", "booth-2", "kiosk-1"):
        with Station(stations[name], environ=ENVIRON) as st:
            sessions.close_session(st, operator="S1")
    _converge(list(stations.values()))
    with Station(hall_dir, environ=ENVIRON) as m:
        books_cash.count(m, "2.50", station="booth-2", operator="M1")
        sessions.close_session(m, operator="M1")
    return stations


def test_the_days_figures_match_the_hand_count(day: dict[str, Path], tmp_path: Path) -> None:
    with Station(day["manager"], environ=ENVIRON) as m:
        report = reports.day_report(m, "2026-11-28")
    # Sales: P1 15 x $1, S1 20 x $1, P2 (8 + 4 - 4 voided) x $0.50, KP 3 of 5 dispensed x $1.
    assert report["gross"] == "42.00"
    # Prizes: $5 + $100 + $10 (S1 instant) + $25 (seal line 7) + $1.
    assert report["prizes_paid"] == "141.00"
    assert report["net"] == "-99.00"
    by_deal = {d["serial"]: d for d in report["deals"]}
    assert (
        by_deal["P1"]["tickets_sold"],
        by_deal["P1"]["gross"],
        by_deal["P1"]["prizes_paid"],
        by_deal["P1"]["net"],
    ) == (15, "15.00", "105.00", "-90.00")
    assert (by_deal["S1"]["tickets_sold"], by_deal["S1"]["prizes_paid"]) == (20, "35.00")
    assert (by_deal["P2"]["tickets_sold"], by_deal["P2"]["gross"]) == (8, "4.00")
    assert (by_deal["KP"]["tickets_sold"], by_deal["KP"]["gross"]) == (3, "3.00")
    assert (
        by_deal["P1"]["ideal_gross"] == "1000.00" and by_deal["P1"]["ideal_net"] == "800.00"
    )  # $100 + 20 x $5 in prizes
    assert report["rentals"] == {"count": 1, "gross": "20.00"}
    assert (report["voids"]["count"], report["voids"]["amount"]) == (2, "2.00")
    assert len(report["blocked_purchases"]) == 1
    assert report["blocked_purchases"][0]["rule"] == "D"
    assert report["vouchers"]["issued"] == {"count": 1, "amount": "2.00"}  # dispenser credit
    cash = {c["station"]: c for c in report["cash"]}
    assert cash["booth-1"]["expected"] == "-105.00"  # $35 in, $140 paid out
    assert cash["booth-2"] == {
        "station": "booth-2",
        "expected": "3.00",
        "counted": "2.50",
        "over_short": "-0.50",
    }
    assert cash["manager"]["expected"] == "20.00"
    assert cash["kiosk-1"]["expected"] == "5.00"  # 5 paid for, 3 came out, a $2 credit voucher
    assert all(s["closed"] for s in report["stations"])
    lines = {p["line"]: p for p in report["products"]}
    assert lines["pull-tabs"]["gross"] == "22.00" and lines["seal cards"]["gross"] == "20.00"


def test_csv_and_json_agree(day: dict[str, Path], tmp_path: Path) -> None:
    with Station(day["manager"], environ=ENVIRON) as m:
        report = reports.day_report(m, "2026-11-28")
    reports.write_csv(report, tmp_path / "csv")
    with (tmp_path / "csv" / "deals.csv").open() as handle:
        rows = {row["serial"]: row for row in csv.DictReader(handle)}
    for deal in report["deals"]:
        for key in ("gross", "prizes_paid", "net", "ideal_gross", "ideal_net"):
            assert rows[deal["serial"]][key] == deal[key]
        assert int(rows[deal["serial"]]["tickets_sold"]) == deal["tickets_sold"]
    with (tmp_path / "csv" / "summary.csv").open() as handle:
        [summary] = list(csv.DictReader(handle))
    assert (summary["gross"], summary["net"]) == (report["gross"], report["net"])


def test_the_pdf_opens_with_its_chart(day: dict[str, Path], tmp_path: Path) -> None:
    from pos.services.report_pdf import write_day_pdf, write_form_pdf

    with Station(day["manager"], environ=ENVIRON) as m:
        report = reports.day_report(m, "2026-11-28")
    pdf = write_day_pdf(report, tmp_path / "day.pdf")
    form = write_form_pdf(report, tmp_path / "form.pdf")
    for path in (pdf, form):
        subprocess.run(
            [
                "pdftoppm",
                "-png",
                "-r",
                "60",
                "-f",
                "1",
                "-l",
                "1",
                str(path),
                str(path.with_suffix("")),
            ],
            check=True,
        )
        page = next(tmp_path.glob(f"{path.stem}*.png"))
        assert page.stat().st_size > 10_000
    text = subprocess.run(
        ["pdftotext", str(form), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Sign within 48 hours" in text and "2026-12-01" in text  # Mon, 2nd business day


def test_a_day_closed_without_a_station_names_it_and_its_events_come_late(
    hall_dir: Path, tmp_path: Path
) -> None:
    with Station(hall_dir, environ=ENVIRON) as m:
        deals.receive_deal(m, deals.flare_from_mapping(flare("Q1")), operator="M1")
        sessions.open_session(m, operator="M1")
        booth = _join(tmp_path, m, "booth-1", "booth")
    with Station(booth, environ=ENVIRON) as b:
        deals.open_deal(b, "Q1", bin_name="drawer-1", operator="S1")
    with Station(hall_dir, environ=ENVIRON) as m:
        with pytest.raises(Exception, match="booth-1"):
            sessions.close_session(m, operator="M1")
        closed = sessions.close_session(
            m, operator="M1", without={"booth-1": "offline: network cable cut"}
        )
        assert closed["missing"] == ["booth-1"]
    with Station(booth, environ=ENVIRON) as b:
        sales.sell(b, "Q1", qty=4, operator="S1")  # still selling in its part of the session
    _converge([hall_dir, booth])
    with Station(hall_dir, environ=ENVIRON) as m:
        report: dict[str, Any] = reports.day_report(m, "2026-11-28")
    station = {s["station"]: s for s in report["stations"]}["booth-1"]
    assert station["missing_at_close"] == ["offline: network cable cut"]
    late = [e for e in report["exceptions"] if e["kind"] == "late"]
    assert any("TicketsSold booth-1" in e["detail"] for e in late)
