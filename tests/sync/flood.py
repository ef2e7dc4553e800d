"""A hostile LAN neighbour, as its own process: idle TCP connections that never start TLS, and
a connect flood from one address, against a station's replication port (or the manager's
phone's port) on 127.0.0.1.

    python -m tests.sync.flood PORT [--idle 200] [--idle-sources 50] [--flood-source ADDR]
                                    [--seconds 120] [--max-connects 200000]
                                    [--no-connect-flood] [--certificate STATION_DIR]

The idle connections come from 127.0.1.1 ... 127.0.1.N (`--idle-sources`), and each one the
station closes is opened again at once: the station always sees `--idle` of them. The flood
connects from `--flood-source` (127.0.0.9) as fast as it can, keeps its newest 64 connections
open, and resets the rest. It prints {"ready": ...} once every idle connection is open, and
{"connects": N, "reopened": M, "flooded": F} when told `quit` on stdin, at `--seconds`, or at
`--max-connects` connections in all (bounded in count and time), with "held": how many idle
connections were open at that moment.

`--certificate STATION_DIR`: a stolen station certificate. Each idle connection then completes
its TLS handshake with that station's certificate and key (the hall's CA trusts them) and sends
nothing after it. `--no-connect-flood`: the idle connections only.

Also `owner_process`: a station's owner (`booth serve ...`) as a process of its own, with its
file descriptors limited as a systemd unit limits them (for the floods of tests/sync/test_dos.py
and bench/dos_web.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import signal
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close with RST (no TIME_WAIT to run out of)


def connect(port: int, source: str, context: ssl.SSLContext | None = None) -> socket.socket | None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET)
        sock.bind((source, 0))
        sock.settimeout(1.0)  # a station's backlog full: try again later, not wait
        sock.connect(("127.0.0.1", port))
        if context is not None:  # a certificate the hall trusts: the handshake completes
            sock = context.wrap_socket(sock)
        sock.setblocking(False)
    except OSError:
        sock.close()
        return None
    return sock


class Flood:
    def __init__(
        self,
        port: int,
        *,
        idle: int,
        sources: int,
        flood_source: str,
        limit: int,
        context: ssl.SSLContext | None = None,
    ):
        self.port, self.idle, self.flood_source, self.limit = port, idle, flood_source, limit
        self.context = context
        self.held = 0
        self.cycled = threading.Event()  # the station has ended as many as are held
        self.sources = [f"127.0.1.{n + 1}" for n in range(sources)]
        self.connects = self.reopened = self.flooded = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()

    def count(self) -> bool:
        """One connection more; False once the bound is reached."""
        with self.lock:
            self.connects += 1
            if self.connects >= self.limit:
                self.stop.set()
            return not self.stop.is_set()

    def hold_idle(self, ready: threading.Event) -> None:
        selector = selectors.DefaultSelector()
        missing: list[int] = []  # connects that failed (the station's backlog full): again later
        for n in range(self.idle):
            sock = connect(self.port, self.sources[n % len(self.sources)], self.context)
            if sock is None:
                missing.append(n)
            elif self.count():
                selector.register(sock, selectors.EVENT_READ, n)
        self.held = len(selector.get_map())
        ready.set()
        while not self.stop.is_set():
            for n in missing[:]:
                again = connect(self.port, self.sources[n % len(self.sources)], self.context)
                if again is None:
                    break
                missing.remove(n)
                if self.count():
                    self.reopened += 1
                    selector.register(again, selectors.EVENT_READ, n)
            for key, _ in selector.select(0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    if sock.recv(4096):
                        continue  # (a TLS alert, say): still open
                except ssl.SSLWantReadError:
                    continue  # TLS records with no data (a session ticket): still open
                except OSError:
                    pass
                selector.unregister(sock)
                sock.close()
                again = connect(self.port, self.sources[key.data % len(self.sources)], self.context)
                if again is None:
                    missing.append(key.data)
                elif self.count():
                    self.reopened += 1
                    selector.register(again, selectors.EVENT_READ, key.data)
            self.held = len(selector.get_map())
            if self.reopened >= self.idle:
                self.cycled.set()
        for key in list(selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        selector.close()

    def flood(self) -> None:
        kept: deque[socket.socket] = deque()
        while not self.stop.is_set():
            sock = connect(self.port, self.flood_source)
            if sock is None:
                time.sleep(0.001)
                continue
            self.flooded += 1
            kept.append(sock)
            if len(kept) > 64:
                kept.popleft().close()
            if not self.count():
                break
        for sock in kept:
            sock.close()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--idle-sources", type=int, default=50)
    parser.add_argument("--flood-source", default="127.0.0.9")
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--max-connects", type=int, default=200_000)
    parser.add_argument("--no-connect-flood", action="store_true")
    parser.add_argument("--certificate", type=Path, help="a station directory: its tls/")
    parser.add_argument(
        "--say-cycled",
        action="store_true",
        help='also print {"cycled": N} once the station has ended --idle of them (and each was '
        "opened again): the flood holds what the station lets it hold",
    )
    args = parser.parse_args(argv)
    context = None
    if args.certificate is not None:
        from sync.client import client_context

        context = client_context(args.certificate)
    flood = Flood(
        args.port,
        idle=args.idle,
        sources=args.idle_sources,
        flood_source=args.flood_source,
        limit=args.max_connects,
        context=context,
    )
    ready = threading.Event()
    threads = [threading.Thread(target=flood.hold_idle, args=(ready,), daemon=True)]
    if not args.no_connect_flood:
        threads.append(threading.Thread(target=flood.flood, daemon=True))
    threads[0].start()
    ready.wait()
    for thread in threads[1:]:
        thread.start()
    print(json.dumps({"ready": args.idle, "held": flood.held}), flush=True)
    if args.say_cycled:
        while not flood.cycled.wait(0.5) and not flood.stop.is_set():
            pass
        print(json.dumps({"cycled": flood.reopened, "held": flood.held}), flush=True)
    timer = threading.Timer(args.seconds, flood.stop.set)
    timer.daemon = True
    timer.start()
    waiter = threading.Thread(target=lambda: (sys.stdin.readline(), flood.stop.set()), daemon=True)
    waiter.start()
    flood.stop.wait()
    for thread in threads:
        thread.join(timeout=10)
    print(
        json.dumps(
            {
                "connects": flood.connects,
                "reopened": flood.reopened,
                "flooded": flood.flooded,
                "held": flood.held,
            }
        ),
        flush=True,
    )


def unit_nofile(unit: Path) -> int:
    """The LimitNOFILE= of a systemd unit (its soft limit: the first of SOFT:HARD)."""
    for line in unit.read_text().splitlines():
        if line.startswith("LimitNOFILE="):
            return int(line.split("=", 1)[1].split(":")[0])
    raise ValueError(f"{unit} sets no LimitNOFILE=")


@contextlib.contextmanager
def owner_process(
    hall: Path, *args: str, nofile: int, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """`booth --hall HALL ARGS` (an owner: `serve ...`) as a process of its own, its file
    descriptors limited to `nofile` (soft and hard, as systemd's LimitNOFILE= sets them), until
    the block ends; its output goes to HALL.owner.log. Yields once it answers on its control
    socket."""
    from pos.cli.client import owner_answers

    booth = str(Path(sys.executable).with_name("booth"))
    log = hall.with_name(f"{hall.name}.owner.log")
    with log.open("wb") as out:
        process = subprocess.Popen(
            # util-linux's prlimit sets the limit, then runs booth in its place (the same pid)
            ["prlimit", f"--nofile={nofile}:{nofile}", booth, "--hall", str(hall), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "KIVY_NO_ARGS": "1", **(env or {})},
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while not owner_answers(hall):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the owner did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
