"""A hall of several stations on disk, and their processes, for the sync tests."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pos.services import deals, hall, sessions, staff
from pos.services.station import Station
from tests.conftest import TRAINING_NOW
from tests.halls import flare
from tests.processes import end, outlives_the_test

if TYPE_CHECKING:
    from tests.sync.head_office import HeadOffice

ROOT = Path(__file__).resolve().parents[2]
ENVIRON = {"BOOTH_NOW": TRAINING_NOW}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Hall:
    root: Path
    stations: dict[str, Path]


def build_hall(root: Path, booths: list[str]) -> Hall:
    """A manager and booths; each station holds its own deal in a bin; a session open."""
    manager = root / "manager"
    hall.init_hall(
        manager,
        organisation="Sync Test Post",
        location="1 Test Road",
        time_zone="America/New_York",
        training=True,
        environ=ENVIRON,
    )
    stations = {"manager": manager}
    with Station(manager, environ=ENVIRON) as st:
        staff.add_staff(
            st,
            badge="M1",
            name="Mary Manager",
            roles=["manager"],
            date_of_birth="1970-01-01",
            operator=None,
        )
        staff.add_staff(
            st,
            badge="S1",
            name="Sam Seller",
            roles=["seller", "redeemer"],
            date_of_birth="1990-05-05",
            operator="M1",
        )
        for name in ["manager", *booths]:
            deals.receive_deal(
                st, deals.flare_from_mapping(flare(f"D-{name.upper()}")), operator="M1"
            )
        sessions.open_session(st, operator="M1")
        deals.open_deal(st, "D-MANAGER", bin_name="drawer-1", operator="M1")
        bundles = []
        for name in booths:
            bundles.append((name, hall.add_station(st, name=name, role="booth", operator="M1")))
    for name, bundle in bundles:
        path = root / f"{name}.json"
        path.write_text(json.dumps(bundle))
        hall.join(root / name, path, environ=ENVIRON)
        with Station(root / name, environ=ENVIRON) as st:
            deals.open_deal(st, f"D-{name.upper()}", bin_name="drawer-1", operator="M1")
        stations[name] = root / name
    return Hall(root, stations)


class StationProcess:
    def __init__(
        self, directory: Path, port: int, *extra: str, prefix: list[str] | None = None
    ) -> None:
        self.directory = directory
        self.process = subprocess.Popen(
            [
                *(prefix or []),
                sys.executable,
                "-m",
                "tests.sync.station_proc",
                str(directory),
                str(port),
                *extra,
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # stop() can end it with whatever it started
        )
        try:
            self.ready = self.read()
        except BaseException:  # not started, or the test timed out waiting: end it here
            end(self.process)
            raise

    def read(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(
                f"station process ended: {self.process.stderr.read()[-2000:]}"
                if self.process.stderr
                else "station process ended"
            )
        return json.loads(line)

    def ask(self, command: str) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.read()

    def stop(self) -> None:
        try:
            if self.process.poll() is None:
                assert self.process.stdin is not None
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=30)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            pass
        finally:
            end(self.process)  # killed if it did not quit, with whatever it started


@pytest.fixture
def processes() -> Iterator[list[StationProcess]]:
    running: list[StationProcess] = []
    yield running
    with contextlib.ExitStack() as stops:  # each is stopped, even when another stop fails
        for process in running:
            stops.callback(process.stop)


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A private head-office CA and the certificate it issued for 127.0.0.1 (one a module)."""
    from tests.sync.head_office import make_tls

    return make_tls(tmp_path_factory.mktemp("head-office") / "tls")


@pytest.fixture(scope="module")
def office(tls: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[HeadOffice]:
    """The head office (tests/sync/head_office.py), started once a module that asks for it."""
    from tests.sync.head_office import HeadOffice, require_node

    require_node()
    server = HeadOffice(tls, tmp_path_factory.mktemp("head-office-log") / "upstream.log")
    outlives_the_test(server.process)  # shared by the module's tests; stopped below
    yield server
    server.stop()
