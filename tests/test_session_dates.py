"""A session's game date (rule GAMEDATE): in a real hall a session opens on today's hall date.
A manager may open a past-dated one only with a reason on the record (11VAC20-20-90: the
records say what happened and when), never a future-dated one, and never into a quarter whose
report (11VAC20-20-100: Form 102) has been produced without saying so; that session is then an
exception for the manager. A training hall scripts its dates freely.

A real hall runs on the real clock: the dates here are counted from today's hall date.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from pos.services import hall as hall_service
from pos.services import staff as staff_service
from pos.services.current_session import hall_date
from pos.services.station import Station
from tests.conftest import Result, run_booth
from tests.halls import refused

pytestmark = pytest.mark.rule("GAMEDATE")


class RealHall:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def __call__(self, *args: str) -> Result:
        return run_booth("--hall", str(self.directory), *args, "--as", "M1")

    def count(self) -> int:
        with Station(self.directory) as st:
            return st.ledger.count()

    def today(self) -> date:
        with Station(self.directory) as st:
            return hall_date(st, st.clock.now())


@pytest.fixture
def real(tmp_path: Path) -> Iterator[RealHall]:
    directory = tmp_path / "real"
    hall_service.init_hall(
        directory,
        organisation="Real Fire Company",
        location="1 Real Road",
        time_zone="America/New_York",
        training=False,
        environ={},
    )
    with Station(directory) as st:
        staff_service.add_staff(
            st, badge="M1", name="Mary Manager", roles=["manager"],
            date_of_birth="1970-01-01", operator=None,
        )  # fmt: skip
    yield RealHall(directory)


def _quarter(day: date) -> tuple[int, int]:
    return day.year, (day.month - 1) // 3 + 1


def test_a_future_date_is_refused(real: RealHall) -> None:
    before = real.count()
    tomorrow = (real.today() + timedelta(days=1)).isoformat()
    result = real("session", "open", "--date", tomorrow, "--reason", "practice")
    refused(result, "GAMEDATE")
    assert tomorrow in result.stderr
    assert real.count() == before


def test_a_past_date_needs_a_reason_on_the_record(real: RealHall) -> None:
    before = real.count()
    past = (real.today() - timedelta(days=3)).isoformat()
    refused(real("session", "open", "--date", past), "GAMEDATE")
    assert real.count() == before
    opened = real("session", "open", "--date", past, "--reason", "power cut: paper sales", "--json")
    assert opened.exit_code == 0, opened.stderr
    assert opened.json["game_date"] == past
    with Station(real.directory) as st:
        body = [e for e in st.ledger.events() if e.kind == "SessionOpened"][-1].body
    assert body["reason"] == "power cut: paper sales"


def test_today_needs_no_reason(real: RealHall) -> None:
    opened = real("session", "open", "--json")
    assert opened.exit_code == 0, opened.stderr
    assert opened.json["game_date"] == real.today().isoformat()


def test_never_into_a_reported_quarter_without_saying_so(real: RealHall) -> None:
    past = real.today() - timedelta(days=100)  # always in an earlier quarter
    year, q = _quarter(past)
    final = real("report", "quarter-final", "--year", str(year), "--quarter", str(q), "--json")
    assert final.exit_code == 0, final.stderr
    before = real.count()
    result = real("session", "open", "--date", past.isoformat(), "--reason", "late paper")
    refused(result, "GAMEDATE")
    assert f"{year} Q{q}" in result.stderr
    assert real.count() == before
    opened = real(
        "session", "open", "--date", past.isoformat(), "--reason", "late paper",
        "--into-reported-quarter",
    )  # fmt: skip
    assert opened.exit_code == 0, opened.stderr
    flagged = real("exception", "list", "--json").json
    assert any(
        e["kind"] == "session-in-reported-quarter" and f"{year} Q{q}" in e["detail"]
        for e in flagged
    ), flagged


def test_bad_dates_are_bad_input(real: RealHall) -> None:
    before = real.count()
    assert real("session", "open", "--date", "2026-02-30", "--reason", "x").exit_code == 2
    assert real.count() == before


def test_a_training_hall_scripts_its_dates(tmp_path: Path) -> None:
    from tests.conftest import TRAINING_NOW, make_training_hall

    directory = make_training_hall(tmp_path / "training")
    env = {"BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "M1"}
    opened = run_booth("--hall", str(directory), "session", "open", "--date", "2026-12-05",
                       env=env)  # fmt: skip
    assert opened.exit_code == 0, opened.stderr
