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
import socket
import socketserver
import sqlite3
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pos import __version__
from pos.clock import Clock, SystemClock
from pos.errors import BoothError, NotFound
from pos.ledger import Event, Ledger, heads, replication
from pos.ledger.x509 import CA_FILE, CERT_FILE, KEY_FILE, subject
from pos.services.station import LEDGER_FILE, TLS_DIR, Station
from sync import docs, protocol
from sync.errors import BadDocument
from sync.handshakes import (
    LOG_BURST,  # noqa: F401  (the tests read it here)
    MAX_HANDSHAKES,
    MAX_HANDSHAKES_PER_SOURCE,
    Handshakes,
    LogThrottle,
    Slots,
    request_arrives,
)

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
# ... and of those, at most this many for one certificate: 70 idle connections with one stolen
# station certificate (a kiosk's card) took every slot and stopped the hall's sync.
MAX_CONNECTIONS_PER_PEER = 16
# A connection that showed its certificate and then sends no request (or no next request on a
# kept-alive connection) within this is ended: an idle one holds a worker thread. Our client
# sends its requests back to back and opens a connection again when a kept-alive one is gone.
IDLE_TIMEOUT = 5.0
LONGPOLL_MAX = 60.0


def require_tls(station_dir: Path) -> None:
    """The station's TLS material is all there, or an error that names the file missing
    (ssl's own names none: "[Errno 2] No such file or directory")."""
    tls = station_dir / TLS_DIR
    for name in (CERT_FILE, KEY_FILE, CA_FILE):
        if not (tls / name).is_file():
            raise NotFound(
                f"{tls / name} is missing: this station's TLS material (its certificate, key and "
                "the hall's CA) comes with 'booth hall join', or from a backup of the station"
            )


def server_context(station_dir: Path) -> ssl.SSLContext:
    tls = station_dir / TLS_DIR
    require_tls(station_dir)
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
        max_connections_per_peer: int = MAX_CONNECTIONS_PER_PEER,
        idle_timeout: float = IDLE_TIMEOUT,
        max_handshakes: int = MAX_HANDSHAKES,
        max_handshakes_per_source: int = MAX_HANDSHAKES_PER_SOURCE,
        station_view: Station | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.station_view = station_view  # for requests that act as this station (release)
        self.clock = clock or SystemClock()  # told to the puller, who compares it with its own
        self.station_dir = station_dir
        self.ledger = ledger
        self.write_lock = write_lock
        self.hall = hall
        self.station = station
        self.uuid = hashlib.sha256(f"{hall}:{station}".encode()).hexdigest()[:32]
        self.socket_timeout = socket_timeout
        self.request_timeout = request_timeout
        self.handshake_timeout = min(handshake_timeout, request_timeout)
        self.idle_timeout = min(idle_timeout, socket_timeout)
        self.slots = Slots(max_connections, min(max_connections_per_peer, max_connections))
        self._slot_keys: dict[Any, str] = {}  # each served connection's key in `slots`
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
        if one of the slots is free and its certificate holds fewer than its share."""
        key = _peer_key(request, client_address)
        refusal = self.slots.take(key)
        if refusal is not None:
            self.refused.append(f"{client_address[0]}: {refusal}")
            self.throttle.log(logging.WARNING, "busy", "refused %s: %s", client_address[0], refusal)
            self.shutdown_request(request)
            return
        with self._deadlines_lock:
            self._slot_keys[request] = key
        try:
            socketserver.ThreadingMixIn.process_request(self, request, client_address)
        except BaseException:
            self._give_slot(request)
            raise

    def _give_slot(self, request: Any) -> None:
        with self._deadlines_lock:
            key = self._slot_keys.pop(request, None)
        if key is not None:
            self.slots.give(key)

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
            self._give_slot(request)

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
        if not request_arrives(self.request, self.rfile, self.server.idle_timeout):
            self.close_connection = True  # idle (or gone): its slot is for someone else
            return
        self.request.settimeout(self.server.socket_timeout)
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
            release=__version__,
            now=self.server.clock.now(),
            first=self._first_hash(),
        )

    def _first_hash(self) -> str | None:
        first = self._held(self.server.station, 1)
        return first.hash if first is not None else None

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


def _peer_key(request: Any, client_address: Any) -> str:
    """Whose share of the slots a connection takes: its certificate's (SHA-256 of the DER),
    else, with no TLS (loopback tests), its address's."""
    if isinstance(request, ssl.SSLSocket):
        der = request.getpeercert(binary_form=True)
        if der is not None:
            return "certificate " + hashlib.sha256(der).hexdigest()[:16]
    return f"address {client_address[0]}"
