"""The ages of a hall's workers (rule MINOR), from 11VAC20-20-60 E (formerly 11VAC15-40-50 E):

"No individual under the age of 18 may participate in the management or operation of bingo
games. Individuals 14 through 17 years of age may participate in the conduct of a bingo game
provided the organization ... obtains and keeps on file written parental consent from the
parent or legal guardian and verifies the date of birth of the minor."

The training hall's day is 2026-11-28. Ages are counted on the day of the work: the day a role
is given, a shift's date, the day a count is verified. Every path that makes someone a worker is
tried: `staff add` with a role, a roster imported, a shift added or changed.
"""

from __future__ import annotations

import pytest

from tests.conftest import Result
from tests.halls import Hall, refused

pytestmark = pytest.mark.rule("MINOR")

HEADER = "name,date_of_birth,badge,organisation,date,start,end,duty\n"


def add(hall: Hall, badge: str, role: str, dob: str | None, name: str = "Kit Young") -> Result:
    dob_args = ("--dob", dob) if dob else ()
    return hall("staff", "add", "--name", name, "--badge", badge, "--role", role, *dob_args)


def consent(hall: Hall, badge: str, signed: str = "2026-11-01", *more: str) -> Result:
    return hall(
        "staff", "consent", badge, "--guardian", "Pat Young", "--signed", signed, *more, "--json"
    )


def roster(hall: Hall, *rows: str) -> Result:
    path = hall.tmp / f"roster-{len(list(hall.tmp.iterdir()))}.csv"
    path.write_text(HEADER + "".join(f"{row}\n" for row in rows))
    return hall("roster", "import", str(path))


def unchanged(hall: Hall, before: int, result: Result, rule: str = "MINOR") -> None:
    refused(result, rule)
    assert hall.count() == before


# -- staff add ------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["manager", "treasurer"])
def test_nobody_under_18_is_made_a_manager(hall: Hall, role: str) -> None:
    """E: "No individual under the age of 18 may participate in the management ..." - even with
    a parent's consent on file."""
    before = hall.count()
    result = add(hall, "Y1", role, "2010-06-01")  # 16 on 2026-11-28
    unchanged(hall, before, result)
    assert "2010-06-01" in result.stderr and "16" in result.stderr
    assert consent(hall, "Y1", "2026-11-01", "--name", "Kit Young").exit_code == 0
    before = hall.count()
    unchanged(hall, before, add(hall, "Y1", role, "2010-06-01"))


def test_eighteen_on_the_day_is_old_enough_to_manage(hall: Hall) -> None:
    assert add(hall, "Y1", "manager", "2008-11-28").exit_code == 0  # 18 today
    before = hall.count()
    unchanged(hall, before, add(hall, "Y2", "manager", "2008-11-29"))  # 18 tomorrow


def test_a_helper_aged_14_to_17_needs_written_consent_on_file(hall: Hall) -> None:
    before = hall.count()
    result = add(hall, "Y1", "seller", "2011-03-03")  # 15
    unchanged(hall, before, result)
    assert "consent" in result.stderr
    recorded = consent(hall, "Y1", "2026-11-20", "--name", "Kit Young")
    assert recorded.exit_code == 0, recorded.stderr
    assert recorded.json["guardian"] == "Pat Young" and recorded.json["signed"] == "2026-11-20"
    added = add(hall, "Y1", "seller", "2011-03-03")
    assert added.exit_code == 0, added.stderr


def test_nobody_under_14_works_consent_or_not(hall: Hall) -> None:
    assert consent(hall, "Y1", "2026-11-01", "--name", "Kit Young").exit_code == 0
    before = hall.count()
    result = add(hall, "Y1", "seller", "2012-11-29")  # 13, 14 tomorrow
    unchanged(hall, before, result)
    assert "under 14" in result.stderr
    assert add(hall, "Y1", "seller", "2012-11-28").exit_code == 0  # 14 today


def test_a_worker_needs_a_date_of_birth_on_file(hall: Hall) -> None:
    """E has the organisation verify a minor's date of birth: without one nobody can tell a
    minor from an adult. An inspector is the department's agent, not a worker."""
    before = hall.count()
    result = add(hall, "Y1", "seller", None)
    unchanged(hall, before, result)
    assert "no date of birth" in result.stderr
    assert add(hall, "I9", "inspector", None, name="Ida Inspector").exit_code == 0


def test_consent_is_a_managers_record_of_a_signed_paper(hall: Hall) -> None:
    before = hall.count()
    future = consent(hall, "S1", "2026-11-29")
    assert future.exit_code == 2 and "2026-11-29" in future.stderr
    unknown = consent(hall, "Y7")  # not on staff: whose is it?
    assert unknown.exit_code == 2 and "--name" in unknown.stderr
    assert consent(hall, "S1", "2026-11-01", "--as", "S1").exit_code == 1
    assert hall.count() == before
    assert consent(hall, "S1").json["name"] == "Sam Seller"


# -- rosters --------------------------------------------------------------------------------------


def row(badge: str, dob: str, day: str, duty: str, name: str = "Kit Young") -> str:
    return f"{name},{dob},{badge},Test Fire Company,{day},17:00,22:00,{duty}"


@pytest.mark.parametrize("duty", ["bingo", "manage"])
def test_no_one_under_18_operates_bingo_on_a_roster(hall: Hall, duty: str) -> None:
    """E: calling and running the bingo games is its operation; consent does not open it."""
    assert consent(hall, "Y1", "2026-11-01", "--name", "Kit Young").exit_code == 0
    before = hall.count()
    result = roster(
        hall,
        row("A1", "1980-01-01", "2026-11-28", "sell", "Ann Adult"),
        row("Y1", "2010-06-01", "2026-11-28", duty),
    )
    unchanged(hall, before, result)  # all or nothing: the adult's row is not taken either
    assert "Y1" in result.stderr and duty in result.stderr
    assert hall("roster", "show", "--json").json == []


def test_a_minor_with_consent_may_sell_on_a_roster_not_without(hall: Hall) -> None:
    before = hall.count()
    unchanged(hall, before, roster(hall, row("Y1", "2010-06-01", "2026-11-28", "sell")))
    assert consent(hall, "Y1", "2026-11-01", "--name", "Kit Young").exit_code == 0
    result = roster(hall, row("Y1", "2010-06-01", "2026-11-28", "sell"))
    assert result.exit_code == 0, result.stderr


def test_age_is_counted_on_the_shifts_date(hall: Hall) -> None:
    """18 on 2026-12-01: a bingo shift the day before is refused, one that day is not."""
    before = hall.count()
    unchanged(hall, before, roster(hall, row("Y1", "2008-12-01", "2026-11-30", "bingo")))
    assert roster(hall, row("Y1", "2008-12-01", "2026-12-01", "bingo")).exit_code == 0


def test_consent_signed_after_the_shift_does_not_cover_it(hall: Hall) -> None:
    assert consent(hall, "Y1", "2026-11-20", "--name", "Kit Young").exit_code == 0
    before = hall.count()
    unchanged(hall, before, roster(hall, row("Y1", "2010-06-01", "2026-11-19", "sell")))


def test_under_14_on_a_roster_is_refused(hall: Hall) -> None:
    assert consent(hall, "Y1", "2026-11-01", "--name", "Kit Young").exit_code == 0
    before = hall.count()
    unchanged(hall, before, roster(hall, row("Y1", "2013-05-05", "2026-11-28", "sell")))


def test_a_shift_without_a_date_of_birth_takes_the_one_on_file(hall: Hall) -> None:
    before = hall.count()
    unchanged(hall, before, roster(hall, row("N1", "", "2026-11-28", "sell", "No Date")))
    # S1 (Sam Seller) is on staff, born 1990-05-05
    assert roster(hall, row("S1", "", "2026-11-28", "bingo", "Sam Seller")).exit_code == 0


def test_a_shift_added_or_changed_to_bingo_is_checked_too(hall: Hall) -> None:
    assert consent(hall, "Y1", "2026-11-01", "--name", "Kit Young").exit_code == 0
    shift = (
        "roster", "add", "--badge", "Y1", "--name", "Kit Young", "--dob", "2010-06-01",
        "--organisation", "Test Fire Company", "--date", "2026-11-28", "--start", "17:00",
        "--end", "22:00",
    )  # fmt: skip
    before = hall.count()
    unchanged(hall, before, hall(*shift, "--duty", "bingo"))
    added = hall(*shift, "--duty", "sell", "--json")
    assert added.exit_code == 0, added.stderr
    before = hall.count()
    unchanged(hall, before, hall("roster", "change", added.json["key"], "--duty", "bingo"))
    unchanged(hall, before, hall("roster", "change", added.json["key"], "--duty", "manage"))


# -- witnesses ------------------------------------------------------------------------------------


def test_a_cash_count_is_verified_by_an_adult(hall: Hall) -> None:
    """COUNT2's second person answers for the session's cash (management, E): 18 or over."""
    from tests.halls import flare

    assert consent(hall, "Y1", "2026-11-01", "--name", "Kit Young").exit_code == 0
    assert add(hall, "Y1", "seller", "2010-06-01").exit_code == 0
    assert hall.receive(flare()).exit_code == 0
    assert hall("deal", "open", "A123456", "--bin", "drawer-1").exit_code == 0
    assert hall("session", "open").exit_code == 0
    assert hall("sell", "A123456", "--qty", "5", "--as", "S1").exit_code == 0
    assert hall("drawer", "count", "5.00", "--as", "S1").exit_code == 0
    before = hall.count()
    unchanged(hall, before, hall("drawer", "verify", "5.00", "--as", "Y1"))
    assert hall("drawer", "verify", "5.00", "--as", "M1").exit_code == 0
