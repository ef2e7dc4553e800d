"""What a volunteer types on the first evening is understood (issue 20): M/D/YYYY dates,
"5:30 PM" times, "$412.50" amounts, headers as people write them, roles in any case; what
cannot be read is refused with a correct example; fixed-offset time zones are refused, naming
the IANA zone to use."""

from __future__ import annotations

from datetime import date, time

import pytest
from hypothesis import given
from hypothesis import strategies as s

from pos.domain import identity, typed
from pos.domain.money import InvalidAmount, format_money
from pos.domain.roster import parse_roster


@given(s.dates(min_value=date(1900, 1, 1), max_value=date(2999, 12, 31)))
def test_iso_and_us_dates_mean_the_same_day(day: date) -> None:
    assert typed.parse_date(day.isoformat()) == day
    assert typed.parse_date(f"{day.month}/{day.day}/{day.year:04d}") == day
    assert typed.parse_date(f" {day.month:02d}/{day.day:02d}/{day.year:04d} ") == day
    assert typed.parse_date(f"{day.month}-{day.day}-{day.year:04d}") == day


@given(s.times().map(lambda t: t.replace(second=0, microsecond=0)))
def test_24_hour_and_am_pm_times_mean_the_same_minute(moment: time) -> None:
    hour12 = moment.hour % 12 or 12
    half = "PM" if moment.hour >= 12 else "AM"
    assert typed.parse_time(f"{moment.hour:02d}:{moment.minute:02d}") == moment
    assert typed.parse_time(f"{hour12}:{moment.minute:02d} {half}") == moment
    assert typed.parse_time(f"{hour12}:{moment.minute:02d}{half.lower()}") == moment
    dotted = f"{hour12}:{moment.minute:02d} {half[0].lower()}.m."
    assert typed.parse_time(dotted) == moment


def test_noon_midnight_and_bare_hours() -> None:
    assert typed.parse_time("12 AM") == time(0, 0)
    assert typed.parse_time("12:15 PM") == time(12, 15)
    assert typed.parse_time("5 pm") == time(17, 0)
    assert typed.parse_time("5:30") == time(5, 30)


@given(s.integers(min_value=1, max_value=100_000_000))
def test_amounts_as_people_write_them(cents: int) -> None:
    shown = format_money(cents)  # "$1,234.50"
    assert typed.parse_typed_amount(shown) == cents
    assert typed.parse_typed_amount(shown.replace(",", "")) == cents
    assert typed.parse_typed_amount(shown.lstrip("$")) == cents
    assert typed.parse_typed_amount("$ " + shown[1:]) == cents


@given(s.text(max_size=20))
def test_anything_else_is_read_or_refused_with_an_example(text: str) -> None:
    for parse, example in (
        (typed.parse_date, typed.DATE_EXAMPLE),
        (typed.parse_time, typed.TIME_EXAMPLE),
    ):
        try:
            parse(text)
        except typed.UnreadableInput as exc:
            assert example in str(exc)
    try:
        typed.parse_typed_amount(text)
    except InvalidAmount as exc:
        assert "like" in str(exc)


@pytest.mark.parametrize(
    ("text", "example"),
    [
        ("28/11/2026", typed.DATE_EXAMPLE),  # a day-first date: month 28 does not exist
        ("11/28/26", typed.DATE_EXAMPLE),  # a two-digit year is ambiguous
        ("2026-02-30", typed.DATE_EXAMPLE),
        ("half past five", typed.DATE_EXAMPLE),
    ],
)
def test_unreadable_dates_are_refused_with_a_correct_example(text: str, example: str) -> None:
    with pytest.raises(typed.UnreadableInput) as caught:
        typed.parse_date(text)
    assert example in str(caught.value) and repr(text) in str(caught.value)
    for correct in example.split(" or "):
        typed.parse_date(correct)  # the example itself is read


@pytest.mark.parametrize("text", ["25:00", "13:30 PM", "5", "five thirty", "0 AM", "17:60"])
def test_unreadable_times_are_refused_with_a_correct_example(text: str) -> None:
    with pytest.raises(typed.UnreadableInput) as caught:
        typed.parse_time(text)
    assert typed.TIME_EXAMPLE in str(caught.value)
    for correct in typed.TIME_EXAMPLE.split(" or "):
        typed.parse_time(correct)


@pytest.mark.parametrize("text", ["1,23.00", "$-5", "12.345", "USD 5", "$"])
def test_unreadable_amounts_are_refused(text: str) -> None:
    with pytest.raises(InvalidAmount):
        typed.parse_typed_amount(text)


@pytest.mark.parametrize(
    ("header", "key"),
    [
        ("Date of Birth", "date_of_birth"),
        ("DOB", "date_of_birth"),
        ("date-of-birth", "date_of_birth"),
        (" Badge Number ", "badge"),
        ("Organization", "organisation"),
        ("Start Time", "start"),
        ("End time", "end"),
        ("DUTY", "duty"),
    ],
)
def test_headers_as_people_write_them(header: str, key: str) -> None:
    assert typed.header_key(header) == key


def test_a_roster_as_a_volunteer_writes_it() -> None:
    text = (
        "Name,Date of Birth,Badge Number,Organization,Date,Start Time,End Time,Duty\n"
        "Sam Seller,5/5/1990,S1,Test Fire Company,11/28/2026,5:30 PM,11 PM,Sell\n"
    )
    [shift] = parse_roster(text, date(2026, 11, 1))
    assert shift.date_of_birth == date(1990, 5, 5) and shift.day == date(2026, 11, 28)
    assert (shift.start, shift.end, shift.duty) == (time(17, 30), time(23, 0), "sell")


def test_roles_in_any_case() -> None:
    assert identity.staff_roles(["Seller", " MANAGER "]) == ["manager", "seller"]
    assert identity.station_role("Booth") == "booth"
    assert identity.date_of_birth("5/5/1990", date(2026, 1, 1)) == "1990-05-05"


@pytest.mark.parametrize(
    ("zone", "named"),
    [
        ("EST", "America/New_York"),
        ("EST5EDT", "America/New_York"),
        ("US/Eastern", "America/New_York"),
        ("MST", "America/Phoenix"),
        ("MST7MDT", "America/Denver"),
        ("HST", "Pacific/Honolulu"),
        ("PST8PDT", "America/Los_Angeles"),
        ("Etc/GMT+5", "America/New_York"),
        ("UTC", "America/New_York"),
    ],
)
def test_fixed_offsets_and_old_aliases_are_refused_naming_the_zone(zone: str, named: str) -> None:
    with pytest.raises(typed.UnreadableInput) as caught:
        typed.time_zone(zone)
    assert named in str(caught.value) and caught.value.field == "time-zone"


def test_iana_zones_are_taken_in_any_case() -> None:
    assert typed.time_zone("America/New_York") == "America/New_York"
    assert typed.time_zone(" america/chicago ") == "America/Chicago"
    with pytest.raises(typed.UnreadableInput, match="IANA"):
        typed.time_zone("Mars/Olympus")
