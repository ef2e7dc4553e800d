"""The control socket's limits (#29): reads after failed opens, frames too large or too deep,
idle clients, and a caller outside the station's group."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pos.cli import client
from pos.cli.control_socket import MAX_REQUEST
from tests.live.owners import NOW, ROOT, booth, make_demo_hall, owner

pytestmark = pytest.mark.slow
SERVE = ("serve", "--port", "0", "--no-discovery")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_hall(tmp_path_factory.mktemp("demo") / "hall")


@pytest.fixture
def hall(demo: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "booth-1"
    shutil.copytree(demo / "booth-1", copy)
    return copy


def _owner_pid(hall: Path) -> int:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(hall / "control.sock"))
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return int.from_bytes(raw[:4], "little")


def _high_water_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def _raw_exchange(hall: Path, payload: bytes) -> dict[str, object] | None:
    """Send `payload` as a frame (in a thread: the owner may stop reading it) and return the
    owner's answer, or None when it closed without one."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(120)
        sock.connect(str(hall / "control.sock"))

        def send() -> None:
            with contextlib.suppress(OSError):  # the owner stopped reading: its answer says why
                sock.sendall(payload)

        sender = threading.Thread(target=send)
        sender.start()
        with sock.makefile("rb") as stream:
            line = stream.readline()
        sender.join()
    return json.loads(line) if line else None


# -- 5: reads after failed opens ----------------------------------------------------------------


def test_reads_after_failed_opens_answer_exit_3_and_then_work_again(hall: Path) -> None:
    ledger, away = hall / "ledger.db", hall / "ledger.db.away"
    with owner(hall, *SERVE) as log:
        ledger.rename(away)  # its first read connection cannot be opened for a moment
        try:
            for _ in range(3):
                failed = booth(hall, "deal", "list", timeout=90)
                assert failed.exit_code == 3, (failed.stdout, failed.stderr)
                assert "ledger" in failed.stderr, failed.stderr
        finally:
            away.rename(ledger)
        for args in (("deal", "list"), ("report", "day", "--as", "M100"), ("verify",)):
            again = booth(hall, *args, timeout=90)
            assert again.exit_code == 0, (args, again.stderr)
        assert "Traceback" not in log.read_text()


def test_the_client_gives_up_on_an_owner_that_never_answers(tmp_path: Path) -> None:
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "control.sock"))
    listener.listen(1)
    held: list[socket.socket] = []
    accepting = threading.Thread(target=lambda: held.append(listener.accept()[0]))
    accepting.start()
    try:
        with pytest.raises(client.ControlRefused, match="did not answer"):
            client.forward(tmp_path, ["deal", "list"], "r-1", explicit_id=False, timeout=1.0)
    finally:
        accepting.join()
        for sock in [*held, listener]:
            sock.close()


# -- 11: frames ---------------------------------------------------------------------------------


def test_a_frame_too_large_is_exit_2_and_the_owner_does_not_hold_it(hall: Path) -> None:
    with owner(hall, *SERVE):
        assert booth(hall, "deal", "list").exit_code == 0
        pid = _owner_pid(hall)
        before = _high_water_kb(pid)
        frame = b'{"argv": ["deal", "list"], "pad": "' + b"x" * (200 * 1024 * 1024) + b'"}\n'
        answer = _raw_exchange(hall, frame)
        grew_mb = (_high_water_kb(pid) - before) / 1024
        assert answer is not None and answer["exit"] == 2, answer
        assert f"{MAX_REQUEST:,}" in str(answer["stderr"]), answer
        assert grew_mb < MAX_REQUEST / 2**20 + 64, f"the owner grew {grew_mb:.0f} MB"
        assert booth(hall, "deal", "list").exit_code == 0


def test_a_deeply_nested_or_malformed_frame_is_exit_2_without_a_traceback(hall: Path) -> None:
    with owner(hall, *SERVE) as log:
        for payload in (
            b"[" * 200_000 + b"\n",
            b'{"argv": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n",
            b'{"argv": 7, "request_id": "x"}\n',
            b'{"argv": ["deal", "list"], "request_id": "x", "env": [1]}\n',
            b"\xff\xfe not json\n",
        ):
            answer = _raw_exchange(hall, payload)
            assert answer is not None and answer["exit"] == 2, (payload[:40], answer)
        assert booth(hall, "deal", "list").exit_code == 0
    assert "Traceback" not in log.read_text(), log.read_text()


def test_an_idle_client_is_let_go(hall: Path) -> None:
    with owner(hall, *SERVE):
        idle = [socket.socket(socket.AF_UNIX) for _ in range(3)]
        try:
            for sock in idle:
                sock.settimeout(120)  # far beyond the owner's idle limit: a hang fails here
                sock.connect(str(hall / "control.sock"))
            idle[1].sendall(b'{"argv": ["deal",')  # half a frame, then nothing
            for sock in idle:
                said = b""
                while chunk := sock.recv(4096):  # until the owner closes it
                    said += chunk
                assert said == b"" or json.loads(said)["exit"] == 2, said
        finally:
            for sock in idle:
                sock.close()
        assert booth(hall, "deal", "list").exit_code == 0


# -- 12a: a caller outside the station's group --------------------------------------------------


CLIENT_FILES = ("pos/__init__.py", "pos/cli/__init__.py", "pos/cli/entry.py", "pos/cli/client.py",
                "pos/cli/control_socket.py", "pos/cli/owner_start.py",
                "pos/cli/request_ids.py")  # fmt: skip


@pytest.fixture
def open_tree(demo: Path) -> Iterator[Path]:
    top = Path(tempfile.mkdtemp(prefix="booth-perm-"))
    try:
        os.chmod(top, 0o755)
        hall = top / "booth-1"
        shutil.copytree(demo / "booth-1", hall)
        for name in CLIENT_FILES:
            (top / "client" / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, top / "client" / name)
        for path in [top / "client", *(top / "client").rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        yield hall
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="running as another user needs root")
def test_a_uid_outside_the_station_group_gets_exit_3(open_tree: Path) -> None:
    hall = open_tree
    os.chmod(hall, 0o710)  # the station directory as `booth init` leaves it
    code = "import sys; from pos.cli.entry import main; sys.argv[0] = 'booth'; main()"
    with owner(hall, *SERVE):
        for args in (("sell", "A100001", "--qty", "1", "--as", "S200"), ("deal", "list")):
            ran = subprocess.run(
                ["/usr/bin/python3", "-c", code, "--hall", str(hall), *args],
                env={"PATH": "/usr/bin:/bin", "BOOTH_NOW": NOW, "HOME": "/tmp",
                     "PYTHONPATH": str(hall.parent / "client")},
                capture_output=True, text=True, timeout=60, user=65534, group=65534,
            )  # fmt: skip
            assert ran.returncode == 3, (args, ran.stdout, ran.stderr)
            assert str(hall) in ran.stderr and "Traceback" not in ran.stderr, ran.stderr
