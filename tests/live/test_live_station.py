"""A station whose owner runs: many clients at once, clients killed mid-command, clients that
may not use it, and a station on a write-protected copy."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live.owners import BOOTH, NOW, ROOT, booth, make_demo_hall, owner, sync_url

pytestmark = pytest.mark.slow
S = ("--as", "S200")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    hall = make_demo_hall(tmp_path_factory.mktemp("demo") / "hall")
    # devices and a package at the booth, for rent
    assert booth(hall / "booth-1", "device", "add", *[f"D{n}" for n in range(1, 31)],
                 "--model", "TED", "--as", "M100").exit_code == 0  # fmt: skip
    assert booth(hall / "booth-1", "device", "package", "Basic", "--faces", "12", "--games",
                 "10", "--price", "15.00", "--as", "M100").exit_code == 0  # fmt: skip
    return hall


def _station(demo: Path, tmp: Path, name: str = "booth-1") -> Path:
    copy = tmp / name
    shutil.copytree(demo / name, copy)
    return copy


def _count(hall: Path, kind: str) -> int:
    conn = sqlite3.connect(f"file:{hall / 'ledger.db'}?mode=ro", uri=True)
    try:
        return int(
            conn.execute("SELECT count(*) FROM events WHERE type = ?", (kind,)).fetchone()[0]
        )
    finally:
        conn.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _origin_seq(hall: Path, origin: str) -> int:
    ran = booth(hall, "verify", "--json")
    return int(json.loads(ran.stdout)["origins"][origin]["last_seq"])


def _digest(hall: Path) -> str:
    ran = booth(hall, "verify", "--json")
    assert ran.exit_code == 0, ran.stderr
    return str(json.loads(ran.stdout)["digest"])


# -- a storm ----------------------------------------------------------------------------------


def test_a_storm_of_clients_is_acknowledged_exactly_once_while_a_peer_pulls(
    demo: Path, tmp_path: Path
) -> None:
    live, peer = _station(demo, tmp_path), _station(demo, tmp_path, "manager")
    live_port, peer_port = _free_port(), _free_port()
    M = ("--as", "M100")
    assert booth(live, "sync", "peer", "add", f"https://127.0.0.1:{peer_port}", *M).exit_code == 0
    assert booth(peer, "sync", "peer", "add", f"https://127.0.0.1:{live_port}", *M).exit_code == 0
    sold_before, paid_before = _count(live, "TicketsSold"), _count(live, "WinnerRedeemed")
    serve = ("serve", "--no-discovery", "--interval", "0.3")
    with (
        owner(live, *serve, "--port", str(live_port)),
        owner(peer, *serve, "--port", str(peer_port)),
    ):
        clients = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.live.storm_client",
                    str(live),
                    str(n),
                    str(tmp_path / f"acks-{n}.json"),
                ],
                cwd=ROOT,
                start_new_session=True,
            )
            for n in range(4)
        ]
        try:
            for client in clients:
                assert client.wait(timeout=600) == 0
        finally:
            for client in clients:
                if client.poll() is None:
                    os.killpg(client.pid, signal.SIGKILL)
                    client.wait()
        acks = [a for n in range(4) for a in json.loads((tmp_path / f"acks-{n}.json").read_text())]
        assert len(acks) == 400
        assert [a for a in acks if a["exit"] == 3] == [], "no 'in use' or failure"
        sold = sum(1 for a in acks if a["kind"] == "sell" and a["exit"] == 0)
        paid = sum(1 for a in acks if a["kind"] == "redeem" and a["exit"] == 0)
        assert sold == 200 and paid > 0
        assert _count(live, "TicketsSold") - sold_before == sold
        assert _count(live, "WinnerRedeemed") - paid_before == paid
        deadline = time.monotonic() + 120
        while _digest(live) != _digest(peer):
            assert time.monotonic() < deadline, "the peer did not converge"
            time.sleep(0.5)


# -- killed clients ---------------------------------------------------------------------------


def _kill_and_rerun(hall: Path, args: list[str], rid: str, rng: random.Random) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    env["BOOTH_NOW"] = NOW
    command = [BOOTH, "--hall", str(hall), *args, "--request-id", rid]
    victim = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(rng.uniform(0.0, 0.25))
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize("live", [True, False], ids=["live", "idle"])
def test_killed_clients_rerun_with_their_request_id_write_once(
    demo: Path, tmp_path: Path, live: bool
) -> None:
    hall = _station(demo, tmp_path)
    rng = random.Random(15)
    kinds = {
        "TicketsSold": (50 if live else 15, lambda n: ["sell", "A100001", "--qty", "1", *S]),
        "WinnerRedeemed": (10, lambda n: ["redeem", f"A100001/{1500 + n:04d}/500", *S]),
        "DeviceRented": (10, lambda n: ["rent", "--faces", "12", "--games", "10", *S]),
        "VoucherIssued": (10, lambda n: ["voucher", "issue", "2.00", *S]),
    }
    before = {kind: _count(hall, kind) for kind in kinds}
    with owner(hall, "serve", "--port", "0", "--no-discovery") if live else _nothing():
        for kind, (times, args) in kinds.items():
            for n in range(times):
                _kill_and_rerun(hall, args(n), f"{kind}-{n}", rng)
        # the same ids once more: answered from the record, nothing new
        assert (
            booth(hall, *kinds["TicketsSold"][1](0), "--request-id", "TicketsSold-0").exit_code == 0
        )
    for kind, (times, _) in kinds.items():
        assert _count(hall, kind) - before[kind] == times, kind


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


# -- who may use the socket -------------------------------------------------------------------


@pytest.fixture
def open_tree(demo: Path) -> Iterator[Path]:
    """A station in a tree every user may walk (pytest's own tmp is private to root)."""
    top = Path(tempfile.mkdtemp(prefix="booth-perm-"))
    try:
        os.chmod(top, 0o755)
        hall = top / "booth-1"
        shutil.copytree(demo / "booth-1", hall)
        os.chmod(hall, 0o755)
        yield hall
    finally:
        shutil.rmtree(top, ignore_errors=True)


CLIENT_FILES = ("pos/__init__.py", "pos/cli/__init__.py", "pos/cli/entry.py", "pos/cli/client.py",
                "pos/cli/control_socket.py", "pos/cli/owner_start.py",
                "pos/cli/request_ids.py")  # fmt: skip


def _copy_the_client(hall: Path) -> None:
    """The client's modules beside the station, readable by every user."""
    for name in CLIENT_FILES:
        (hall.parent / "client" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, hall.parent / "client" / name)
    for path in [hall.parent / "client", *(hall.parent / "client").rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


def _as_nobody(
    hall: Path, *args: str, groups: tuple[int, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """`booth ARGS` as uid 65534 with Debian's python3 and only the client's own modules (the
    client path imports nothing else; the test's interpreter lives where nobody may read)."""
    code = "import sys; from pos.cli.entry import main; sys.argv[0] = 'booth'; main()"
    return subprocess.run(
        ["/usr/bin/python3", "-c", code, "--hall", str(hall), *args],
        env={"PATH": "/usr/bin:/bin", "BOOTH_NOW": NOW, "HOME": "/tmp",
             "PYTHONPATH": str(hall.parent / "client")},
        capture_output=True, text=True, timeout=60, user=65534, group=65534,
        extra_groups=list(groups),
    )  # fmt: skip


def test_a_client_not_allowed_on_the_socket_is_refused_and_nothing_is_recorded(
    open_tree: Path,
) -> None:
    hall = open_tree
    _copy_the_client(hall)
    sold = _count(hall, "TicketsSold")
    with owner(hall, "serve", "--port", "0", "--no-discovery"):
        sock = hall / "control.sock"
        assert stat.S_IMODE(sock.stat().st_mode) == 0o660
        denied = _as_nobody(hall, "sell", "A100001", "--qty", "1", *S)
        assert denied.returncode == 3, denied.stderr
        assert "permission denied" in denied.stderr and len(denied.stderr.splitlines()) == 1
        # even with the socket and the directory open to all (the owner made the directory
        # 0710 again when it opened the station), the owner checks who calls
        os.chmod(sock, 0o666)
        os.chmod(hall, 0o755)
        refused = _as_nobody(hall, "sell", "A100001", "--qty", "1", *S)
        assert refused.returncode == 3, refused.stderr
        assert "uid 65534" in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert _count(hall, "TicketsSold") == sold


def test_a_member_of_the_station_group_passes_through_its_0710_directory_to_the_socket(
    open_tree: Path,
) -> None:
    """The station directory is 0710 (#16): the group lists and reads nothing there, but a
    member reaches the running station's control socket by name and may use it (#15)."""
    hall = open_tree
    _copy_the_client(hall)
    os.chmod(hall, 0o710)
    group = hall.stat().st_gid
    sold = _count(hall, "TicketsSold")
    with owner(hall, "serve", "--port", "0", "--no-discovery"):
        listed = subprocess.run(
            ["/usr/bin/python3", "-c", "import os, sys; os.listdir(sys.argv[1])", str(hall)],
            capture_output=True,
            text=True,
            user=65534,
            extra_groups=[group],
        )
        assert listed.returncode != 0, "the group may not list the station directory"
        member = _as_nobody(hall, "sell", "A100001", "--qty", "1", *S, groups=(group,))
        assert member.returncode == 0, member.stderr
    assert _count(hall, "TicketsSold") == sold + 1


# -- a write-protected copy -------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root")
def test_a_station_on_a_read_only_mount_reads_and_refuses_writes_in_one_line(
    demo: Path, tmp_path: Path
) -> None:
    hall = _station(demo, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    script = f"""
set -u
mount --bind {hall} {hall} && mount -o remount,bind,ro {hall} || exit 99
run() {{ BOOTH_NOW={NOW} {BOOTH} --hall {hall} "$@"; echo "exit=$?"; }}
run verify --json
run deal list
run report day --date 2026-11-28 --as M100
run export --inspector {out}/inspection --as I300
run sell A100001 --qty 1 --as S200
"""
    ran = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ran.returncode != 99, ran.stderr
    exits = [line for line in ran.stdout.splitlines() if line.startswith("exit=")]
    assert exits == ["exit=0"] * 4 + ["exit=3"], (ran.stdout, ran.stderr)
    assert "Traceback" not in ran.stderr
    errors = [line for line in ran.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "read" in errors[0], errors
    assert (out / "inspection").is_dir()


def test_a_peer_listed_on_a_running_station_is_pulled_at_once_and_status_is_live(
    demo: Path, tmp_path: Path
) -> None:
    here, there = _station(demo, tmp_path), _station(demo, tmp_path, "kiosk-1")
    assert booth(there, "voucher", "issue", "3.00", "--as", "M100").exit_code == 0
    serve = ("serve", "--port", "0", "--no-discovery", "--interval", "60")
    with owner(here, *serve), owner(there, *serve) as there_log:
        status = json.loads(booth(here, "sync", "status", "--json").stdout)
        assert status["live"]["serving"].startswith("https://127.0.0.1:")
        assert status["live"]["peers"] == []
        url = sync_url(there_log)
        assert url is not None
        assert booth(here, "sync", "peer", "add", url, "--as", "M100").exit_code == 0
        deadline = time.monotonic() + 30  # the replicator's own round is 60 s away
        while _origin_seq(here, "kiosk-1") != _origin_seq(there, "kiosk-1"):
            assert time.monotonic() < deadline, "the listed peer was not pulled from"
            time.sleep(0.3)
        live = json.loads(booth(here, "sync", "status", "--json").stdout)["live"]
        assert [p["url"] for p in live["peers"]] == [url]
    assert json.loads(booth(here, "sync", "status", "--json").stdout)["live"] is None
