"""Roster import: any column order, all or nothing, idempotent; shifts one by one."""

from __future__ import annotations

import pytest

from pos.services.station import Station
from tests.halls import Hall


def write(hall: Hall, text: str, name: str = "roster.csv") -> str:
    path = hall.tmp / name
    path.write_text(text)
    return str(path)


GOOD = (
    "\ufeffduty,badge,name,end,start,date,organisation,date_of_birth,notes\n"
    "sell,S1,Sam Seller,23:00,17:00,2026-11-28,Test Fire Company,1990-05-05,front booth\n"
    "redeem,R9,Rita Redeemer,01:00,19:00,2026-11-28,Test Fire Company,1985-01-02,\n"
    "bingo,,Bo Caller,22:00,18:00,2026-11-29,Test Fire Company,1970-03-04,\n"
)


def test_columns_in_any_order_extra_columns_ignored(hall: Hall) -> None:
    bad = GOOD.replace(",,Bo Caller", ",B5,Bo Caller")
    result = hall("roster", "import", write(hall, bad), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json == {"rows": 3, "imported": 3, "unchanged": 0, "new_staff": 2}
    shifts = hall("roster", "show", "--date", "2026-11-28", "--json").json
    assert [(s["badge"], s["start"], s["end"], s["duty"]) for s in shifts] == [
        ("S1", "17:00", "23:00", "sell"),
        ("R9", "19:00", "01:00", "redeem"),
    ]


def test_importing_the_same_file_twice_changes_nothing(hall: Hall) -> None:
    path = write(hall, GOOD.replace(",,Bo Caller", ",B5,Bo Caller"))
    assert hall("roster", "import", path).exit_code == 0
    before = hall.count()
    again = hall("roster", "import", path, "--json")
    assert again.json["imported"] == 0 and again.json["unchanged"] == 3
    assert hall.count() == before


def test_every_bad_row_is_reported_and_nothing_imported(hall: Hall) -> None:
    text = (
        "name,date_of_birth,badge,organisation,date,start,end,duty\n"
        "Sam Seller,1990-05-05,S1,Test Fire Company,2026-11-28,17:00,23:00,sell\n"
        "No Badge,1990-05-05,,Test Fire Company,2026-11-28,17:00,23:00,sell\n"
        "Bad Date,1990-05-05,X2,Test Fire Company,2026-13-01,17:00,23:00,sell\n"
        "Bad Time,1990-05-05,X3,Test Fire Company,2026-11-28,25:00,23:00,dance\n"  # 5pm is read
    )
    before = hall.count()
    result = hall("roster", "import", write(hall, text))
    assert result.exit_code == 2
    for expected in (
        "line 3: badge",
        "line 4: date",
        "line 5: start",
        "line 5: duty",
        "nothing was imported",
    ):
        assert expected in result.stderr
    assert hall.count() == before
    assert hall("roster", "show", "--json").json == []


@pytest.mark.parametrize(
    "content",
    [b"\x00\x01\x02binary", b"just,some,columns\n1,2,3\n", b""],
)
def test_a_malformed_file_changes_nothing(hall: Hall, content: bytes) -> None:
    path = hall.tmp / "bad.csv"
    path.write_bytes(content)
    before = hall.count()
    result = hall("roster", "import", str(path))
    assert result.exit_code == 2, result
    assert "Traceback" not in result.stderr
    assert hall.count() == before


def test_people_are_matched_by_badge_then_name_and_birth_date(hall: Hall) -> None:
    text = (
        "name,date_of_birth,badge,organisation,date,start,end,duty\n"
        "Sam Seller,1990-05-05,S1,Test Fire Company,2026-11-28,17:00,23:00,sell\n"
        "Mary Manager,1970-01-01,OLD-7,Test Fire Company,2026-11-28,17:00,23:00,manage\n"
        "New Person,1999-09-09,N1,Test Fire Company,2026-11-28,17:00,23:00,count\n"
    )
    result = hall("roster", "import", write(hall, text), "--json")
    assert result.json["new_staff"] == 1
    badges = {s["name"]: s["badge"] for s in hall("roster", "show", "--json").json}
    assert badges == {"Sam Seller": "S1", "Mary Manager": "M1", "New Person": "N1"}
    staff = {p["badge"]: p["roles"] for p in hall("staff", "list", "--json").json}
    assert staff["N1"] == [], "a rostered person gets no login role from a CSV"


def test_shifts_are_added_changed_and_cancelled_one_by_one(hall: Hall) -> None:
    added = hall(
        "roster",
        "add",
        "--badge",
        "S1",
        "--name",
        "Sam Seller",
        "--organisation",
        "Test Fire Company",
        "--date",
        "2026-11-28",
        "--start",
        "17:00",
        "--end",
        "23:00",
        "--duty",
        "sell",
        "--json",
    )
    assert added.exit_code == 0, added.stderr
    key = added.json["key"]
    changed = hall("roster", "change", key, "--end", "21:00", "--json")
    assert changed.exit_code == 0 and changed.json["end"] == "21:00"
    assert hall("roster", "show", "--json").json[0]["end"] == "21:00"
    assert hall("roster", "cancel", key).exit_code == 0
    assert hall("roster", "show", "--json").json == []
    assert hall("roster", "cancel", key).exit_code == 2
    bad = hall(
        "roster",
        "add",
        "--badge",
        "S1",
        "--name",
        "Sam",
        "--organisation",
        "T",
        "--date",
        "2026-11-28",
        "--start",
        "25:00",
        "--end",
        "23:00",
        "--duty",
        "sell",
    )
    assert bad.exit_code == 2 and "start" in bad.stderr


def test_only_managers_import(hall: Hall) -> None:
    result = hall("roster", "import", write(hall, GOOD), "--as", "S1")
    assert result.exit_code == 1 and "(rule ROLE)" in result.stderr


def test_shifts_survive_a_rebuild(hall: Hall) -> None:
    hall("roster", "import", write(hall, GOOD.replace(",,Bo Caller", ",B5,Bo Caller")))
    with Station(hall.directory) as st:
        rows = st.ledger.projection_rows()
        st.ledger.rebuild()
        assert st.ledger.projection_rows() == rows
