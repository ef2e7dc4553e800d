"""The replication server: the CouchDB protocol's subset for immutable documents, over mutual
TLS with the hall's certificates. The HTTP side only: the answers are built by `sync.protocol`
from what `pos.ledger.replication` reads.

Reads use a connection per request thread; writes (`_bulk_docs`, `_local`) go through the
station's one Ledger under a lock, by the same apply path as every other event.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import selectors
import socket
import socketserver
import sqlite3
import ssl
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pos.errors import BoothError
from pos.ledger import Event, Ledger, heads, replication
from pos.ledger.x509 import CA_FILE, CERT_FILE, KEY_FILE, subject
from pos.services.station import LEDGER_FILE, TLS_DIR, Station
from sync import docs, protocol
from sync.errors import BadDocument

log = logging.getLogger("booth.sync.server")

DB_NAME = protocol.DB_NAME
MAX_BODY = 32 * 1024 * 1024
MAX_BATCH = protocol.MAX_BATCH
SOCKET_TIMEOUT = 30.0  # a read or write that waits longer ends the connection
REQUEST_TIMEOUT = 120.0  # one request's headers and body must arrive within this
# A hall's station completes its handshake in milliseconds; anyone slower holds a connection
# slot without having shown a certificate, so is cut sooner.
HANDSHAKE_TIMEOUT = 10.0
MAX_CONNECTIONS = 64  # worker threads: connections that showed a hall certificate, only
# Connections still in their TLS handshake: each holds a file descriptor and a place here, never
# a thread. Past the cap per source address that address's oldest goes; past the pool's cap, the
# oldest of the address holding the most.
MAX_HANDSHAKES = 256
MAX_HANDSHAKES_PER_SOURCE = 16
LONGPOLL_MAX = 60.0
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
        self._pending: dict[ssl.SSLSocket, _Handshake] = {}  # oldest first
        self._sources: Counter[str] = Counter()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="booth-handshakes", daemon=True)
        self._thread.start()

    def pending(self) -> Counter[str]:
        """How many handshakes are in progress, per source address (a snapshot)."""
        return Counter(self._sources)

    def add(self, raw: socket.socket, address: Any) -> None:
        """From the accepting thread: a new connection, its handshake to be done here."""
        with self._lock:
            if self._stop:
                raw.close()
                return
            self._incoming.append((raw, address))
        self._wake()

    def stop(self) -> None:
        with self._lock:
            self._stop = True
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
            busiest = self._sources.most_common(1)[0][0]
            first = next(h for h in self._pending.values() if h.address[0] == busiest)
            self._end(first, f"more than {self.limit} handshakes at once")
        try:
            raw.setblocking(False)
            tls = self.context.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
        except (OSError, ValueError) as exc:
            raw.close()
            self.refused(address, str(exc) or type(exc).__name__)
            return
        item = _Handshake(tls, address, time.monotonic() + self.timeout)
        self._pending[tls] = item
        self._sources[source] += 1
        self._selector.register(tls, selectors.EVENT_READ, item)
        self._step(item)

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


def server_context(station_dir: Path) -> ssl.SSLContext:
    tls = station_dir / TLS_DIR
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(tls / CERT_FILE, tls / KEY_FILE)
    context.load_verify_locations(tls / CA_FILE)
    context.verify_mode = ssl.CERT_REQUIRED
    # No TLS 1.3 session tickets: our clients never resume, and each ticket (it carries the
    # client certificate) costs ~1.2 KB on the wire of every idle round.
    context.num_tickets = 0
    return context


HttpError = protocol.ProtocolError


class ReplicationServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # PouchDB fires ~50 parallel GETs a batch

    def __init__(
        self,
        address: tuple[str, int],
        *,
        station_dir: Path,
        ledger: Ledger,
        write_lock: threading.Lock,
        hall: str,
        station: str,
        tls: bool = True,
        socket_timeout: float = SOCKET_TIMEOUT,
        request_timeout: float = REQUEST_TIMEOUT,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        max_handshakes: int = MAX_HANDSHAKES,
        max_handshakes_per_source: int = MAX_HANDSHAKES_PER_SOURCE,
        station_view: Station | None = None,
    ) -> None:
        self.station_view = station_view  # for requests that act as this station (release)
        self.station_dir = station_dir
        self.ledger = ledger
        self.write_lock = write_lock
        self.hall = hall
        self.station = station
        self.uuid = hashlib.sha256(f"{hall}:{station}".encode()).hexdigest()[:32]
        self.socket_timeout = socket_timeout
        self.request_timeout = request_timeout
        self.handshake_timeout = min(handshake_timeout, request_timeout)
        self.slots = threading.BoundedSemaphore(max_connections)
        self.local = threading.local()
        self.refused: deque[str] = deque(maxlen=1000)  # the latest: a flood cannot grow it
        self.throttle = LogThrottle(log)  # what strangers cause is logged a few times a window
        # Connections reading a handshake or a request, and when they must be done: a peer that
        # trickles bytes never trips the per-read timeout, so serve_forever's loop cuts it.
        self._deadlines: dict[socket.socket, float] = {}
        self._deadlines_lock = threading.Lock()
        super().__init__(address, ReplicationHandler)
        # Strangers never reach a worker thread: the handshake pool takes every connection
        # first, and only one that showed a hall certificate gets one of the slots.
        self.handshakes: Handshakes | None = None
        if tls:
            self.handshakes = Handshakes(
                server_context(station_dir),
                timeout=min(self.handshake_timeout, socket_timeout),
                done=self._authenticated,
                refused=self._refused_handshake,
                limit=max_handshakes,
                per_source=max_handshakes_per_source,
                throttle=self.throttle,
            )

    def set_deadline(self, conn: socket.socket, seconds: float | None) -> None:
        with self._deadlines_lock:
            if seconds is None:
                self._deadlines.pop(conn, None)
            else:
                self._deadlines[conn] = time.monotonic() + seconds

    def service_actions(self) -> None:
        """Called by serve_forever every poll interval: end connections past their deadline."""
        now = time.monotonic()
        with self._deadlines_lock:
            late = [conn for conn, deadline in self._deadlines.items() if deadline < now]
            for conn in late:
                del self._deadlines[conn]
        for conn in late:
            self.throttle.log(
                logging.WARNING,
                "cut",
                "cut a connection: no complete request in %ss",
                self.request_timeout,
            )
            # the plain socket's shutdown (not SSLSocket's): the reading thread sees EOF
            with contextlib.suppress(OSError):
                socket.socket.shutdown(conn, socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        self.throttle.log(
            logging.INFO,
            "error",
            "connection from %s ended with an error",
            client_address,
            exc_info=True,
        )

    def process_request(self, request: Any, client_address: Any) -> None:
        if self.handshakes is not None:
            self.handshakes.add(request, client_address)  # its handshake first, off this thread
        else:
            self._authenticated(request, client_address)

    def _authenticated(self, request: Any, client_address: Any) -> None:
        """A connection that may be served (its hall certificate verified): a worker thread,
        if one of the slots is free."""
        if not self.slots.acquire(blocking=False):
            self.throttle.log(
                logging.WARNING, "busy", "refused %s: too many connections", client_address
            )
            self.shutdown_request(request)
            return
        try:
            socketserver.ThreadingMixIn.process_request(self, request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def _refused_handshake(self, client_address: Any, reason: str) -> None:
        self.refused.append(f"{client_address[0]}: {reason}")
        self.throttle.log(
            logging.WARNING,
            "handshake",
            "refused %s: TLS handshake failed: %s",
            client_address[0],
            reason,
        )

    def server_close(self) -> None:
        if self.handshakes is not None:
            self.handshakes.stop()
        super().server_close()

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.set_deadline(request, None)
            self.slots.release()

    def reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self.local, "conn", None)
        if conn is None:
            conn = replication.open_reader(self.station_dir / LEDGER_FILE)
            self.local.conn = conn
        return conn


@dataclass(frozen=True)
class RawJSON:
    """An answer already encoded as JSON text."""

    text: str


class ReplicationHandler(BaseHTTPRequestHandler):
    server: ReplicationServer
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY: headers and body are two writes; with Nagle the body waits for the client's
    # delayed ACK (40 ms on Linux) on every response
    disable_nagle_algorithm = True
    timeout = None  # the server's socket_timeout, set on the socket in setup()
    _body_pending = False  # a body announced and not read: the connection cannot be reused

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.client_address[0], *args)

    # --- plumbing -----------------------------------------------------------------------------

    def setup(self) -> None:
        # The TLS handshake is done (sync.server.Handshakes): a hall certificate was shown.
        self.request.settimeout(self.server.socket_timeout)
        super().setup()
        self.request.settimeout(self.server.socket_timeout)  # StreamRequestHandler keeps it

    def handle_one_request(self) -> None:
        self.server.set_deadline(self.request, self.server.request_timeout)
        self._body_pending = False
        super().handle_one_request()

    def _peer(self) -> str:
        if not isinstance(self.connection, ssl.SSLSocket):
            return "loopback"
        der = self.connection.getpeercert(binary_form=True)
        if der is None:
            raise HttpError(HTTPStatus.UNAUTHORIZED, "unauthorized", "a hall certificate is needed")
        station, hall = subject(ssl.DER_cert_to_PEM_cert(der).encode())
        if hall != self.server.hall:
            self.server.refused.append(f"{station} of hall {hall}")
            raise HttpError(HTTPStatus.FORBIDDEN, "forbidden", f"hall {hall} is not this hall")
        return station

    def _body(self) -> Any:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise HttpError(HTTPStatus.LENGTH_REQUIRED, "bad_request", "Content-Length needed")
        size = int(length)
        if size > MAX_BODY:
            raise HttpError(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                "too_large",
                f"a body of {size} bytes is above {MAX_BODY}",
            )
        raw = self.rfile.read(size)
        if len(raw) < size:
            raise ConnectionAbortedError("the body ended early")
        self._body_pending = False
        self.server.set_deadline(self.request, None)
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
            raise HttpError(
                HTTPStatus.BAD_REQUEST, "bad_request", f"invalid JSON: {reason}"
            ) from None

    def _send(self, status: HTTPStatus, payload: Any) -> None:
        if isinstance(payload, RawJSON):
            data = payload.text.encode()
        else:
            data = json.dumps(payload, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "must-revalidate")
        if self._body_pending or self.headers.get("Connection", "").lower() == "close":
            # an unread body would be parsed as the next request: end the connection instead
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def _route(self, method: str) -> None:
        length = self.headers.get("Content-Length", "0")
        self._body_pending = length != "0" or "Transfer-Encoding" in self.headers
        if not self._body_pending:
            self.server.set_deadline(self.request, None)
        try:
            self._peer()
            parts = [unquote(part) for part in urlsplit(self.path).path.split("/") if part]
            query = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
            handler = self._dispatch(method, parts)
            status, payload = handler(parts, query)
            self._send(status, payload)
        except HttpError as exc:
            self._send(exc.status, {"error": exc.error, "reason": exc.reason})
        except BadDocument as exc:
            self._send(HTTPStatus.BAD_REQUEST, {"error": "bad_request", "reason": exc.message})
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            # a value no endpoint expected (a seq beyond SQLite's integers, keys that are not
            # JSON...): an answer, not a dropped connection
            log.info("bad request from %s: %r", self.client_address[0], exc)
            reason = f"malformed request: {type(exc).__name__}: {str(exc)[:200]}"
            self._send(HTTPStatus.BAD_REQUEST, {"error": "bad_request", "reason": reason})
        except BoothError as exc:
            log.warning("request from %s failed: %s", self.client_address[0], exc.message)
            self._send(
                HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal", "reason": exc.message}
            )

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def do_PUT(self) -> None:
        self._route("PUT")

    def do_HEAD(self) -> None:
        self._route("GET")

    def do_DELETE(self) -> None:
        self._route("DELETE")

    def _dispatch(
        self, method: str, parts: list[str]
    ) -> Callable[[list[str], dict[str, str]], tuple[HTTPStatus, Any]]:
        if not parts:
            return self._root
        if parts == ["_booth", "release"] and method == "POST":
            return self._release
        if parts[0] != DB_NAME:
            raise HttpError(HTTPStatus.NOT_FOUND, "not_found", "Database does not exist.")
        routes: dict[tuple[str, str], Callable[[list[str], dict[str, str]], tuple[HTTPStatus, Any]]]
        routes = {
            ("GET", ""): self._info,
            ("PUT", ""): self._info,
            ("GET", "_changes"): self._changes,
            ("POST", "_changes"): self._changes,
            ("POST", "_revs_diff"): self._revs_diff,
            ("POST", "_bulk_get"): self._bulk_get,
            ("POST", "_all_docs"): self._all_docs,
            ("GET", "_all_docs"): self._all_docs,
            ("POST", "_bulk_docs"): self._bulk_docs,
            ("POST", "_ensure_full_commit"): self._commit,
        }
        key = parts[1] if len(parts) > 1 else ""
        if key == "_local" and len(parts) == 3:
            return {"GET": self._local_get, "PUT": self._local_put, "DELETE": self._local_put}.get(
                method, self._not_allowed
            )
        if (method, key) in routes:
            return routes[(method, key)]
        if method == "GET" and len(parts) == 2 and not key.startswith("_"):
            return self._doc
        raise HttpError(HTTPStatus.NOT_FOUND, "not_found", f"{method} {'/'.join(parts)}")

    def _not_allowed(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed", "not supported")

    # --- endpoints ----------------------------------------------------------------------------

    def _held(self, origin: str, seq: int) -> Event | None:
        return replication.event(self.server.reader(), origin, seq)

    def _root(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        return HTTPStatus.OK, protocol.root(
            uuid=self.server.uuid,
            hall=self.server.hall,
            station=self.server.station,
            heads=heads.high_water_marks(self.server.reader()),
        )

    def _update_seq(self) -> int:
        return replication.update_seq(self.server.reader())

    def _info(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        reader = self.server.reader()
        return HTTPStatus.OK, protocol.database_info(
            update_seq=replication.update_seq(reader), doc_count=replication.event_count(reader)
        )

    def _changes(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        since = _int(query.get("since", "0"), "since", allow_now=True, now=self._update_seq())
        limit = min(_int(query.get("limit", str(MAX_BATCH)), "limit"), MAX_BATCH)
        if query.get("feed") == "longpoll":
            deadline = time.monotonic() + min(
                _int(query.get("timeout", "30000"), "timeout") / 1000,
                _int(query.get("heartbeat", "30000"), "heartbeat") / 1000,
                LONGPOLL_MAX,
            )
            while self._update_seq() <= since and time.monotonic() < deadline:
                time.sleep(0.1)
        rows = replication.changes(self.server.reader(), since, limit)
        text = protocol.changes(
            rows,
            since=since,
            update_seq=self._update_seq(),
            include_docs=query.get("include_docs") == "true",
        )
        return HTTPStatus.OK, RawJSON(text)

    def _revs_diff(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        body = self._body()
        held = replication.event_hashes(self.server.reader(), protocol.revs_diff_ids(body))
        return HTTPStatus.OK, protocol.revs_diff(body, held)

    def _bulk_get(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        return HTTPStatus.OK, protocol.bulk_get(self._body(), self._held)

    def _all_docs(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        body = self._body() if self.command == "POST" else {}
        keys, include = protocol.all_docs_request(body, query)
        return HTTPStatus.OK, protocol.all_docs(keys, self._held, include_docs=include)

    def _doc(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        event = self._held(*docs.parse_id(parts[1]))
        if event is None:
            raise HttpError(HTTPStatus.NOT_FOUND, "not_found", "missing")
        return HTTPStatus.OK, docs.to_doc(event, revisions=query.get("revs") == "true")

    def _bulk_docs(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        events = protocol.bulk_docs_events(self._body())
        with self.server.write_lock:
            _, refusals = self.server.ledger.apply_batch(events)
            # with no refusal every event is held; else find the ones that are not
            stored = [self.server.ledger.get(e.origin, e.seq) for e in events] if refusals else []
        if not refusals:
            return HTTPStatus.CREATED, []
        messages = [refusal.message for refusal in refusals]
        return HTTPStatus.CREATED, protocol.bulk_docs_errors(events, stored, messages)

    def _release(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        """A peer asks this station, the holder, to hand a deal over to it."""
        body = self._body()
        serial = body.get("serial") if isinstance(body, dict) else None
        if not isinstance(serial, str) or self.server.station_view is None:
            raise HttpError(HTTPStatus.BAD_REQUEST, "bad_request", "expected {serial}")
        requester = self._peer()
        from pos.services.ownership import release_deal

        with self.server.write_lock:
            try:
                result = release_deal(
                    self.server.station_view, serial, to=requester, by=f"station:{requester}"
                )
            except BoothError as exc:
                raise HttpError(HTTPStatus.CONFLICT, "conflict", exc.message) from None
        return HTTPStatus.OK, result

    def _commit(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        return HTTPStatus.CREATED, {"ok": True, "instance_start_time": "0"}

    def _local_get(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        key = replication.peer_local_key(self._peer(), parts[2])
        doc = replication.local_doc(self.server.reader(), key)
        if doc is None:
            raise HttpError(HTTPStatus.NOT_FOUND, "not_found", "missing")
        return HTTPStatus.OK, doc

    def _local_put(self, parts: list[str], query: dict[str, str]) -> tuple[HTTPStatus, Any]:
        """A peer's replication checkpoint, kept apart from every other peer's and from this
        station's own (each peer reads and writes only its own), bounded in size and count."""
        body = self._body() if self.command == "PUT" else None
        local_id = protocol.check_local_id(parts[2])
        key = replication.peer_local_key(self._peer(), local_id)
        ledger = self.server.ledger
        with self.server.write_lock, ledger.transaction():
            rev = protocol.next_local_rev(replication.local_rev(ledger.conn, key))
            if self.command == "DELETE":
                replication.delete_local_doc(ledger.conn, key)
                return HTTPStatus.OK, protocol.local_written(local_id, rev)
            doc = protocol.local_doc(local_id, body, rev)
            replication.put_peer_local_doc(
                ledger.conn, key, doc, rev=rev, keep=protocol.MAX_LOCAL_DOCS
            )
        return HTTPStatus.CREATED, protocol.local_written(local_id, rev)


_int = protocol.parse_int
