"""The `booth` command as a manager meets it: halls, stations, staff, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from pos.cli.main import cli
from pos.services.station import Station
from tests.conftest import TRAINING_NOW, run_booth

ROOT = Path(__file__).resolve().parent.parent


def _init(directory: Path, *extra: str) -> None:
    result = run_booth(
        "--hall",
        str(directory),
        "init",
        "--org",
        "VFW Post 12",
        "--location",
        "12 Main St",
        "--time-zone",
        "America/New_York",
        *extra,
    )
    assert result.exit_code == 0, result.stderr


def test_init_creates_a_hall_and_refuses_a_second_time(tmp_path: Path) -> None:
    _init(tmp_path / "m")
    again = run_booth(
        "--hall",
        str(tmp_path / "m"),
        "init",
        "--org",
        "X",
        "--location",
        "Y",
        "--time-zone",
        "UTC",
    )
    assert again.exit_code == 2
    assert "already holds a station" in again.stderr


def test_the_hall_directory_comes_from_booth_hall(tmp_path: Path) -> None:
    _init(tmp_path / "m")
    result = run_booth(
        "staff", "list", "--json", env={"BOOTH_HALL": str(tmp_path / "m"), "BOOTH_OPERATOR": "M1"}
    )
    assert result.exit_code == 0 and result.json == []


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--time-zone", "Mars/Olympus"], "time-zone"),
        (["--time-zone", "America/New_York", "--station", "Booth One!"], "station"),
    ],
)
def test_init_names_the_bad_field(tmp_path: Path, args: list[str], field: str) -> None:
    result = run_booth(
        "--hall", str(tmp_path / "m"), "init", "--org", "O", "--location", "L", *args
    )
    assert result.exit_code == 2
    assert field in result.stderr
    assert not (tmp_path / "m" / "station.json").exists()


def test_the_first_staff_member_must_be_a_manager(tmp_path: Path) -> None:
    _init(tmp_path / "m")
    hall = ["--hall", str(tmp_path / "m")]
    refused = run_booth(*hall, "staff", "add", "--name", "S", "--badge", "S1", "--role", "seller")
    assert refused.exit_code == 1 and "manager role" in refused.stderr
    ok = run_booth(
        *hall, "staff", "add", "--name", "Ann", "--badge", "M1", "--role", "manager",
        "--dob", "1970-01-01",
    )  # fmt: skip
    assert ok.exit_code == 0
    no_operator = run_booth(
        *hall, "staff", "add", "--name", "S", "--badge", "S1", "--role", "seller"
    )
    assert no_operator.exit_code == 1 and "--as BADGE" in no_operator.stderr


def test_operators_need_the_right_role(hall_dir: Path) -> None:
    hall = ["--hall", str(hall_dir)]
    as_seller = run_booth(
        *hall, "staff", "add", "--name", "X", "--badge", "X1", "--role", "seller", "--as", "S1"
    )
    assert as_seller.exit_code == 1
    assert "not a manager" in as_seller.stderr and "rule ROLE" in as_seller.stderr
    unknown = run_booth(
        *hall,
        "staff",
        "add",
        "--name",
        "X",
        "--badge",
        "X1",
        "--role",
        "seller",
        env={"BOOTH_OPERATOR": "NOBODY"},
    )
    assert unknown.exit_code == 1 and "'NOBODY' is not on this hall's staff" in unknown.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--badge", "M1"], "already on staff"),
        (["--badge", "bad badge"], "badge"),
        (["--badge", "Q1", "--dob", "1990-13-01"], "dob"),
        (["--badge", "Q1", "--dob", "2099-01-01"], "dob"),
    ],
)
def test_bad_staff_input_is_exit_2_and_records_nothing(
    hall_dir: Path, extra: list[str], message: str
) -> None:
    with Station(hall_dir) as st:
        before = st.ledger.count()
    result = run_booth(
        "--hall",
        str(hall_dir),
        "staff",
        "add",
        "--name",
        "Q",
        "--role",
        "seller",
        "--as",
        "M1",
        *extra,
        env={"BOOTH_NOW": TRAINING_NOW},
    )
    assert result.exit_code == 2, result
    assert message in result.stderr
    with Station(hall_dir) as st:
        assert st.ledger.count() == before


@pytest.mark.rule("JOIN")
def test_a_join_bundle_works_once(hall_dir: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "b.json"
    added = run_booth(
        "--hall",
        str(hall_dir),
        "station",
        "add",
        "kiosk-1",
        "--role",
        "kiosk",
        "--out",
        str(bundle),
        "--as",
        "M1",
        "--json",
    )
    assert added.exit_code == 0 and added.json["station"] == "kiosk-1"
    assert bundle.stat().st_mode & 0o077 == 0, "the bundle holds a private key"
    joined = run_booth("--hall", str(tmp_path / "k"), "join", str(bundle), "--json")
    assert joined.exit_code == 0, joined.stderr
    assert joined.json["role"] == "kiosk"
    assert "station_key" not in bundle.read_text()
    again = run_booth("--hall", str(tmp_path / "k2"), "join", str(bundle))
    assert again.exit_code == 1 and "already used by station kiosk-1" in again.stderr
    assert not (tmp_path / "k2").exists()
    staff = run_booth("--hall", str(tmp_path / "k"), "staff", "list", "--json", "--as", "M1")
    assert {p["badge"] for p in staff.json} == {"M1", "S1"}
    verified = run_booth("--hall", str(tmp_path / "k"), "verify", "--json")
    assert verified.exit_code == 0 and set(verified.json["origins"]) == {"manager", "kiosk-1"}


def test_a_station_name_is_used_once(hall_dir: Path, tmp_path: Path) -> None:
    args = ["--hall", str(hall_dir), "station", "add", "booth-1", "--role", "booth", "--as", "M1"]
    assert run_booth(*args, "--out", str(tmp_path / "1.json")).exit_code == 0
    second = run_booth(*args, "--out", str(tmp_path / "2.json"))
    assert second.exit_code == 2 and "already a station" in second.stderr


def test_only_the_hall_key_holder_adds_stations(hall_dir: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "b.json"
    run_booth(
        "--hall",
        str(hall_dir),
        "station",
        "add",
        "booth-1",
        "--role",
        "booth",
        "--out",
        str(bundle),
        "--as",
        "M1",
    )
    run_booth("--hall", str(tmp_path / "b"), "join", str(bundle))
    result = run_booth(
        "--hall",
        str(tmp_path / "b"),
        "station",
        "add",
        "booth-2",
        "--role",
        "booth",
        "--out",
        str(tmp_path / "c.json"),
        "--as",
        "M1",
    )
    assert result.exit_code == 1 and "hall's key" in result.stderr


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "{}",
        '{"format": "booth-join-1"}',
        '{"format": "booth-join-1", '
        '"hall": "x", "station": "s", "role": "booth", "hall_public_key": "zz", '
        '"station_key": "zz", "certificate": {}, "player_secret": "", "token": "", "events": []}',
    ],
)
def test_a_garbled_bundle_changes_nothing(tmp_path: Path, content: str) -> None:
    bundle = tmp_path / "b.json"
    bundle.write_text(content)
    result = run_booth("--hall", str(tmp_path / "s"), "join", str(bundle))
    assert result.exit_code in (2, 4), result
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "s").exists()
    assert bundle.read_text() == content


@pytest.mark.rule("TRAINING")
def test_booth_now_is_refused_outside_training_halls(tmp_path: Path) -> None:
    _init(tmp_path / "m")
    result = run_booth(
        "--hall", str(tmp_path / "m"), "staff", "list", env={"BOOTH_NOW": TRAINING_NOW}
    )
    assert result.exit_code == 1
    assert "only a training hall" in result.stderr


def test_a_garbled_booth_now_is_bad_input(hall_dir: Path) -> None:
    result = run_booth("--hall", str(hall_dir), "staff", "list", env={"BOOTH_NOW": "tea time"})
    assert result.exit_code == 2 and "BOOTH_NOW" in result.stderr


def test_a_write_beside_a_lock_holder_waits_then_is_told_who_holds_it(
    hall_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that holds the lock but serves no control socket (a script, a crashed
    owner's orphan): reads go on beside it; a write waits its turn, then says who holds it."""
    monkeypatch.setattr("pos.cli.common.LOCK_WAIT", 0.5)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from pos.services.station import Station;"
            "s = Station(Path(sys.argv[1])); print('ready', flush=True); time.sleep(60)",
            str(hall_dir),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        assert run_booth("--hall", str(hall_dir), "staff", "list", "--as", "M1").exit_code == 0
        result = run_booth(
            "--hall", str(hall_dir), "staff", "add", "--name", "Pat", "--badge", "P9",
            "--role", "seller", "--as", "M1",
        )  # fmt: skip
        assert result.exit_code == 3
        assert f"pid {holder.pid}" in result.stderr
    finally:
        holder.kill()
        holder.wait()
    assert run_booth("--hall", str(hall_dir), "staff", "list", "--as", "M1").exit_code == 0


def test_a_missing_station_says_what_to_do(tmp_path: Path) -> None:
    result = run_booth("--hall", str(tmp_path / "nowhere"), "verify")
    assert result.exit_code == 2 and "booth init" in result.stderr


def test_json_errors_carry_the_rule(tmp_path: Path) -> None:
    _init(tmp_path / "m")
    result = run_booth(
        "--hall",
        str(tmp_path / "m"),
        "staff",
        "add",
        "--name",
        "S",
        "--badge",
        "S1",
        "--role",
        "seller",
        "--json",
    )
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "error": result.stderr.removeprefix("booth: ").strip(),
        "exit": 1,
        "rule": "ROLE",
    }


def test_usage_errors_are_exit_2() -> None:
    assert run_booth("no-such-command").exit_code == 2
    assert run_booth("staff", "add").exit_code == 2


def test_help_does_not_import_kivy() -> None:
    code = (
        "import sys; from pos.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'kivy' not in sys.modules, 'kivy imported'\n"
        "assert 'escpos' not in sys.modules and 'zeroconf' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)


def _leaf_commands(group: click.Group, prefix: str = "booth") -> list[str]:
    names = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            names.extend(_leaf_commands(command, f"{prefix} {name}"))
        else:
            names.append(f"{prefix} {name}")
    return names


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = [name for name in _leaf_commands(cli) if f"`{name}`" not in readme]
    assert not missing, f"README.md does not document: {missing}"


def test_demo_builds_a_verified_training_hall(tmp_path: Path) -> None:
    result = run_booth("demo", "--dir", str(tmp_path / "demo"), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["verified"] is True
    again = run_booth("demo", "--dir", str(tmp_path / "demo"))
    assert again.exit_code == 0, "the demo replaces its own hall"
    (tmp_path / "mine").mkdir()
    refused = run_booth("demo", "--dir", str(tmp_path / "mine"))
    assert refused.exit_code == 2 and "not a demo hall" in refused.stderr
