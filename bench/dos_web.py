"""Benchmark of the hall's sync while the manager's phone's port is flooded (issue #29, item 4).
Run by hand, never by the tests (tests/sync/test_dos.py asserts the successes, not the times):

    .venv/bin/python bench/dos_web.py                  # 30 calls, 2,500 idle connections
    .venv/bin/python bench/dos_web.py --calls 20 --idle 2500

On loopback: the manager's owner, `booth serve --web`, its own process with the file
descriptors packaging/systemd/booth@.service allows (LimitNOFILE=), and booth-1's owner,
`booth serve`. A neighbour (tests/sync/flood.py, its own process) holds --idle (2,500) TCP
connections to the phone's port that never start TLS, from 250 addresses (127.0.1.x), opening
each one the station closes again at once. Meanwhile booth-1 runs `booth sync now --peer`
against the manager --calls (30) times, each as its own process; every fifth call the manager
pulls from booth-1 too (`booth sync now` on the manager: its owner pulls), and the phone reads
its dashboard and its JSON (signed in once, before the flood).

It prints how many calls succeeded, their times (p50, p90, max: process start-up included) and
how many took 2 s or less, beside the same calls with no flood, measured in the same run.
Targets: 100% succeed, each within 2 s.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/ holds a sync.py: off the path, or `import sync` would find it instead of the package
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import ssl  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from contextlib import ExitStack  # noqa: E402
from typing import Any  # noqa: E402

from pos.services import web_access  # noqa: E402
from pos.services.station import Station  # noqa: E402
from tests.processes import end  # noqa: E402
from tests.sync.conftest import ENVIRON, build_hall, free_port  # noqa: E402
from tests.sync.flood import owner_process, unit_nofile  # noqa: E402
from tests.web.phone import request, set_pin  # noqa: E402

BOOTH_CLI = str(Path(sys.executable).with_name("booth"))
UNIT = ROOT / "packaging" / "systemd" / "booth@.service"
TARGET = 2.0
Call = tuple[bool, float, str]


def booth(station: Path, *args: str) -> Call:
    started = time.perf_counter()
    result = subprocess.run(
        [BOOTH_CLI, "--hall", str(station), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **ENVIRON},
        timeout=120,
    )
    return result.returncode == 0, time.perf_counter() - started, result.stdout + result.stderr


COOKIE: dict[str, str] = {}  # sign-ins are limited per address (5 a minute): one, kept


def phone(web_url: str, context: ssl.SSLContext, manager: Path) -> Call:
    """Pair (`booth web pair`) and sign in, the first time; read the dashboard and its JSON."""
    started = time.perf_counter()
    if COOKIE:
        try:
            pages = [
                request(web_url + path, context=context, cookie=COOKIE["cookie"])
                for path in ("/", "/data.json")
            ]
        except OSError as error:
            return False, time.perf_counter() - started, repr(error)
        good = all(page.status == 200 for page in pages)
        return good, time.perf_counter() - started, str([page.status for page in pages])
    paired = booth(manager, "web", "pair", "--role", "manager", "--as", "M1", "--json")
    if not paired[0]:
        return False, time.perf_counter() - started, paired[2]
    token = re.search(r"/pair/([A-Za-z0-9_-]+)", paired[2])
    if token is None:
        return False, time.perf_counter() - started, paired[2]
    try:
        signed = request(
            f"{web_url}/signin", "POST", context=context,
            body=f"token={token[1]}&badge=M1&pin=4321".encode(),
        )  # fmt: skip
        cookie = signed.headers["set-cookie"].split(";")[0].split("=", 1)[1]
        COOKIE["cookie"] = cookie
        page = request(web_url + "/", context=context, cookie=cookie)
    except (OSError, KeyError) as error:
        return False, time.perf_counter() - started, repr(error)
    return page.status == 200, time.perf_counter() - started, str(page.status)


def series(name: str, results: list[Call]) -> None:
    if not results:
        return
    times = sorted(t for _, t, _ in results)
    ok = sum(1 for good, _, _ in results if good)
    within = sum(1 for good, t, _ in results if good and t <= TARGET)
    p90 = times[max(0, int(len(times) * 0.9) - 1)]
    print(
        f"{name:<40} {ok}/{len(results)} succeeded ({100 * ok / len(results):.0f}%), "
        f"{within}/{len(results)} within {TARGET:.0f} s; "
        f"p50 {statistics.median(times):.3f} s, p90 {p90:.3f} s, max {times[-1]:.3f} s"
    )
    for good, _, out in results:
        if not good:
            print(f"  failed: {out[-400:]!r}")
            break


def rounds(
    calls: int, booth_dir: Path, manager: Path, url: str, booth_url: str, web: tuple[str, Any]
) -> dict[str, list[Call]]:
    out: dict[str, list[Call]] = {"booth-1 pulls from the manager": [], "the manager pulls": []}
    out["the phone: dashboard and its JSON"] = []
    for n in range(calls):
        out["booth-1 pulls from the manager"].append(
            booth(booth_dir, "sync", "now", "--peer", url, "--json")
        )
        if n % 5 == 0:
            out["the manager pulls"].append(
                booth(manager, "sync", "now", "--peer", booth_url, "--json")
            )
            out["the phone: dashboard and its JSON"].append(phone(web[0], web[1], manager))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--idle", type=int, default=2500)
    parser.add_argument("--baseline-calls", type=int, default=10)
    args = parser.parse_args()
    nofile = unit_nofile(UNIT)
    work = Path(tempfile.mkdtemp(prefix="booth-dos-web-"))
    flood: subprocess.Popen[str] | None = None
    try:
        hall = build_hall(work / "hall", ["booth-1"])
        manager, booth_dir = hall.stations["manager"], hall.stations["booth-1"]
        with Station(manager, environ=ENVIRON) as st:
            set_pin(st, "M1", "4321", "M1")
        port, booth_port = free_port(), free_port()
        serve = ("serve", "--no-discovery", "--interval", "3600")
        with ExitStack() as owners:
            owners.enter_context(
                owner_process(booth_dir, *serve, "--port", str(booth_port), nofile=nofile,
                              env=ENVIRON)
            )  # fmt: skip
            owners.enter_context(
                owner_process(manager, *serve, "--port", str(port), "--web", "127.0.0.1:0",
                              nofile=nofile, env=ENVIRON)
            )  # fmt: skip
            web_url = str(web_access.served_state(manager)["url"])
            context = ssl.create_default_context(cadata=(manager / "tls/web-ca.pem").read_text())
            url, booth_url = f"https://127.0.0.1:{port}", f"https://127.0.0.1:{booth_port}"
            web = (web_url, context)
            baseline = rounds(args.baseline_calls, booth_dir, manager, url, booth_url, web)
            started = time.monotonic()
            flood = subprocess.Popen(
                [
                    *(sys.executable, "-m", "tests.sync.flood", web_url.rsplit(":", 1)[1]),
                    *("--idle", str(args.idle), "--idle-sources", "250", "--no-connect-flood"),
                    *("--seconds", "900", "--max-connects", "10000000"),
                ],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            assert flood.stdin is not None and flood.stdout is not None
            ready = json.loads(flood.stdout.readline())  # every idle connection opened once
            opened = time.monotonic() - started
            attacked = rounds(args.calls, booth_dir, manager, url, booth_url, web)
            flood.stdin.write("quit\n")
            flood.stdin.flush()
            counts = json.loads(flood.stdout.readline() or "{}")
        print(
            f"Phone's port flooded on loopback: {args.idle} idle connections that never start "
            f"TLS (from 250 addresses); the owners at the unit's LimitNOFILE={nofile}; "
            "`booth sync now` and `booth web pair` as processes"
        )
        print(
            f"the neighbour opened {ready['held']} of {args.idle} in {opened:.1f} s, held "
            f"{counts.get('held', '?')} at the end; {counts.get('connects', '?')} connections "
            f"in all ({counts.get('reopened', '?')} reopened after the station ended them)"
        )
        for name in baseline:
            series(f"{name}, no flood", baseline[name])
            series(f"{name}, flooded", attacked[name])
            ratio = statistics.median(t for _, t, _ in attacked[name]) / statistics.median(
                t for _, t, _ in baseline[name]
            )
            print(f"  median flooded / no flood: {ratio:.2f}x")
    finally:
        if flood is not None:
            end(flood)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
