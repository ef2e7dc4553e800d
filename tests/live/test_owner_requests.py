"""Request ids (#29): an id reused for another command, and how long answers are kept."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from pos.ledger import requests
from pos.services.station import Station
from tests.live.owners import booth, make_demo_hall, owner

pytestmark = pytest.mark.slow
SERVE = ("serve", "--port", "0", "--no-discovery")
S = ("--as", "S200")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_hall(tmp_path_factory.mktemp("demo") / "hall")


@pytest.fixture
def hall(demo: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "booth-1"
    shutil.copytree(demo / "booth-1", copy)
    return copy


def _sold(hall: Path) -> int:
    conn = sqlite3.connect(f"file:{hall / 'ledger.db'}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT count(*) FROM events WHERE type = 'TicketsSold'").fetchone()
        return int(row[0])
    finally:
        conn.close()


class _Idle:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


@pytest.mark.parametrize("live", [True, False], ids=["live", "idle"])
def test_a_request_id_reused_for_another_command_is_exit_2_naming_the_first(
    hall: Path, live: bool
) -> None:
    sold = _sold(hall)
    with owner(hall, *SERVE) if live else _Idle():
        first = booth(hall, "sell", "A100001", "--qty", "1", *S, "--request-id", "r-7")
        again = booth(hall, "sell", "A100001", "--qty", "1", *S, "--request-id", "r-7")
        other = booth(hall, "sell", "A100001", "--qty", "5", *S, "--request-id", "r-7")
        redeem = booth(hall, "redeem", "A100001/1500/500", *S, "--request-id", "r-7")
    assert first.exit_code == 0, first.stderr
    assert (again.exit_code, again.stdout) == (0, first.stdout)
    for ran in (other, redeem):
        assert ran.exit_code == 2, (ran.stdout, ran.stderr)
        assert "r-7" in ran.stderr and "sell A100001 --qty 1" in ran.stderr, ran.stderr
        assert ran.stdout == ""
    assert _sold(hall) == sold + 1


def test_answers_are_kept_for_a_bounded_number_of_requests(hall: Path) -> None:
    total = requests.KEEP_ANSWERS + 3 * requests.PRUNE_EVERY
    with Station(hall) as st:
        for n in range(total):
            with st.ledger.transaction():
                requests.record_answer(
                    st.ledger.conn, f"r-{n}", requests.Answer(1, f"answer {n}\n", "")
                )
        kept = st.ledger.conn.execute(
            "SELECT count(*) FROM requests WHERE answer IS NOT NULL"
        ).fetchone()[0]
        newest = requests.find(st.ledger.conn, f"r-{total - 1}")
        oldest = requests.find(st.ledger.conn, "r-0")
    assert requests.KEEP_ANSWERS <= kept <= requests.KEEP_ANSWERS + requests.PRUNE_EVERY
    assert newest is not None and newest.answer is not None
    assert oldest is None, "a refusal's answer, past the window, is gone with its row"
