"""One rule for people's names (staff, roster, players, witnesses): printable characters only,
bounded; and CSV exports that a spreadsheet cannot run as formulas (issue #16, item 10)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pos.domain import identity
from tests.halls import Hall

HOSTILE = [
    "\x1b[2J\x1b[HAnn",  # clears the manager's terminal
    "Ann\u202eSmith",  # turns the rest of a report's line around
    "Ann\u200bSmith",  # a zero-width space: two names that look the same
    "Ann\nSmith",
    "Ann\tSmith",
    "A" * 121,
    "   ",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_the_domain_rule_refuses_what_is_not_a_printable_name(name: str) -> None:
    with pytest.raises(identity.InvalidIdentity) as caught:
        identity.person_name(name)
    message = str(caught.value)
    assert message.isprintable(), "the refusal itself never carries the control character"


def test_the_domain_rule_keeps_real_names() -> None:
    assert identity.person_name("  José\u00a0 O'Brien-Núñez ") == "José O'Brien-Núñez"
    assert identity.person_name("李小龍") == "李小龍"


@pytest.mark.parametrize("name", HOSTILE[:4])
def test_staff_names_are_refused_and_nothing_is_recorded(hall: Hall, name: str) -> None:
    before = hall.count()
    result = hall("staff", "add", "--name", name, "--badge", "X1", "--role", "seller")
    assert result.exit_code == 2, result.stderr
    assert "printable" in result.stderr and "\x1b" not in result.stderr
    assert hall.count() == before


def test_a_roster_row_with_a_control_character_imports_nothing(hall: Hall) -> None:
    path = hall.tmp / "roster.csv"
    path.write_text(
        "name,date_of_birth,badge,organisation,date,start,end,duty\n"
        "Sam Seller,1990-05-05,S1,Test Fire Company,2026-11-28,17:00,23:00,sell\n"
        "Eve\u202eEvil,1985-01-02,E9,Test Fire Company,2026-11-28,19:00,23:00,sell\n"
    )
    before = hall.count()
    result = hall("roster", "import", str(path))
    assert result.exit_code == 2 and "U+202E" in result.stderr, result.stderr
    assert hall.count() == before
    added = hall(
        "roster", "add", "--name", "\x1b[2JBob", "--badge", "B2", "--organisation", "Test",
        "--date", "2026-11-28", "--start", "17:00", "--end", "18:00", "--duty", "sell",
    )  # fmt: skip
    assert added.exit_code == 2 and hall.count() == before, added.stderr


def test_a_player_name_follows_the_rule(hall: Hall) -> None:
    before = hall.count()
    player = hall(
        "player", "register", "P1", "--dob", "1980-01-01", "--initials", "AB",
        "--name", "Ann\u202eB", "--as", "S1",
    )  # fmt: skip
    assert player.exit_code == 2, (player.stdout, player.stderr)
    assert hall.count() == before


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(hall: Hall, tmp_path: Path) -> None:
    assert identity.csv_cell('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert identity.csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert identity.csv_cell("+1+1") == "'+1+1"
    assert identity.csv_cell("-3.00") == "-3.00", "a negative amount stays a number"
    assert identity.csv_cell(7) == 7
    added = hall(
        "staff", "add", "--name", "=1+1", "--badge", "F1", "--role", "seller", "--dob", "1990-01-01"
    )
    assert added.exit_code == 0, added.stderr
    out = tmp_path / "inspector"
    assert hall("export", "--inspector", str(out)).exit_code == 0
    with (out / "tables" / "staff.csv").open(newline="") as handle:
        names = [row["name"] for row in csv.DictReader(handle)]
    assert "'=1+1" in names and "=1+1" not in names
