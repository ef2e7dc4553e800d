"""What a server on the hall's LAN does before and around its worker threads, shared by the
replication port (sync/server.py) and the manager's phone (web/server.py): the TLS handshakes of
accepted connections in one bounded, non-blocking pool with a cap per source address
(`Handshakes`), worker slots with a cap per key, a peer's certificate or a source address
(`Slots`), and log lines a flood cannot multiply (`LogThrottle`).

Standard library only: the web app imports this module, and nothing else of `sync`.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import ssl
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("booth.handshakes")

# Connections still in their TLS handshake: each holds a file descriptor and a place here, never
# a thread. Past the cap per source address that address's oldest goes; past the pool's cap, the
# oldest of the address holding the most.
MAX_HANDSHAKES = 256
MAX_HANDSHAKES_PER_SOURCE = 16
LOG_WINDOW = 10.0  # seconds: a kind of log line repeats at most LOG_BURST times in each
LOG_BURST = 5


class LogThrottle:
    """Repeated log lines, rate-limited: of each kind at most `burst` lines per `window`
    seconds, then one line saying how many more there were (a flood of strangers must not fill
    the disk: 2.27 MB of log in 45 s before this)."""

    def __init__(
        self, logger: logging.Logger, *, window: float = LOG_WINDOW, burst: int = LOG_BURST
    ):
        self.logger, self.window, self.burst = logger, window, burst
        self._lock = threading.Lock()
        self._kinds: dict[str, list[float]] = {}  # kind -> [window start, lines, left out]

    def log(self, level: int, kind: str, message: str, *args: Any, exc_info: Any = None) -> None:
        now = time.monotonic()
        with self._lock:
            state = self._kinds.setdefault(kind, [now, 0, 0])
            if now - state[0] >= self.window:
                if state[2]:
                    self.logger.log(
                        level,
                        "(%d more %r lines in the last %.0f s)",
                        state[2],
                        kind,
                        now - state[0],
                    )
                state[:] = [now, 0, 0]
            if state[1] >= self.burst:
                state[2] += 1
                return
            state[1] += 1
        self.logger.log(level, message, *args, exc_info=exc_info)


@dataclass(eq=False)
class _Handshake:
    tls: ssl.SSLSocket
    address: Any
    deadline: float
    heard: bool = False  # it sent something: a client's handshake, not an idle stranger


class Handshakes:
    """The TLS handshakes of accepted connections, on one thread of their own, none blocking:
    a stranger that connects and sends nothing (or a byte now and then) holds a file descriptor
    and a place in this bounded pool until its deadline, never a worker thread. `done` takes
    each connection whose handshake completed (a hall certificate verified); `refused` is told
    of each that failed, timed out or was pushed out."""

    def __init__(
        self,
        context: ssl.SSLContext,
        *,
        timeout: float,
        done: Callable[[ssl.SSLSocket, Any], None],
        refused: Callable[[Any, str], None],
        limit: int = MAX_HANDSHAKES,
        per_source: int = MAX_HANDSHAKES_PER_SOURCE,
        throttle: LogThrottle | None = None,
    ) -> None:
        self.throttle = throttle or LogThrottle(log)
        self.context, self.timeout = context, timeout
        self.done, self.refused = done, refused
        self.limit, self.per_source = limit, per_source
        self._selector = selectors.DefaultSelector()
        self._wake_in, self._wake_out = socket.socketpair()
        self._wake_in.setblocking(False)
        self._wake_out.setblocking(False)
        self._selector.register(self._wake_in, selectors.EVENT_READ, None)
        self._incoming: deque[tuple[socket.socket, Any]] = deque()
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # the accepting thread waits on it
        self._pending: dict[ssl.SSLSocket, _Handshake] = {}  # oldest first
        self._sources: Counter[str] = Counter()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="booth-handshakes", daemon=True)
        self._thread.start()

    def pending(self) -> Counter[str]:
        """How many handshakes are in progress, per source address (a snapshot)."""
        return Counter(self._sources)

    def add(self, raw: socket.socket, address: Any) -> None:
        """From the accepting thread: a new connection, its handshake to be done here. The
        accepting thread can outrun this pool's (a flood held 1024 descriptors in this queue):
        with `limit` waiting it waits for room, and new connections wait in the kernel's
        backlog, holding no descriptor of this process."""
        with self._room:
            while len(self._incoming) >= self.limit and not self._stop:
                self._wake()
                self._room.wait(0.5)
            if self._stop:
                raw.close()
                return
            self._incoming.append((raw, address))
        self._wake()

    def stop(self) -> None:
        with self._lock:
            self._stop = True
            self._room.notify_all()
        self._wake()
        self._thread.join(timeout=5)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full: it is awake already
            self._wake_out.send(b"\0")

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._stop:
                        break
                    incoming = list(self._incoming)
                    self._incoming.clear()
                    self._room.notify_all()
                for raw, address in incoming:
                    self._start(raw, address)
                now = time.monotonic()
                for item in [h for h in self._pending.values() if h.deadline <= now]:
                    self._end(item, f"no TLS handshake within {self.timeout}s (timed out)")
                oldest = next(iter(self._pending.values()), None)
                wait = 0.5 if oldest is None else max(0.0, min(0.5, oldest.deadline - now))
                for key, _ in self._selector.select(wait):
                    if key.data is None:
                        with contextlib.suppress(OSError):
                            while self._wake_in.recv(4096):
                                pass
                    else:
                        key.data.heard = True
                        self._step(key.data)
        finally:
            for item in list(self._pending.values()):
                self._close(item)
            self._selector.close()
            self._wake_in.close()
            self._wake_out.close()

    def _start(self, raw: socket.socket, address: Any) -> None:
        source = str(address[0])
        if self._sources[source] >= self.per_source:
            first = next(h for h in self._pending.values() if h.address[0] == source)
            self._end(first, f"more than {self.per_source} handshakes at once from {source}")
        if len(self._pending) >= self.limit:
            self._end(self._victim(), f"more than {self.limit} handshakes at once")
        heard = False
        try:
            raw.setblocking(False)
            with contextlib.suppress(BlockingIOError):  # nothing sent yet
                heard = bool(raw.recv(1, socket.MSG_PEEK))  # its hello, there already
            tls = self.context.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
        except (OSError, ValueError) as exc:
            raw.close()
            self.refused(address, str(exc) or type(exc).__name__)
            return
        item = _Handshake(tls, address, time.monotonic() + self.timeout, heard)
        self._pending[tls] = item
        self._sources[source] += 1
        self._selector.register(tls, selectors.EVENT_READ, item)
        self._step(item)

    def _victim(self) -> _Handshake:
        """Which handshake goes when the pool is full: one of the addresses holding the most,
        its oldest that never sent a byte (an idle stranger), else its oldest. A flood that
        reconnects each one ended at once then pushes out only its own: a station's or a
        phone's handshake under way has sent its hello."""
        most = max(self._sources.values())
        busiest = [h for h in self._pending.values() if self._sources[str(h.address[0])] == most]
        return next((h for h in busiest if not h.heard), busiest[0])

    def _step(self, item: _Handshake) -> None:
        try:
            item.tls.do_handshake()
        except ssl.SSLWantReadError:
            self._selector.modify(item.tls, selectors.EVENT_READ, item)
            return
        except ssl.SSLWantWriteError:
            self._selector.modify(item.tls, selectors.EVENT_WRITE, item)
            return
        except (ssl.SSLError, OSError) as exc:
            self._end(item, str(exc) or type(exc).__name__)
            return
        self._forget(item)
        try:
            item.tls.setblocking(True)
            self.done(item.tls, item.address)
        except Exception:  # the connection is lost, the pool goes on
            self.throttle.log(
                logging.WARNING, "handoff", "a connection could not be served", exc_info=True
            )
            with contextlib.suppress(OSError):
                item.tls.close()

    def _forget(self, item: _Handshake) -> None:
        if self._pending.pop(item.tls, None) is not None:
            source = str(item.address[0])
            self._sources[source] -= 1
            if self._sources[source] <= 0:
                del self._sources[source]
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._selector.unregister(item.tls)

    def _close(self, item: _Handshake) -> None:
        self._forget(item)
        with contextlib.suppress(OSError):
            # the plain socket's shutdown: no TLS alert is owed to a stranger
            socket.socket.shutdown(item.tls, socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            item.tls.close()

    def _end(self, item: _Handshake, reason: str) -> None:
        self._close(item)
        self.refused(item.address, reason)


class Slots:
    """Worker slots: at most `limit` connections served at once, and at most `per_key` of them
    for one key (a peer certificate's fingerprint, a source address), so that one key cannot
    take every slot. `take` answers why not, or None when the slot is taken."""

    def __init__(self, limit: int, per_key: int) -> None:
        if limit < 1 or per_key < 1:
            raise ValueError(
                f"slots need a limit and a per-key cap of 1 or more: {limit}, {per_key}"
            )
        self.limit, self.per_key = limit, per_key
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()

    def take(self, key: str) -> str | None:
        with self._lock:
            if self._held[key] >= self.per_key:
                return f"{key} holds {self._held[key]} connections already (at most {self.per_key})"
            if self._held.total() >= self.limit:
                return f"every one of the {self.limit} connection slots is taken"
            self._held[key] += 1
            return None

    def give(self, key: str) -> None:
        with self._lock:
            self._held[key] -= 1
            if self._held[key] <= 0:
                del self._held[key]

    def held(self) -> Counter[str]:
        """Slots taken, per key (a snapshot)."""
        with self._lock:
            return Counter(self._held)


def request_arrives(conn: socket.socket, rfile: Any, idle: float) -> bool:
    """Whether the first byte of a connection's next request arrives within `idle` seconds (a
    byte buffered already counts), `rfile` being the connection's buffered reader. Only this
    wait is bounded here: the caller sets the socket's timeout for the request itself."""
    conn.settimeout(idle)
    try:
        return bool(rfile.peek(1))
    except (TimeoutError, OSError):
        return False
