"""A LAN of Linux network namespaces for the sync tests (root only).

    bridge namespace  {tag}-br : br0, br1 (bridges), p0..pN-1 (one veth end per station)
    station namespace {tag}-i  : eth0 (the other end) 10.213.0.(i+1)/24, lo, 224.0.0.0/4 via eth0

Everything is created inside the namespaces (`ip -n`): the host's interfaces, addresses and
routes are never touched, and no address outside 10.213.0.0/24 is ever used. Partitions are
made on the bridge side only, so a station's own interface, address and routes stay as they are
(as when a switch port or a cable fails):

    cut(i) / mend(i)      take station i's port down / up
    split([0, 1], [2, 3]) move the ports of each group to a bridge of its own
    heal()                every port up, on br0

A namespace's name carries the pid of the process that made it: `sweep()` removes those left
behind by a test process that died (and the processes still inside them).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

PREFIX = "booth-test"
SUBNET = "10.213.0"
PORT = 8701  # the same in every namespace: each has its own network stack
ROOT = Path(__file__).resolve().parents[2]


def ip(*args: str, check: bool = True) -> str:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=15)
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def namespaces() -> list[str]:
    return [line.split()[0] for line in ip("netns", "list").splitlines() if line.strip()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_inside(namespace: str) -> None:
    """Kill what still runs in one of our namespaces (our station processes), by pid."""
    for _ in range(50):
        pids = [int(p) for p in ip("netns", "pids", namespace, check=False).split()]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def _delete(namespace: str) -> None:
    _kill_inside(namespace)
    ip("netns", "del", namespace, check=False)


def sweep() -> list[str]:
    """Delete the namespaces of earlier test processes that died without cleaning up. Only
    names `booth-test-<pid>-...` whose pid is gone: a run in progress is never disturbed."""
    removed = []
    for name in namespaces():
        parts = name.split("-")
        ours = name.startswith(PREFIX + "-") and len(parts) >= 4 and parts[2].isdigit()
        if ours and not _alive(int(parts[2])):
            _delete(name)
            removed.append(name)
    return removed


class Lan:
    def __init__(self, count: int) -> None:
        self.tag = f"{PREFIX}-{os.getpid()}-{secrets.token_hex(2)}"
        self.bridge = f"{self.tag}-br"
        self.stations = [f"{self.tag}-{i}" for i in range(count)]
        self.addresses = [f"{SUBNET}.{i + 1}" for i in range(count)]
        self.processes: list[NsStation] = []
        self._made: list[str] = []
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _netns(self, name: str) -> None:
        ip("netns", "add", name)
        self._made.append(name)

    def _build(self) -> None:
        self._netns(self.bridge)
        for bridge in ("br0", "br1"):
            ip("-n", self.bridge, "link", "add", bridge, "type", "bridge", "mcast_snooping", "0")
            ip("-n", self.bridge, "link", "set", bridge, "up")
        for i, (namespace, address) in enumerate(zip(self.stations, self.addresses, strict=True)):
            self._netns(namespace)
            # made in the bridge namespace, its peer straight in the station's: never the host's
            ip(
                "-n",
                self.bridge,
                "link",
                "add",
                f"p{i}",
                "type",
                "veth",
                "peer",
                "name",
                "eth0",
                "netns",
                namespace,
            )
            ip("-n", self.bridge, "link", "set", f"p{i}", "master", "br0", "up")
            ip("-n", namespace, "link", "set", "lo", "up")
            ip("-n", namespace, "addr", "add", f"{address}/24", "dev", "eth0")
            ip("-n", namespace, "link", "set", "eth0", "up")
            # mDNS: multicast leaves by the LAN interface (the namespace has no default route)
            ip("-n", namespace, "route", "add", "224.0.0.0/4", "dev", "eth0")

    # --- partitions ---------------------------------------------------------------------------

    def cut(self, *indexes: int) -> None:
        for i in indexes:
            ip("-n", self.bridge, "link", "set", f"p{i}", "down")

    def mend(self, *indexes: int) -> None:
        for i in indexes:
            ip("-n", self.bridge, "link", "set", f"p{i}", "up")

    def split(self, *groups: Sequence[int]) -> None:
        if len(groups) > 2:
            raise ValueError("two bridges: at most two groups")
        for bridge, group in zip(("br0", "br1"), groups, strict=False):
            for i in group:
                ip("-n", self.bridge, "link", "set", f"p{i}", "master", bridge)

    def heal(self) -> None:
        for i in range(len(self.stations)):
            ip("-n", self.bridge, "link", "set", f"p{i}", "master", "br0", "up")

    # --- stations -----------------------------------------------------------------------------

    def start(self, index: int, directory: Path, log: Path, *extra: str) -> NsStation:
        station = NsStation(
            self.stations[index], directory, log, "--address", self.addresses[index], *extra
        )
        self.processes.append(station)
        return station

    def close(self) -> None:
        """Stop the stations (quit, then kill by pid), then delete every namespace made."""
        for station in self.processes:
            station.quit()
        for station in self.processes:
            station.wait()
        for name in reversed(self._made):
            _delete(name)
        self._made.clear()


class NsStation:
    """tests/sync/station_proc.py run in a namespace: commands on stdin, answers read by a
    thread (so a dead or hung station fails the test instead of blocking it), stderr to a log
    file (so a chatty station never blocks on a full pipe)."""

    def __init__(self, namespace: str, directory: Path, log: Path, *extra: str) -> None:
        self.namespace = namespace
        self.directory = directory
        self.log = log
        self._stderr: IO[str] = log.open("w")
        self._lock = threading.Lock()
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.process = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                namespace,
                sys.executable,
                "-m",
                "tests.sync.station_proc",
                str(directory),
                str(PORT),
                *extra,
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._reader = threading.Thread(target=self._read_lines, daemon=True)
        self._reader.start()
        self.ready: Any = None

    def _read_lines(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def read(self, timeout: float = 30.0) -> Any:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"{self.namespace}: no answer in {timeout}s") from None
        if line is None:
            self._lines.put(None)
            raise AssertionError(f"{self.namespace} ended: {self.log.read_text()[-3000:]}")
        return json.loads(line)

    def wait_ready(self, timeout: float = 30.0) -> Any:
        self.ready = self.read(timeout)
        return self.ready

    def ask(self, command: str, timeout: float = 30.0) -> Any:
        with self._lock:
            assert self.process.stdin is not None
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
            return self.read(timeout)

    def quit(self) -> None:
        if self.process.poll() is None and self.process.stdin is not None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.close()
            except (BrokenPipeError, OSError):
                pass

    def wait(self, timeout: float = 10.0) -> None:
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(timeout=5)
        if self.process.stdout is not None and not self._reader.is_alive():
            self.process.stdout.close()
        self._stderr.close()
