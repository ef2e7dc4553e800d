"""Rules a release brought judge only what happened after it (issue #27). A station records
ReleaseInstalled before the first event it writes under a release it did not begin under; the
rule PAID for a bingo game's prize (0.2.0: paid once) judges a station's payments only after
that point, and the exception list and the day report say where its record begins.

The history is release 0.1.0's own: the fixture's hall (tests/data/release-0.1.0), with a
bingo game's prize paid in two parts by that release's code from git history, as it allowed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from pos import __version__
from pos.domain import rule_records
from pos.domain.event_schemas import body_problem
from pos.domain.rule_records import PAID_BINGO, Release
from pos.services.replicate import pull
from pos.services.station import Station
from tests.conftest import run_booth

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "release-0.1.0"
PREVIOUS = "1a902f2"  # release 0.1.0
NOW = "2026-12-05T23:00:00+00:00"  # 18:00 in the hall, after the fixture's nights
LATER = "2026-12-05T23:10:00+00:00"  # 18:10: the upgrade
PROGRAM = {
    "name": "Saturday",
    "house_rules": "Players must be present to win.",
    "games": [
        {"kind": "regular", "name": "Early Bird", "pattern": "any line", "prize": "50.00"},
        {"kind": "regular", "name": "Second", "pattern": "any line", "prize": "20.00"},
    ],
}


# --- the registry, pure ----------------------------------------------------------------------


def _release(origin: str, seq: int, release: str, *, introduced: bool) -> Release:
    return Release(origin, seq, release, introduced, f"hlc-{seq}", f"2026-12-05 18:{seq:02d}")


def test_a_hall_begun_under_the_rules_release_says_nothing_and_judges_everything() -> None:
    releases = [
        _release("manager", 1, "0.2.0", introduced=True),
        _release("booth-1", 1, "0.2.0", introduced=True),
    ]
    found = rule_records.starts(PAID_BINGO, releases)
    assert found == ()
    assert rule_records.sentence(found) is None
    assert rule_records.judged(found, "booth-1", 1)


def test_an_upgraded_station_is_judged_after_its_release_installed_and_not_before() -> None:
    releases = [
        _release("manager", 1, "0.1.0", introduced=True),
        _release("manager", 40, "0.2.0", introduced=False),
        _release("booth-1", 1, "0.1.0", introduced=True),
        _release("booth-2", 1, "0.2.0", introduced=True),  # joined under 0.2.0
    ]
    found = rule_records.starts(PAID_BINGO, releases)
    assert rule_records.judged(found, "manager", 41)
    assert not rule_records.judged(found, "manager", 39)
    assert not rule_records.judged(found, "booth-1", 500)  # still on 0.1.0
    assert rule_records.judged(found, "booth-2", 2)
    assert rule_records.sentence(found) == (
        "the record of rule PAID (a bingo game's prize paid once) begins 2026-12-05 18:40 at "
        "manager (Booth 0.2.0); not yet at booth-1 (nothing recorded there under Booth 0.2.0 or "
        "later is held here)"
    )


def test_releases_order_as_numbers_and_a_bad_one_is_named() -> None:
    assert rule_records.release_key("0.10.0") > rule_records.release_key("0.9.1")
    with pytest.raises(ValueError, match=r"'0\.2-beta'"):
        rule_records.release_key("0.2-beta")
    assert body_problem("ReleaseInstalled", {"release": "0.2.0", "previous": "0.1.0"}) is None
    assert body_problem("ReleaseInstalled", {"release": "two", "previous": "0.1.0"})


# --- a hall made by this release ----------------------------------------------------------------


def _kinds(ledger: Path, origin: str) -> list[tuple[int, str, dict[str, Any]]]:
    conn = sqlite3.connect(ledger)
    try:
        rows = conn.execute(
            "SELECT seq, type, body FROM events WHERE origin = ? ORDER BY seq", (origin,)
        ).fetchall()
    finally:
        conn.close()
    return [(int(seq), str(kind), json.loads(body)) for seq, kind, body in rows]


def test_a_hall_created_by_this_release_says_so_in_its_first_event_and_records_no_install(
    hall_dir: Path,
) -> None:
    events = _kinds(hall_dir / "ledger.db", "manager")
    assert events[0][1] == "HallCreated" and events[0][2]["release"] == __version__
    assert "ReleaseInstalled" not in {kind for _, kind, _ in events}  # written since, none
    day = run_booth(
        "--hall", str(hall_dir), "report", "day", "--json", env={"BOOTH_OPERATOR": "M1"}
    )
    assert day.exit_code == 0, day.stderr
    assert json.loads(day.stdout)["rule_records"] == []
    listed = run_booth("--hall", str(hall_dir), "exception", "list")
    assert "record of rule" not in listed.stdout


# --- the hall 0.1.0 made, upgraded in place -----------------------------------------------------


def _previous_release(into: Path) -> Path:
    found = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{PREVIOUS}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0:
        pytest.fail(
            f"this test runs release 0.1.0 from git history (commit {PREVIOUS}), which this "
            f"checkout lacks ({found.stderr.strip() or 'no .git'}): git fetch --unshallow"
        )
    into.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", PREVIOUS, "pos", "sync", "web", "kiosk", "hardware"],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def _old_booth(code: Path, station: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    env.update({"PYTHONPATH": str(code), "BOOTH_NOW": NOW})
    done = subprocess.run(
        [sys.executable, "-m", "pos", "--hall", str(station), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=code,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def _sync(*stations: Path) -> None:
    for target in stations:
        for source in stations:
            if source != target:
                with (
                    Station(source, environ={"BOOTH_NOW": LATER}) as s,
                    Station(target, environ={"BOOTH_NOW": LATER}) as t,
                ):
                    pull(s.ledger, t.ledger)


def _new(station: Path, *args: str) -> Any:
    done = run_booth(
        "--hall", str(station), *args, "--json", env={"BOOTH_NOW": LATER, "BOOTH_OPERATOR": "M100"}
    )
    assert done.exit_code == 0, (args, done.stderr)
    return json.loads(done.stdout)


def _text(station: Path, *args: str) -> str:
    done = run_booth(
        "--hall", str(station), *args, env={"BOOTH_NOW": LATER, "BOOTH_OPERATOR": "M100"}
    )
    assert done.exit_code == 0, (args, done.stderr)
    return done.stdout


@pytest.fixture
def old_hall(tmp_path: Path) -> Path:
    """The fixture's hall, then under 0.1.0 at the manager: a session of 2026-12-05 with a
    program, and game 1's $50.00 prize paid in two parts of $25.00 (0.1.0 allowed it)."""
    code = _previous_release(tmp_path / "release-0.1.0")
    assert '__version__ = "0.1.0"' in (code / "pos" / "__init__.py").read_text()
    with tarfile.open(FIXTURE / "stations.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data")
    hall = tmp_path / "hall"
    manager = hall / "manager"
    program = tmp_path / "program.json"
    program.write_text(json.dumps(PROGRAM))
    _old_booth(code, manager, "session", "open", "--as", "M100")
    _old_booth(code, manager, "program", "create", "--file", str(program), "--as", "M100")
    for _ in range(2):
        paid = _old_booth(code, manager, "bingo", "pay", "--game", "1", "--amount", "25.00",
                          "--as", "M100")  # fmt: skip
        assert "Paid $25.00 for game 1" in paid
    return hall


def _paid_twice(station: Path) -> list[str]:
    return [e["subject"] for e in _new(station, "exception", "list") if "paid-twice" in e["kind"]]


@pytest.mark.slow  # runs release 0.1.0's CLI, from git history
def test_after_the_upgrade_0_1_0s_payments_in_parts_are_not_a_prize_paid_twice(
    old_hall: Path,
) -> None:
    manager, booth_1 = old_hall / "manager", old_hall / "booth-1"
    assert _paid_twice(manager) == []  # read before any write under 0.2.0
    listed = _text(manager, "exception", "list")
    assert (
        "note: the record of rule PAID (a bingo game's prize paid once) has not begun at "
        "booth-1, kiosk-1, manager (nothing recorded there under Booth 0.2.0 or later is held "
        "here)" in listed
    )

    # The upgrade: each station's first write under 0.2.0 records the release first, once.
    _sync(manager, booth_1)
    for station, badge in ((manager, "M100"), (booth_1, "S200")):
        paid = _new(station, "bingo", "pay", "--game", "2", "--amount", "20.00", "--as", badge)
        assert paid["amount"] == "20.00"  # game 2, paid at both while cut apart
    refused = run_booth("--hall", str(manager), "bingo", "pay", "--game", "2", "--amount",
                        "20.00", "--as", "M100", env={"BOOTH_NOW": LATER})  # fmt: skip
    assert refused.exit_code == 1 and "rule PAID" in refused.stderr
    for station, name in ((manager, "manager"), (booth_1, "booth-1")):
        installs = [
            (kind, body["release"], body["previous"])
            for _, kind, body in _kinds(station / "ledger.db", name)
            if kind == "ReleaseInstalled"
        ]
        assert installs == [("ReleaseInstalled", __version__, "0.1.0")]
    _sync(manager, booth_1)

    # Judged after the upgrade: game 2 paid at two stations; 0.1.0's parts of game 1 are not.
    assert _paid_twice(manager) == ["game 2 of session 2026-12-05/1"]
    assert _paid_twice(booth_1) == ["game 2 of session 2026-12-05/1"]
    begins = (
        "the record of rule PAID (a bingo game's prize paid once) begins 2026-12-05 18:10 at "
        "booth-1 (Booth 0.2.0); 2026-12-05 18:10 at manager (Booth 0.2.0); not yet at kiosk-1 "
        "(nothing recorded there under Booth 0.2.0 or later is held here)"
    )
    assert f"note: {begins}" in _text(manager, "exception", "list")
    day = _new(manager, "report", "day", "--date", "2026-12-05")
    assert day["rule_records"] == [begins]
    assert f"note: {begins}" in _text(manager, "report", "day", "--date", "2026-12-05")


@pytest.mark.slow  # runs release 0.1.0's CLI, from git history
def test_reads_and_a_rebuild_record_no_release_and_the_pdf_says_where_the_record_begins(
    old_hall: Path, tmp_path: Path
) -> None:
    manager = old_hall / "manager"
    before = _kinds(manager / "ledger.db", "manager")
    assert _text(manager, "rebuild").startswith("Rebuilt projections")
    _new(manager, "report", "day", "--date", "2026-12-05")
    assert _kinds(manager / "ledger.db", "manager") == before  # nothing written

    pdf = tmp_path / "day.pdf"
    _text(manager, "report", "day", "--date", "2026-12-05", "--pdf", str(pdf))
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Where each rule's record begins" in text
    assert "PAID (a bingo game's prize paid once) has not begun at booth-1" in " ".join(
        text.split()
    )
