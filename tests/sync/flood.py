"""A hostile LAN neighbour, as its own process: idle TCP connections that never start TLS, and
a connect flood from one address, against a station's replication port on 127.0.0.1.

    python -m tests.sync.flood PORT [--idle 200] [--idle-sources 50] [--flood-source ADDR]
                                    [--seconds 120] [--max-connects 200000]

The idle connections come from 127.0.1.1 ... 127.0.1.N (`--idle-sources`), and each one the
station closes is opened again at once: the station always sees `--idle` of them. The flood
connects from `--flood-source` (127.0.0.9) as fast as it can, keeps its newest 64 connections
open, and resets the rest. It prints {"ready": ...} once every idle connection is open, and
{"connects": N, "reopened": M, "flooded": F} when told `quit` on stdin, at `--seconds`, or at
`--max-connects` connections in all (bounded in count and time).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import selectors
import socket
import struct
import sys
import threading
import time
from collections import deque

RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close with RST (no TIME_WAIT to run out of)


def connect(port: int, source: str) -> socket.socket | None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET)
        sock.bind((source, 0))
        sock.settimeout(2.0)
        sock.connect(("127.0.0.1", port))
        sock.setblocking(False)
    except OSError:
        sock.close()
        return None
    return sock


class Flood:
    def __init__(self, port: int, *, idle: int, sources: int, flood_source: str, limit: int):
        self.port, self.idle, self.flood_source, self.limit = port, idle, flood_source, limit
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
        for n in range(self.idle):
            sock = connect(self.port, self.sources[n % len(self.sources)])
            if sock is not None and self.count():
                selector.register(sock, selectors.EVENT_READ, n)
        ready.set()
        while not self.stop.is_set():
            for key, _ in selector.select(0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                with contextlib.suppress(OSError):
                    if sock.recv(4096):
                        continue  # (a TLS alert, say): still open
                selector.unregister(sock)
                sock.close()
                again = connect(self.port, self.sources[key.data % len(self.sources)])
                if again is not None and self.count():
                    self.reopened += 1
                    selector.register(again, selectors.EVENT_READ, key.data)
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
    args = parser.parse_args(argv)
    flood = Flood(
        args.port,
        idle=args.idle,
        sources=args.idle_sources,
        flood_source=args.flood_source,
        limit=args.max_connects,
    )
    ready = threading.Event()
    threads = [
        threading.Thread(target=flood.hold_idle, args=(ready,), daemon=True),
        threading.Thread(target=flood.flood, daemon=True),
    ]
    threads[0].start()
    ready.wait()
    threads[1].start()
    print(json.dumps({"ready": args.idle}), flush=True)
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
            {"connects": flood.connects, "reopened": flood.reopened, "flooded": flood.flooded}
        ),
        flush=True,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
