"""Shared fixtures: halls on disk, the `booth` command run in-process, leaked-thread checks."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pos.cli.main import main
from pos.services import hall as hall_service
from pos.services import staff as staff_service
from pos.services.station import Station

if TYPE_CHECKING:
    from tests.halls import Hall

# The `spawn` fixture, and no process outlives the test that started it (tests/processes.py).
pytest_plugins = ["tests.processes"]

TRAINING_NOW = "2026-11-28T23:00:00+00:00"


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


def run_booth(*args: str, env: dict[str, str] | None = None) -> Result:
    """Run `booth ARGS` in this process, as the shell would see it: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    saved = {key: os.environ.get(key) for key in (env or {})}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture(autouse=True)
def _clean_booth_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BOOTH_HALL", "BOOTH_OPERATOR", "BOOTH_NOW"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_leaked_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    assert not leaked, f"test leaked threads: {leaked}"


def make_training_hall(directory: Path) -> Path:
    """A training hall's manager station with a manager (M1) and a seller-redeemer (S1)."""
    hall_service.init_hall(
        directory,
        organisation="Test Fire Company",
        location="1 Test Road",
        time_zone="America/New_York",
        training=True,
        environ={"BOOTH_NOW": TRAINING_NOW},
    )
    with Station(directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        staff_service.add_staff(
            st,
            badge="M1",
            name="Mary Manager",
            roles=["manager"],
            date_of_birth="1970-01-01",
            operator=None,
        )
        staff_service.add_staff(
            st,
            badge="S1",
            name="Sam Seller",
            roles=["seller", "redeemer"],
            date_of_birth="1990-05-05",
            operator="M1",
        )
    return directory


@pytest.fixture(scope="session")
def training_hall_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_training_hall(tmp_path_factory.mktemp("training-hall") / "manager")


@pytest.fixture
def hall_dir(training_hall_template: Path, tmp_path: Path) -> Path:
    """A training hall's manager station with a manager (M1) and a seller-redeemer (S1): a
    copy of one made once per test process (making one takes 25 ms, copying it 2 ms). Every
    test's hall is the same hall, keys and all; a test that needs another hall beside it
    makes one with make_training_hall."""
    target = tmp_path / "manager"
    shutil.copytree(training_hall_template, target)
    return target


@pytest.fixture
def station(hall_dir: Path) -> Iterator[Station]:
    with Station(hall_dir, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        yield st


@pytest.fixture
def hall(hall_dir: Path, tmp_path: Path) -> Hall:
    """The manager station of `hall_dir`, driven through the CLI with BOOTH_OPERATOR=M1."""
    from tests.halls import Hall

    flares = tmp_path / "flares"
    flares.mkdir()
    return Hall(hall_dir, flares)


@pytest.fixture
def selling(hall: Hall) -> Hall:
    """A hall with deal A123456 in play in drawer-1 and a session open."""
    from tests.halls import flare

    assert hall.receive(flare()).exit_code == 0
    assert hall("deal", "open", "A123456", "--bin", "drawer-1").exit_code == 0
    assert hall("session", "open").exit_code == 0
    return hall
