"""Issue #16 item 1 and issue #29 item 4: strangers on the hall's LAN must not starve its
stations, by the replication port, by a stolen station certificate, or by the phone's port.

The manager serves (`booth serve`'s SyncService, as its own process); a neighbour
(tests/sync/flood.py, its own process) holds 200 idle TCP connections that never start TLS,
from 50 addresses, and floods connects from one more. booth-1 runs `booth sync now` against the
manager 50 times meanwhile: every one must succeed. (Before: with 70 idle connections, 61 of 66
failed, blaming "our certificate".) The times are reported, not asserted: bench/dos.py measures
them against the 2 s target.

A stolen kiosk card: 70 idle TLS connections that showed a station certificate of the hall
took every worker slot (64) and stopped sync for everyone. And the phone's port had none of the
sync port's limits: at systemd's default of 1024 file descriptors, 2,500 idle connections to it
took the owner's descriptors, and peers' pulls, the manager's own pull and the phone failed.
bench/dos_web.py times that flood.
"""

from __future__ import annotations

import json
import os
import ssl
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_booth
from tests.processes import end
from tests.sync.conftest import ENVIRON, ROOT, StationProcess, build_hall, free_port
from tests.sync.flood import owner_process

CALLS = 50
#: systemd's default soft limit of file descriptors for a service (what the hall ran with)
SYSTEMD_DEFAULT_NOFILE = 1024


def start_flood(port: int, *args: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.sync.flood", str(port), *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        end(process)
        raise RuntimeError("the flood did not start")
    process.ready = json.loads(line)  # type: ignore[attr-defined]
    return process


def stop_flood(process: subprocess.Popen[str]) -> dict[str, int]:
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("quit\n")
        process.stdin.flush()
        counts: dict[str, int] = json.loads(process.stdout.readline() or "{}")
        process.wait(timeout=30)
        return counts
    finally:
        end(process)


@pytest.mark.slow
def test_idle_strangers_and_a_connect_flood_do_not_starve_sync_now(
    tmp_path: Path, processes: list[StationProcess]
) -> None:
    hall = build_hall(tmp_path, ["booth-1"])
    port = free_port()
    manager = StationProcess(hall.stations["manager"], port, "--peer", "https://127.0.0.1:1")
    processes.append(manager)
    url = f"https://127.0.0.1:{port}"
    booth = str(hall.stations["booth-1"])
    assert run_booth("--hall", booth, "sync", "now", "--peer", url, env=ENVIRON).exit_code == 0

    flood = start_flood(port, "--idle", "200", "--seconds", "240", "--max-connects", "300000")
    failures, times = [], []
    try:
        for n in range(CALLS):
            if n % 10 == 0:
                manager.ask("sell D-MANAGER 1")  # something new to pull now and then
            started = time.monotonic()
            result = run_booth("--hall", booth, "sync", "now", "--peer", url, "--json", env=ENVIRON)
            times.append(time.monotonic() - started)
            if result.exit_code != 0:
                failures.append((n, result.exit_code, result.stdout[-300:], result.stderr[-300:]))
    finally:
        counts = stop_flood(flood)
    times.sort()
    print(
        f"\nDoS: {CALLS - len(failures)}/{CALLS} sync now succeeded under 200 idle connections "
        f"and a connect flood ({counts}); seconds p50 {statistics.median(times):.3f}, "
        f"p90 {times[int(len(times) * 0.9) - 1]:.3f}, max {times[-1]:.3f}"
    )
    assert counts.get("flooded", 0) > CALLS, f"the flood did not flood: {counts}"
    assert failures == [], failures


@pytest.mark.slow
def test_idle_connections_with_a_stolen_station_certificate_do_not_stop_sync(
    tmp_path: Path, processes: list[StationProcess]
) -> None:
    """A kiosk's card stolen: its certificate is good, so its connections pass the handshake
    pool. 70 of them idle after the handshake, each reopened as soon as the station ends it;
    booth-1's pulls must all succeed meanwhile."""
    hall = build_hall(tmp_path, ["booth-1", "booth-2"])
    port = free_port()
    manager = StationProcess(hall.stations["manager"], port, "--peer", "https://127.0.0.1:1")
    processes.append(manager)
    url = f"https://127.0.0.1:{port}"
    booth = str(hall.stations["booth-1"])
    stolen = str(hall.stations["booth-2"])
    flood = start_flood(
        port, "--idle", "70", "--idle-sources", "10", "--no-connect-flood",
        "--certificate", stolen, "--seconds", "240",
    )  # fmt: skip
    failures = []
    try:
        assert flood.ready["held"] == 70, flood.ready  # type: ignore[attr-defined]
        for n in range(20):
            if n % 5 == 0:
                manager.ask("sell D-MANAGER 1")
            result = run_booth("--hall", booth, "sync", "now", "--peer", url, "--json", env=ENVIRON)
            if result.exit_code != 0:
                failures.append((n, result.exit_code, result.stdout[-300:], result.stderr[-300:]))
    finally:
        counts = stop_flood(flood)
    print(f"\nstolen certificate: {20 - len(failures)}/20 sync now succeeded ({counts})")
    assert failures == [], failures


@pytest.mark.slow
def test_idle_connections_to_the_phones_port_do_not_stop_the_halls_sync(tmp_path: Path) -> None:
    """The manager serves sync and the phone at systemd's default limit of 1024 descriptors;
    2,500 idle connections to the phone's port, from 250 addresses, each reopened when the
    station ends it. booth-1's pulls from the manager, the manager's own pulls from booth-1,
    and the phone's sign-in and dashboard must all succeed meanwhile."""
    from pos.services import web_access
    from pos.services.station import Station
    from tests.web.phone import set_pin

    hall = build_hall(tmp_path, ["booth-1"])
    manager_dir, booth_dir = hall.stations["manager"], hall.stations["booth-1"]
    with Station(manager_dir, environ=ENVIRON) as st:
        set_pin(st, "M1", "4321", "M1")
    port, booth_port = free_port(), free_port()
    serve = ("serve", "--no-discovery", "--interval", "3600")
    with (
        owner_process(booth_dir, *serve, "--port", str(booth_port), nofile=4096, env=ENVIRON),
        owner_process(
            manager_dir, *serve, "--port", str(port), "--web", "127.0.0.1:0",
            nofile=SYSTEMD_DEFAULT_NOFILE, env=ENVIRON,
        ) as owner,
    ):  # fmt: skip
        web_url = str(web_access.served_state(manager_dir)["url"])
        ca = (manager_dir / "tls" / "web-ca.pem").read_text()
        context = ssl.create_default_context(cadata=ca)
        url, booth_url = f"https://127.0.0.1:{port}", f"https://127.0.0.1:{booth_port}"
        web_port = int(web_url.rsplit(":", 1)[1])
        flood = start_flood(
            web_port, "--idle", "2500", "--idle-sources", "250", "--no-connect-flood",
            "--seconds", "280", "--max-connects", "100000000", "--say-cycled",
        )  # fmt: skip
        assert flood.stdout is not None
        cycled = json.loads(flood.stdout.readline())  # the station has ended 2,500 of them
        assert cycled.get("cycled", 0) >= 2500, cycled
        held_by_owner = [len(os.listdir(f"/proc/{owner.pid}/fd"))]
        failures: list[tuple[str, int, str]] = []
        try:
            for n in range(8):
                pulled = _booth(booth_dir, "sync", "now", "--peer", url, "--json")
                if pulled.returncode != 0:
                    failures.append((f"booth-1 pull {n}", pulled.returncode, pulled.stderr[-300:]))
                if n % 4 == 0:  # the manager's own pull, in its owner (the control socket)
                    own = _booth(manager_dir, "sync", "now", "--peer", booth_url, "--json")
                    if own.returncode != 0:
                        failures.append(
                            (
                                f"manager pull {n}",
                                own.returncode,
                                own.stdout[-300:] + own.stderr[-300:],
                            )
                        )
            paired = _booth(manager_dir, "web", "pair", "--role", "manager", "--as", "M1", "--json")
            if paired.returncode != 0:
                failures.append(("web pair", paired.returncode, paired.stderr[-300:]))
            else:
                failures += _phone(web_url, context, json.loads(paired.stdout)["url"])
            held_by_owner.append(len(os.listdir(f"/proc/{owner.pid}/fd")))
        finally:
            counts = stop_flood(flood)
        print(f"\nphone's port flooded ({counts}): owner's fds {held_by_owner}, {failures}")
        # the owner's descriptors stay within its ports' caps (sync/handshakes.py), far from
        # the limit, whatever the flood holds
        assert max(held_by_owner) < SYSTEMD_DEFAULT_NOFILE // 2, held_by_owner
        assert flood.ready["held"] >= 2400, flood.ready  # type: ignore[attr-defined]
        assert failures == [], failures


def _phone(web_url: str, context: ssl.SSLContext, link: str) -> list[tuple[str, int, str]]:
    """The manager's phone signs in through `link` and reads the dashboard: what failed."""
    from tests.web.phone import request

    token = link.rsplit("/", 1)[1]
    try:
        signed = request(
            f"{web_url}/signin", "POST", context=context,
            body=f"token={token}&badge=M1&pin=4321".encode(),
        )  # fmt: skip
        if signed.status != 303:
            return [("phone sign-in", signed.status, signed.body[:300].decode())]
        cookie = signed.headers["set-cookie"].split(";")[0].split("=", 1)[1]
        failed = []
        for path in ("/", "/data.json"):
            answer = request(web_url + path, context=context, cookie=cookie)
            if answer.status != 200:
                failed.append((f"phone {path}", answer.status, answer.body[:300].decode()))
        return failed
    except OSError as error:
        return [("phone", 0, repr(error))]


@pytest.mark.parametrize("name", ["station-cert.pem", "station-key.pem", "hall-ca.pem"])
def test_serve_names_the_tls_file_it_misses(tmp_path: Path, name: str) -> None:
    """Issue #29 item 12c: a station whose tls/ lost a file says which, with exit 2 (a restart
    cannot help: the unit's RestartPreventExitStatus=2), not ssl's "No such file"."""
    hall = build_hall(tmp_path, [])
    missing = hall.stations["manager"] / "tls" / name
    missing.unlink()
    ran = run_booth(
        "--hall", str(hall.stations["manager"]), "serve", "--port", str(free_port()),
        "--no-discovery", env=ENVIRON,
    )  # fmt: skip
    assert ran.exit_code == 2, (ran.exit_code, ran.stderr)
    assert str(missing) in ran.stderr, ran.stderr


def _booth(station: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`booth --hall STATION ARGS` as a process of its own, as a manager runs it."""
    return subprocess.run(
        [str(Path(sys.executable).with_name("booth")), "--hall", str(station), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **ENVIRON},
        timeout=120,
        cwd=station.parent,
    )
