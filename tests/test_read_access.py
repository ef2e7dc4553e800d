"""Who may read what (issue #28): reads of money or people need a badge with a role that sees
them (pos.domain.read_access); blind counts hide the expected cash until the count is recorded."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from pos.cli.common import Access, command_access
from pos.cli.main import cli
from pos.domain import read_access
from pos.domain.identity import STAFF_ROLES
from tests.halls import ENV, Hall, refused

ROOT = Path(__file__).resolve().parent.parent


def _read_commands(group: click.Group, prefix: str = "booth") -> list[str]:
    names = []
    for name, command in sorted(group.commands.items()):
        if command_access(command) is Access.READ:
            names.append(f"{prefix} {name}")
        if isinstance(command, click.Group):
            names.extend(_read_commands(command, f"{prefix} {name}"))
    return names


def test_every_read_command_is_classified_and_documented() -> None:
    commands = _read_commands(cli)
    assert "booth report day" in commands and "booth sync status" in commands
    assert not set(commands) - set(read_access.READS), "a read command the policy misses"
    assert not set(read_access.READS) - set(commands), "the policy names no such read"
    readme = (ROOT / "README.md").read_text()
    rows = dict(re.findall(r"^\| `(booth [a-z -]+)` \| ([^|]*) \|", readme, re.MULTILINE))
    for command, read in read_access.READS.items():
        who = "anyone, no badge" if read.open else ", ".join(read_access.roles_for(read))
        assert rows.get(command) == who, f"README's 'who may read' of {command}: {who}"


def test_every_staff_role_has_its_sections() -> None:
    assert set(read_access.ROLE_SECTIONS) == set(STAFF_ROLES)


def test_an_unknown_part_of_the_day_report_is_withheld_from_a_seller() -> None:
    shown = read_access.day_report_for(("seller",), "here", {"date": "d", "a-new-part": 1})
    assert shown == {"date": "d", "withheld": ["a-new-part"]}


def _staff(hall: Hall) -> None:
    for badge, role in (("I1", "inspector"), ("T1", "treasurer")):
        added = hall(
            "staff", "add", "--name", f"{role} one", "--badge", badge, "--role", role,
            "--dob", "1970-01-01",
        )  # fmt: skip
        assert added.exit_code == 0, added.stderr


@pytest.fixture
def sold(selling: Hall) -> Hall:
    """Three tickets sold by S1 at this station's drawer; nothing counted yet."""
    _staff(selling)
    assert selling("sell", "A123456", "--qty", "3", "--as", "S1").exit_code == 0
    return selling


def test_the_day_report_needs_a_badge(sold: Hall) -> None:
    before = sold.count()
    result = sold("report", "day", "--json", BOOTH_OPERATOR="")
    refused(result, "ROLE")
    assert "needs the badge of a manager or inspector or treasurer or seller" in result.stderr
    unknown = sold("report", "day", "--as", "NOBODY")
    refused(unknown, "ROLE")
    assert "'NOBODY' is not on this hall's staff" in unknown.stderr
    assert sold.count() == before


def test_a_seller_sees_no_expected_cash_before_the_count(sold: Hall) -> None:
    seller = sold("report", "day", "--json", "--as", "S1")
    assert seller.exit_code == 0, seller.stderr
    report = seller.json
    assert "gross" not in report and "deals" not in report and "exceptions" not in report
    assert {"gross", "deals", "exceptions", "operators"} <= set(report["withheld"])
    (drawer,) = report["cash"]
    assert drawer["expected"] is None and drawer["counted"] is None
    assert [s["station"] for s in report["stations"]] == ["manager"]
    assert report["stations"][0]["gross"] == "3.00", "a seller sees their own station's sales"
    text = sold("report", "day", "--as", "S1").stdout
    assert "expected (shown once counted)" in text and "$3.00" in text
    assert "3.00" not in text.split("drawer")[1], text

    assert sold("drawer", "count", "3.00", "--as", "S1").exit_code == 0
    after = sold("report", "day", "--json", "--as", "S1").json
    (drawer,) = after["cash"]
    assert drawer["expected"] == "3.00" and drawer["over_short"] == "0.00"


@pytest.mark.parametrize("badge", ["M1", "I1"])
def test_the_manager_and_the_inspector_see_it_all(sold: Hall, badge: str) -> None:
    report = sold("report", "day", "--json", "--as", badge).json
    assert "withheld" not in report
    assert report["gross"] == "3.00" and report["cash"][0]["expected"] == "3.00"
    assert report["exceptions"] == []


def test_the_deposit_list_hides_expected_cash_until_counted(sold: Hall) -> None:
    assert sold("session", "close").exit_code == 0
    before = sold.count()
    refused(sold("deposit", "list", BOOTH_OPERATOR=""), "ROLE")
    assert sold.count() == before
    (due,) = sold("deposit", "list", "--json", "--as", "S1").json["due"]
    assert due["amount"] is None and due["basis"] == "expected"
    assert "not counted yet" in sold("deposit", "list", "--as", "S1").stdout
    for badge in ("M1", "I1", "T1"):
        (due,) = sold("deposit", "list", "--json", "--as", badge).json["due"]
        assert due["amount"] == "3.00" and due["basis"] == "expected", badge
    session = due["session"]
    counted = sold("drawer", "count", "3.00", "--session", session, "--as", "S1")
    assert counted.exit_code == 0, counted.stderr
    (due,) = sold("deposit", "list", "--json", "--as", "S1").json["due"]
    assert due["amount"] == "3.00" and due["basis"] == "counted"


def test_the_inspector_exports_and_verifies_a_seller_does_not_export(
    sold: Hall, tmp_path: Path
) -> None:
    exported = sold("export", "--inspector", str(tmp_path / "out"), "--json", "--as", "I1")
    assert exported.exit_code == 0, exported.stderr
    assert exported.json["verified"] is True
    verified = sold("verify", "--json", "--as", "I1")
    assert verified.exit_code == 0, verified.stderr
    by_seller = sold("export", "--inspector", str(tmp_path / "s"), "--as", "S1")
    refused(by_seller, "ROLE")
    assert "a manager or inspector may" in by_seller.stderr
    assert not (tmp_path / "s").exists()


def test_a_read_of_people_or_money_is_refused_to_a_seller(sold: Hall) -> None:
    for args in (
        ["staff", "list"],
        ["exception", "list"],
        ["report", "quarter", "--year", "2026", "--quarter", "4"],
    ):
        result = sold(*args, "--as", "S1")
        refused(result, "ROLE")
        assert "badge S1" in result.stderr and "may not run booth" in result.stderr
    treasurer = sold("report", "form", "--pdf", str(sold.tmp / "f.pdf"), "--as", "T1")
    assert treasurer.exit_code == 0, treasurer.stderr
    refused(sold("report", "day", "--pdf", str(sold.tmp / "d.pdf"), "--as", "S1"), "ROLE")
    assert not (sold.tmp / "d.pdf").exists()


def test_open_reads_need_no_badge(sold: Hall) -> None:
    for args in (["deal", "list"], ["house", "show"], ["verify"], ["report", "retention"]):
        result = sold(*args, BOOTH_OPERATOR="")
        assert result.exit_code == 0, (args, result.stderr)


def test_the_booth_screen_hides_a_sellers_expected_cash_until_counted(sold: Hall) -> None:
    from kiosk.viewmodels import books
    from pos.services.station import Station

    def line(*roles: str) -> books.LineVM:
        with Station(sold.directory, read_only=True, environ=ENV) as st:
            return books.drawer_line(st, roles)

    seller = line("seller", "redeemer")
    assert seller.text == "Drawer: not counted yet" and "3.00" not in seller.detail
    assert line("manager").text == "Drawer: expected $3.00"
    assert sold("drawer", "count", "2.00", "--as", "S1").exit_code == 0
    counted = line("seller")
    assert counted.text == "Drawer: counted $2.00"
    assert counted.detail == "expected $3.00, short $1.00"
