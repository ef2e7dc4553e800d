"""The hall night the money contract suite and the four faults' tests run on (issue #26)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pos.services import books_cash, print_queue, receipts
from pos.services.current_session import open_session_now
from pos.services.station import Station
from tests.conftest import Result, make_training_hall
from tests.contract import hall_night
from tests.contract.hall_night import BOOTH, BOOTH_DIR, ENVIRON, MANAGER_DIR
from tests.contract.kinds import Kind
from tests.halls import Hall


@pytest.fixture(scope="session")
def night_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("night-template")
    make_training_hall(root / "first")
    hall_night.build(root / "night", root / "first")
    return root / "night"


class Night:
    """booth-1 of a fresh copy of the hall night, and what its ledger holds."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.booth = Hall(root / BOOTH_DIR, root / "files")
        self.manager = Hall(root / MANAGER_DIR, root / "files")

    def __call__(self, *args: str) -> Result:
        result: Result = self.booth(*args)
        return result

    def kinds_recorded(self, since: int) -> list[str]:
        with Station(self.booth.directory, environ=ENVIRON) as st:
            return [
                row[0]
                for row in st.ledger.conn.execute(
                    "SELECT type FROM events WHERE origin = ? AND seq > ? ORDER BY seq",
                    (st.id, since),
                )
            ]

    def last_seq(self) -> int:
        with Station(self.booth.directory, environ=ENVIRON) as st:
            row = st.ledger.conn.execute(
                "SELECT coalesce(max(seq), 0) FROM events WHERE origin = ?", (st.id,)
            ).fetchone()
            return int(row[0])

    def amounts_since(self, since: int) -> int:
        """Cents the events since `since` took in (their `amount`): what a sale moved."""
        with Station(self.booth.directory, environ=ENVIRON) as st:
            return sum(
                int(json.loads(row[0]).get("amount") or 0)
                for row in st.ledger.conn.execute(
                    "SELECT body FROM events WHERE origin = ? AND seq > ? AND type IN "
                    "('TicketsSold', 'PaperSold', 'DeviceRented', 'DecisionEntered', "
                    "'ChestSold', 'RaffleTicketSold', 'VoucherIssued')",
                    (st.id, since),
                )
            )

    def expected_cash(self) -> int:
        with Station(self.booth.directory, environ=ENVIRON, read_only=True) as st:
            session = open_session_now(st)
            assert session is not None
            return books_cash.expected(st, session.id, BOOTH)

    def report_gross(self, line: str) -> int:
        report = self("report", "day", "--json")
        assert report.exit_code == 0, report.stderr
        found = next(p for p in report.json["products"] if p["line"] == line)
        whole, _, part = str(found["gross"]).partition(".")
        return int(whole) * 100 + int(part)

    def prepare_prize(self, kind: Kind) -> tuple[str, ...]:
        """Make the kind's prize payable; the payment's arguments."""
        for step in kind.prepare_prize:
            done = self(*step)
            assert done.exit_code == 0, (step, done.stderr)
        assert kind.prize is not None
        if not kind.prize_needs_code:
            return kind.prize
        with Station(self.booth.directory, environ=ENVIRON) as st:
            number = max(print_queue.pending(st) or [0])
            code = receipts.receipt(st, st.id, number).qr
        assert code
        return (*kind.prize[:2], code, *kind.prize[2:])


@pytest.fixture
def night(night_template: Path, tmp_path: Path) -> Iterator[Night]:
    root = tmp_path / "night"
    shutil.copytree(night_template, root, symlinks=True)
    yield Night(root)
