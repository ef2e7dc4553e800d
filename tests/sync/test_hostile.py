"""Hostile peers against a running replication server, and hostile servers against the client.

The server runs in-process on 127.0.0.1 for the hall's manager station, with timeouts short
enough for a test (a 1 s socket timeout, a 2 s deadline per request) and 4 connection slots.
The authorised clients use booth-1's real hall certificate; every refusal is checked to store
nothing, and the refusals that are evidence (signatures, forks) to leave an incident.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import shutil
import socket
import sqlite3
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import sync.client
from pos.ledger import Ledger
from pos.ledger.events import Event
from pos.ledger.keys import StationKey
from pos.ledger.x509 import CA_FILE, CERT_FILE, KEY_FILE
from pos.services import hall as halls
from pos.services import sales
from pos.services.station import LEDGER_FILE, STATION_KEY_FILE, TLS_DIR, Station, StationConfig
from sync import docs
from sync.client import Peer, client_context
from sync.errors import BadDocument, PeerRefused, PeerUnreachable
from sync.replicator import pull
from sync.server import MAX_BODY, ReplicationServer, server_context
from sync.service import SyncService
from tests.sync.conftest import ENVIRON, Hall, build_hall

SOCKET_TIMEOUT = 1.0
REQUEST_TIMEOUT = 2.0
SLOTS = 4

# --- the hall and the server ----------------------------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Hall:
    """Built once: a manager, booth-1 (one sale more than the manager knows of) and booth-2."""
    hall = build_hall(tmp_path_factory.mktemp("hall"), ["booth-1", "booth-2"])
    with Station(hall.stations["booth-1"], environ=ENVIRON) as st:
        sales.sell(st, "D-BOOTH-1", qty="1", operator="S1")
    return hall


@pytest.fixture
def hall(template: Hall, tmp_path: Path) -> Hall:
    root = tmp_path / "hall"
    shutil.copytree(template.root, root)
    return Hall(
        root, {n: root / p.relative_to(template.root) for n, p in template.stations.items()}
    )


@dataclass
class Served:
    server: ReplicationServer
    ledger: Ledger
    directory: Path
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def wait_refused(self, count: int, timeout: float = 3.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while len(self.server.refused) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(self.server.refused) >= count, self.server.refused
        return list(self.server.refused)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
        self.ledger.close()


@pytest.fixture
def serve(hall: Hall) -> Iterator[Callable[..., Served]]:
    """Start the manager's replication server; keyword arguments override the test knobs."""
    running: list[Served] = []

    def start(**knobs: Any) -> Served:
        directory = hall.stations["manager"]
        config = StationConfig.load(directory)
        ledger = Ledger.open(
            directory / LEDGER_FILE,
            station=config.station,
            key=None,
            hall_public_key=config.hall_public_key,
        )
        options = {
            "socket_timeout": SOCKET_TIMEOUT,
            "request_timeout": REQUEST_TIMEOUT,
            "max_connections": SLOTS,
            **knobs,
        }
        server = ReplicationServer(
            ("127.0.0.1", 0),
            station_dir=directory,
            ledger=ledger,
            write_lock=threading.Lock(),
            hall=config.hall,
            station=config.station,
            **options,
        )
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        thread.start()
        served = Served(server, ledger, directory, thread)
        running.append(served)
        return served

    yield start
    for served in running:
        served.close()


@pytest.fixture
def served(serve: Callable[..., Served]) -> Served:
    return serve()


# --- what a ledger holds --------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    events: frozenset[tuple[str, int, str]]
    local: frozenset[str]
    incidents: tuple[tuple[str, str, int], ...] = field(default=())


def snapshot(directory: Path) -> Snapshot:
    conn = sqlite3.connect(f"file:{directory / LEDGER_FILE}?mode=ro", uri=True)
    try:
        return Snapshot(
            frozenset(conn.execute("SELECT origin, seq, hash FROM events")),
            frozenset(row[0] for row in conn.execute("SELECT id FROM sync_local")),
            tuple(conn.execute("SELECT kind, origin, seq FROM incidents ORDER BY id")),
        )
    finally:
        conn.close()


def station_events(directory: Path, origin: str) -> list[Event]:
    with Station(directory, environ=ENVIRON) as st:
        return list(st.ledger.origin_events(origin))


def station_key(directory: Path) -> StationKey:
    return StationKey.from_hex((directory / STATION_KEY_FILE).read_text())


def resigned(event: Event, key: StationKey, **changes: Any) -> Event:
    """`event` with `changes`, hashed and signed by `key` (a well-formed event of `key`)."""
    fields = {
        "origin": event.origin,
        "seq": event.seq,
        "kind": event.kind,
        "hlc": event.hlc,
        "prev": event.prev,
        "body": event.body,
        **changes,
    }
    return Event.create(key, **fields)


def flip(hex_text: str) -> str:
    return ("1" if hex_text[0] == "0" else "0") + hex_text[1:]


def bulk(*events: Event) -> bytes:
    return json.dumps(
        {"docs": [docs.to_doc(e, revisions=True) for e in events], "new_edits": False}
    ).encode()


# --- clients --------------------------------------------------------------------------------


def call(
    port: int,
    context: ssl.SSLContext,
    method: str,
    path: str,
    body: bytes | None = None,
) -> tuple[int, Any]:
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


def until_cut(
    sock: socket.socket, feed: bytes = b"", *, every: float = 0.25, limit: float = 8.0
) -> float:
    """Send `feed` one byte every `every` seconds (or nothing) until the server ends the
    connection; returns how long that took. Fails if it is still open after `limit`."""
    start = time.monotonic()
    sock.settimeout(every)
    position = 0
    while time.monotonic() - start < limit:
        try:
            if position < len(feed):
                sock.sendall(feed[position : position + 1])
                position += 1
            if not sock.recv(4096):
                return time.monotonic() - start
        except TimeoutError:
            continue
        except OSError:  # reset, broken pipe, a TLS alert: cut all the same
            return time.monotonic() - start
    raise AssertionError(f"still connected after {limit}s ({position} bytes sent)")


def tls_connect(port: int, context: ssl.SSLContext) -> ssl.SSLSocket:
    return context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5))


def client_hello() -> bytes:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    tls = context.wrap_bio(ssl.MemoryBIO(), outgoing := ssl.MemoryBIO())
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


def other_hall(tmp_path: Path) -> Path:
    directory = tmp_path / "other-hall"
    halls.init_hall(
        directory,
        organisation="Another Post",
        location="2 Elsewhere Road",
        time_zone="America/New_York",
        training=True,
        environ=ENVIRON,
    )
    return directory


def context_of(directory: Path, *, trust: Path | None = None) -> ssl.SSLContext:
    """A client context with `directory`'s certificate, trusting `trust`'s CA (or anything)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.load_cert_chain(directory / TLS_DIR / CERT_FILE, directory / TLS_DIR / KEY_FILE)
    if trust is None:
        context.verify_mode = ssl.CERT_NONE
    else:
        context.load_verify_locations(trust / TLS_DIR / CA_FILE)
    return context


# --- the authorised path, for contrast --------------------------------------------------------


def test_a_hall_station_reads_and_replicates(hall: Hall, served: Served) -> None:
    booth = hall.stations["booth-1"]
    context = client_context(booth)
    status, root = call(served.port, context, "GET", "/")
    assert status == 200 and root["booth"]["station"] == "manager"
    events = station_events(booth, "booth-1")
    assert call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(*events)) == (201, [])
    held = snapshot(served.directory).events
    assert {(e.origin, e.seq, e.hash) for e in events} <= held
    assert call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(*events)) == (201, [])
    assert snapshot(served.directory).events == held, "a second copy changes nothing"


# --- malformed requests -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/ledger/_bulk_docs"),
        ("POST", "/ledger/_revs_diff"),
        ("POST", "/ledger/_bulk_get"),
        ("POST", "/ledger/_all_docs"),
        ("PUT", "/ledger/_local/booth-pull:x"),
    ],
)
@pytest.mark.parametrize("raw", [b'{"docs": [{"_id": ', b"\xff\xfe\x00garbage", b"{}}"])
def test_malformed_json_is_refused_and_nothing_stored(
    hall: Hall, served: Served, method: str, path: str, raw: bytes
) -> None:
    before = snapshot(served.directory)
    status, payload = call(served.port, client_context(hall.stations["booth-1"]), method, path, raw)
    assert status == 400
    assert payload["error"] == "bad_request" and "invalid JSON" in payload["reason"]
    assert snapshot(served.directory) == before


def test_a_body_over_max_body_is_refused_unread(hall: Hall, served: Served) -> None:
    """The headers announce MAX_BODY + 1 bytes and only a few follow: the 413 comes at once,
    and the connection ends there. The bytes sent are a request of their own, which must not
    be answered: an unread body is not the next request."""
    before = snapshot(served.directory)
    sock = tls_connect(served.port, client_context(hall.stations["booth-1"]))
    with sock:
        started = time.monotonic()
        sock.sendall(
            b"POST /ledger/_bulk_docs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {MAX_BODY + 1}\r\n\r\n".encode()
            + b"GET /ledger HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        response = http.client.HTTPResponse(sock)  # type: ignore[arg-type]
        response.begin()
        payload = json.loads(response.read())
        assert time.monotonic() - started < 1.0, "answered without waiting for the body"
        assert response.status == 413 and payload["error"] == "too_large"
        assert str(MAX_BODY) in payload["reason"]
        assert response.getheader("Connection") == "close"
        sock.settimeout(2.0)
        rest = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(4096):
                rest += chunk
        assert rest == b"", f"the unread body was answered as a request: {rest[:80]!r}"
        assert time.monotonic() - started < 1.5, "the connection was closed, not left open"
    assert call(served.port, client_context(hall.stations["booth-1"]), "GET", "/")[0] == 200
    assert snapshot(served.directory) == before


@pytest.mark.parametrize("options", [{}, {"new_edits": True}])
def test_bulk_docs_accepts_only_replication(
    hall: Hall, served: Served, options: dict[str, Any]
) -> None:
    events = station_events(hall.stations["booth-1"], "booth-1")
    body = {"docs": [docs.to_doc(e) for e in events], **options}
    before = snapshot(served.directory)
    status, payload = call(
        served.port,
        client_context(hall.stations["booth-1"]),
        "POST",
        "/ledger/_bulk_docs",
        json.dumps(body).encode(),
    )
    assert status == 403 and "only new_edits=false" in payload["reason"]
    assert snapshot(served.directory) == before


def _wrong_rev(doc: dict[str, Any]) -> None:
    doc["_rev"] = "1-" + "0" * 32


def _wrong_id(doc: dict[str, Any]) -> None:
    doc["_id"] = docs.doc_id(doc["origin"], doc["seq"] + 7)


def _not_an_event_id(doc: dict[str, Any]) -> None:
    doc["_id"] = "_design/evil"


def _no_signature(doc: dict[str, Any]) -> None:
    del doc["sig"]


def _body_not_an_object(doc: dict[str, Any]) -> None:
    doc["body"] = "rm -rf /"


@pytest.mark.parametrize(
    ("spoil", "reason"),
    [
        (_wrong_rev, "wrong revision"),
        (_wrong_id, "does not match its origin and seq"),
        (_not_an_event_id, "does not match its origin and seq"),
        (_no_signature, "lacks sig"),
        (_body_not_an_object, "malformed body"),
    ],
)
def test_a_malformed_document_refuses_its_batch(
    hall: Hall, served: Served, spoil: Callable[[dict[str, Any]], None], reason: str
) -> None:
    """The valid documents beside it are not stored either: the batch is refused whole."""
    events = station_events(hall.stations["booth-1"], "booth-1")
    batch = [docs.to_doc(e, revisions=True) for e in events]
    spoil(batch[-1])
    before = snapshot(served.directory)
    status, payload = call(
        served.port,
        client_context(hall.stations["booth-1"]),
        "POST",
        "/ledger/_bulk_docs",
        json.dumps({"docs": batch, "new_edits": False}).encode(),
    )
    assert status == 400 and reason in payload["reason"], payload
    assert snapshot(served.directory) == before, "nothing stored, no incident: not an event"


def _huge_seq(hall: Hall) -> bytes:
    doc = docs.to_doc(station_events(hall.stations["booth-1"], "booth-1")[0])
    del doc["_id"], doc["_rev"]
    return json.dumps({"docs": [{**doc, "seq": 10**30}], "new_edits": False}).encode()


@pytest.mark.parametrize(
    ("method", "path", "body", "reason"),
    [
        ("GET", "/ledger/_all_docs?keys=[oops", None, "keys: not JSON"),
        ("POST", "/ledger/_revs_diff", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        ("POST", "/ledger/_bulk_docs", _huge_seq, "is not 1..999999999999"),
    ],
    ids=["keys-not-json", "deep-nesting", "seq-beyond-sqlite"],
)
def test_odd_values_get_an_answer_not_a_dropped_connection(
    hall: Hall, served: Served, method: str, path: str, body: Any, reason: str
) -> None:
    raw = body(hall) if callable(body) else body
    before = snapshot(served.directory)
    status, payload = call(served.port, client_context(hall.stations["booth-1"]), method, path, raw)
    assert status == 400 and reason in payload["reason"], payload
    assert snapshot(served.directory) == before


# --- events that are not what they claim -----------------------------------------------------


def test_a_bad_signature_is_refused_recorded_and_blocks_its_origin(
    hall: Hall, served: Served
) -> None:
    first, second, third = station_events(hall.stations["booth-1"], "booth-1")
    forged = replace(first, sig=flip(first.sig))
    before = snapshot(served.directory)
    status, errors = call(
        served.port,
        client_context(hall.stations["booth-1"]),
        "POST",
        "/ledger/_bulk_docs",
        bulk(forged, second, third),
    )
    assert status == 201
    assert [e["id"] for e in errors] == [docs.doc_id("booth-1", n) for n in (1, 2, 3)]
    assert "its signature does not verify" in errors[0]["reason"]
    assert all("follows a refused event of booth-1" in e["reason"] for e in errors[1:])
    after = snapshot(served.directory)
    assert after.events == before.events
    assert after.incidents == (*before.incidents, ("bad-signature", "booth-1", 1))


def test_an_altered_body_is_refused_by_its_hash(hall: Hall, served: Served) -> None:
    first = station_events(hall.stations["booth-1"], "booth-1")[0]
    altered = docs.to_doc(first)
    altered["body"] = {**altered["body"], "name": "booth-evil"}
    before = snapshot(served.directory)
    status, errors = call(
        served.port,
        client_context(hall.stations["booth-1"]),
        "POST",
        "/ledger/_bulk_docs",
        json.dumps({"docs": [altered], "new_edits": False}).encode(),
    )
    assert status == 201 and "hash does not match" in errors[0]["reason"]
    after = snapshot(served.directory)
    assert after.events == before.events
    assert after.incidents[-1] == ("bad-hash", "booth-1", 1)


@pytest.mark.parametrize("victim", ["manager", "booth-2"])
def test_an_event_forging_another_origin_is_refused(
    hall: Hall, served: Served, victim: str
) -> None:
    """booth-1 holds a valid hall certificate and its own key: neither lets it write events
    in the name of another station (here the server's own origin, or a fellow booth)."""
    booth = hall.stations["booth-1"]
    held = station_events(hall.stations["manager"], "manager")
    if victim == "manager":
        template = held[-1]
        forged = resigned(template, station_key(booth), seq=template.seq + 1, prev=template.hash)
    else:
        joined = station_events(hall.stations[victim], victim)[0]
        forged = resigned(joined, station_key(booth), body={**joined.body, "name": "evil"})
    before = snapshot(served.directory)
    status, errors = call(
        served.port, client_context(booth), "POST", "/ledger/_bulk_docs", bulk(forged)
    )
    assert status == 201 and errors[0]["id"] == docs.doc_id(victim, forged.seq)
    assert "refused event" in errors[0]["reason"]
    after = snapshot(served.directory)
    assert after.events == before.events
    assert after.incidents[-1][1:] == (victim, forged.seq)
    assert after.incidents[-1][0] in ("bad-signature", "bad-certificate")


def test_a_fork_is_refused_and_recorded(hall: Hall, served: Served) -> None:
    """booth-1 signs a second, different event 2: the one held stays, the fork is evidence."""
    booth = hall.stations["booth-1"]
    events = station_events(booth, "booth-1")
    context = client_context(booth)
    assert call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(*events)) == (201, [])
    fork = resigned(events[1], station_key(booth), body={**events[1].body, "bin": "drawer-9"})
    before = snapshot(served.directory)
    status, errors = call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(fork))
    assert status == 201 and errors[0]["id"] == docs.doc_id("booth-1", 2)
    assert "fork" in errors[0]["reason"]
    after = snapshot(served.directory)
    assert after.events == before.events
    assert after.incidents[-1] == ("fork", "booth-1", 2)


# --- endless streams --------------------------------------------------------------------------


def test_a_stalled_request_is_cut_by_the_socket_timeout(hall: Hall, served: Served) -> None:
    before = snapshot(served.directory)
    with tls_connect(served.port, client_context(hall.stations["booth-1"])) as sock:
        sock.sendall(
            b"POST /ledger/_bulk_docs HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{"
        )
        assert SOCKET_TIMEOUT * 0.8 < until_cut(sock) < SOCKET_TIMEOUT + 1.5
    assert snapshot(served.directory) == before


@pytest.mark.slow  # waits out the server's deadlines
@pytest.mark.parametrize(
    ("head", "trickle"),
    [
        (b"GET / HTTP/1.1\r\n", b"X-Slow: " + b"a" * 200),
        (b"POST /ledger/_bulk_docs HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", b" " * 200),
    ],
    ids=["headers", "body"],
)
def test_a_trickled_request_is_cut_by_the_request_deadline(
    hall: Hall, served: Served, head: bytes, trickle: bytes
) -> None:
    """A byte every 0.25 s never trips the 1 s socket timeout; the 2 s deadline cuts it."""
    with tls_connect(served.port, client_context(hall.stations["booth-1"])) as sock:
        sock.sendall(head)
        assert REQUEST_TIMEOUT - 0.3 < until_cut(sock, trickle) < REQUEST_TIMEOUT + 1.5


@pytest.mark.slow  # waits out the server's deadlines
def test_a_stalled_or_trickled_handshake_is_cut(served: Served) -> None:
    """Before any certificate is seen: silence, or a ClientHello a byte every 0.25 s (the
    socket timeout bounds a whole TLS handshake, not each read)."""
    with socket.create_connection(("127.0.0.1", served.port)) as sock:
        assert SOCKET_TIMEOUT * 0.8 < until_cut(sock) < SOCKET_TIMEOUT + 1.5
    with socket.create_connection(("127.0.0.1", served.port)) as sock:
        assert SOCKET_TIMEOUT * 0.8 < until_cut(sock, client_hello()) < SOCKET_TIMEOUT + 1.5
    refused = served.wait_refused(2)
    assert all("timed out" in entry for entry in refused), refused


@pytest.mark.slow  # waits out the server's deadlines
def test_a_slow_handshake_is_cut_sooner_than_a_slow_request(
    hall: Hall, serve: Callable[..., Served]
) -> None:
    """Without a certificate shown, a connection keeps its slot for the handshake's limit only,
    however patient the server is with stations that have shown one."""
    served = serve(socket_timeout=6.0, request_timeout=6.0, handshake_timeout=1.0)
    with socket.create_connection(("127.0.0.1", served.port)) as sock:
        assert 0.8 < until_cut(sock) < 2.5
    with socket.create_connection(("127.0.0.1", served.port)) as sock:
        assert 0.8 < until_cut(sock, client_hello()) < 2.5
    context = client_context(hall.stations["booth-1"])
    conn = http.client.HTTPSConnection("127.0.0.1", served.port, context=context, timeout=10)
    try:
        conn.request("GET", "/ledger")
        conn.getresponse().read()
        time.sleep(2.0)  # idle past the handshake's limit on an authenticated connection
        conn.request("GET", "/ledger")
        assert conn.getresponse().status == 200
    finally:
        conn.close()


def test_connections_above_the_limit_are_refused_while_the_others_work(
    hall: Hall, serve: Callable[..., Served]
) -> None:
    served = serve(socket_timeout=10.0, request_timeout=10.0)
    context = client_context(hall.stations["booth-1"])

    def get(conn: http.client.HTTPSConnection) -> int:
        conn.request("GET", "/ledger")
        response = conn.getresponse()
        response.read()
        return response.status

    held = [
        http.client.HTTPSConnection("127.0.0.1", served.port, context=context, timeout=5)
        for _ in range(SLOTS)
    ]
    try:
        assert [get(conn) for conn in held] == [200] * SLOTS
        for _ in range(3):
            extra = http.client.HTTPSConnection(
                "127.0.0.1", served.port, context=context, timeout=5
            )
            with pytest.raises((OSError, http.client.HTTPException)):
                get(extra)
            extra.close()
        assert [get(conn) for conn in held] == [200] * SLOTS, "kept-alive ones still served"
        held.pop().close()
        deadline = time.monotonic() + 3
        while True:  # the slot frees once the server sees the close
            try:
                assert call(served.port, context, "GET", "/")[0] == 200
                break
            except (OSError, http.client.HTTPException):
                assert time.monotonic() < deadline, "a freed slot was never reused"
                time.sleep(0.05)
    finally:
        for conn in held:
            conn.close()


# --- strangers --------------------------------------------------------------------------------


def test_a_client_without_a_certificate_reads_and_writes_nothing(
    hall: Hall, served: Served
) -> None:
    """It even trusts the hall's CA: the server still wants a certificate of the hall."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.load_verify_locations(hall.stations["manager"] / TLS_DIR / CA_FILE)
    before = snapshot(served.directory)
    events = station_events(hall.stations["booth-1"], "booth-1")
    with pytest.raises((OSError, http.client.HTTPException)):
        call(served.port, context, "GET", "/ledger/_changes?since=0&include_docs=true")
    with pytest.raises((OSError, http.client.HTTPException)):
        call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(*events))
    with pytest.raises((PeerRefused, PeerUnreachable)):
        Peer(served.url, context, timeout=5).request("GET", "/")
    refused = served.wait_refused(3)
    assert all("certificate" in entry.lower() for entry in refused), refused
    assert snapshot(served.directory) == before


def test_a_certificate_of_another_hall_reads_and_writes_nothing(
    hall: Hall, served: Served, tmp_path: Path
) -> None:
    stranger = other_hall(tmp_path)
    before = snapshot(served.directory)
    events = station_events(hall.stations["booth-1"], "booth-1")
    for context in (context_of(stranger), context_of(stranger, trust=hall.stations["manager"])):
        with pytest.raises((OSError, http.client.HTTPException)):
            call(served.port, context, "GET", "/ledger/_changes?since=0&include_docs=true")
        with pytest.raises((OSError, http.client.HTTPException)):
            call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(*events))
    refused = served.wait_refused(4)
    assert all("certificate" in entry.lower() for entry in refused), refused
    assert snapshot(served.directory) == before


@pytest.mark.parametrize(
    "garbage",
    [
        b"GET /ledger/_changes?since=0&include_docs=true HTTP/1.1\r\nHost: x\r\n\r\n",
        bytes(range(256)) * 4,
        b"\x16\x03\x01\xff\xff" + b"\x00" * 64,  # a TLS record header claiming 64 KiB
    ],
    ids=["plain-http", "binary", "bogus-record"],
)
def test_garbage_instead_of_tls_is_refused(hall: Hall, served: Served, garbage: bytes) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
        sock.sendall(garbage)
        sock.settimeout(SOCKET_TIMEOUT + REQUEST_TIMEOUT + 2)
        received = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(4096):
                received += chunk
    assert b"HTTP/" not in received and b"booth" not in received
    assert served.wait_refused(1)
    assert call(served.port, client_context(hall.stations["booth-1"]), "GET", "/")[0] == 200


# --- hostile servers against the client and the replicator -------------------------------------


class FakePeer(ThreadingHTTPServer):
    """A TLS server with a hall certificate (so the client's handshake succeeds) that answers
    `GET /` like a Booth station and everything else with `answer`."""

    daemon_threads = True

    def __init__(self, station_dir: Path, answer: Callable[[BaseHTTPRequestHandler], None]) -> None:
        super().__init__(("127.0.0.1", 0), FakeHandler)
        self.socket = server_context(station_dir).wrap_socket(self.socket, server_side=True)
        self.answer = answer
        self.requests: list[str] = []
        self.thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hanging up on an endless answer is the point

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self.thread.join(timeout=5)


class FakeHandler(BaseHTTPRequestHandler):
    server: FakePeer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        if self.path == "/":
            root = {"couchdb": "Welcome", "uuid": "f" * 32, "booth": {"station": "fake"}}
            send(self, 200, json.dumps(root).encode())
        else:
            self.server.answer(self)


def send(
    handler: BaseHTTPRequestHandler,
    status: int,
    raw: bytes,
    content_type: str = "application/json",
    length: int | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(raw) if length is None else length))
    handler.end_headers()
    handler.wfile.write(raw)


def changes(*events: Event, last_seq: Any = None) -> bytes:
    rows = [
        {
            "seq": n,
            "id": docs.doc_id(e.origin, e.seq),
            "changes": [{"rev": docs.rev_of(e.hash)}],
            "doc": docs.to_doc(e),
        }
        for n, e in enumerate(events, start=1)
    ]
    return json.dumps(
        {"results": rows, "last_seq": len(rows) if last_seq is None else last_seq}
    ).encode()


@pytest.fixture
def fake(hall: Hall) -> Iterator[Callable[[Callable[[BaseHTTPRequestHandler], None]], FakePeer]]:
    started: list[FakePeer] = []

    def start(answer: Callable[[BaseHTTPRequestHandler], None]) -> FakePeer:
        peer = FakePeer(hall.stations["booth-2"], answer)
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.close()


@pytest.fixture
def puller(hall: Hall) -> Iterator[Ledger]:
    """booth-1's ledger, as its replicator opens it."""
    directory = hall.stations["booth-1"]
    config = StationConfig.load(directory)
    ledger = Ledger.open(
        directory / LEDGER_FILE,
        station=config.station,
        key=None,
        hall_public_key=config.hall_public_key,
    )
    yield ledger
    ledger.close()


def pull_from(
    hall: Hall, ledger: Ledger, peer: FakePeer, *, timeout: float = 5.0, batch: int = 1000
) -> Any:
    client = Peer(peer.url, client_context(hall.stations["booth-1"]), timeout=timeout)
    try:
        return pull(ledger, client, batch=batch)
    finally:
        client.close()


def a_new_manager_event(hall: Hall) -> Event:
    """manager:10 (booth-2 added): genuine, and not yet held by booth-1."""
    event = station_events(hall.stations["manager"], "manager")[-1]
    assert event.seq not in {
        s for o, s, _ in snapshot(hall.stations["booth-1"]).events if o == "manager"
    }
    return event


def test_the_replicator_pulls_from_a_well_behaved_peer(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    """The fake is faithful here: what the hostile variants change is all that differs."""
    event = a_new_manager_event(hall)
    peer = fake(lambda handler: send(handler, 200, changes(event)))
    result = pull_from(hall, puller, peer)
    assert (result.received, result.applied, result.refused) == (1, 1, 0)
    assert (event.origin, event.seq, event.hash) in snapshot(hall.stations["booth-1"]).events


def test_malformed_json_from_a_peer_is_refused(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    event = a_new_manager_event(hall)
    peer = fake(lambda handler: send(handler, 200, changes(event)[:-40]))
    before = snapshot(hall.stations["booth-1"])
    with pytest.raises(PeerRefused, match="answered with malformed JSON"):
        pull_from(hall, puller, peer)
    assert snapshot(hall.stations["booth-1"]) == before, "no event, no checkpoint"


def test_deeply_nested_json_from_a_peer_is_refused(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    peer = fake(lambda handler: send(handler, 200, b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(PeerRefused, match="malformed JSON"):
        pull_from(hall, puller, peer)


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_huge_or_endless_answer_is_cut_off(
    hall: Hall,
    fake: Callable[..., FakePeer],
    puller: Ledger,
    monkeypatch: pytest.MonkeyPatch,
    framing: str,
) -> None:
    """The peer announces 10 GB (or streams chunks forever); the client stops at its limit."""
    monkeypatch.setattr(sync.client, "MAX_RESPONSE", 1024 * 1024)
    sent = [0]

    def endless(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if framing == "chunked":
            handler.send_header("Transfer-Encoding", "chunked")
        else:
            handler.send_header("Content-Length", str(10**10))
        handler.end_headers()
        chunk = b'{"results": [' + b" " * 65536
        with contextlib.suppress(OSError):
            while sent[0] < 64 * 1024 * 1024:
                if framing == "chunked":
                    handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                else:
                    handler.wfile.write(chunk)
                sent[0] += len(chunk)

    peer = fake(endless)
    before = snapshot(hall.stations["booth-1"])
    with pytest.raises(PeerRefused, match=f"sent more than {1024 * 1024} bytes"):
        pull_from(hall, puller, peer)
    assert sent[0] < 16 * 1024 * 1024, "the client hung up, it did not read it all"
    assert snapshot(hall.stations["booth-1"]) == before


def test_a_server_error_is_refused_with_its_reason(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    answer = json.dumps({"error": "internal_server_error", "reason": "disk on fire"}).encode()
    peer = fake(lambda handler: send(handler, 500, answer))
    before = snapshot(hall.stations["booth-1"])
    with pytest.raises(PeerRefused, match="answered 500: 'disk on fire'"):
        pull_from(hall, puller, peer)
    assert snapshot(hall.stations["booth-1"]) == before


def test_a_server_error_page_names_its_status(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    page = b"<html><body>Internal Server Error</body></html>"
    peer = fake(lambda handler: send(handler, 500, page, "text/html"))
    with pytest.raises(PeerRefused, match="answered 500"):
        pull_from(hall, puller, peer)


def test_a_silent_or_closed_peer_is_unreachable(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    silent = fake(lambda handler: time.sleep(5))
    before = snapshot(hall.stations["booth-1"])
    started = time.monotonic()
    with pytest.raises(PeerUnreachable, match="timed out"):
        pull_from(hall, puller, silent, timeout=0.5)
    assert time.monotonic() - started < 3
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"https://127.0.0.1:{sock.getsockname()[1]}"
    with pytest.raises(PeerUnreachable, match="refused"):
        Peer(closed, client_context(hall.stations["booth-1"]), timeout=1).request("GET", "/")
    assert snapshot(hall.stations["booth-1"]) == before


def test_a_peer_of_another_hall_is_refused(hall: Hall, puller: Ledger, tmp_path: Path) -> None:
    stranger = FakePeer(other_hall(tmp_path), lambda handler: send(handler, 200, b"{}"))
    try:
        with pytest.raises(PeerRefused, match="not of this hall"):
            pull_from(hall, puller, stranger)
    finally:
        stranger.close()


def test_pulled_events_with_bad_signatures_are_refused_and_recorded(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    event = a_new_manager_event(hall)
    forged = replace(event, sig=flip(event.sig))
    peer = fake(lambda handler: send(handler, 200, changes(forged)))
    before = snapshot(hall.stations["booth-1"])
    result = pull_from(hall, puller, peer)
    assert (result.received, result.applied, result.refused) == (1, 0, 1)
    after = snapshot(hall.stations["booth-1"])
    assert after.events == before.events
    assert after.incidents == (*before.incidents, ("bad-signature", "manager", event.seq))


def test_a_malformed_document_from_a_peer_stores_nothing(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    event = a_new_manager_event(hall)
    spoilt = json.loads(changes(event))
    spoilt["results"][0]["doc"]["_rev"] = "1-" + "0" * 32
    peer = fake(lambda handler: send(handler, 200, json.dumps(spoilt).encode()))
    before = snapshot(hall.stations["booth-1"])
    with pytest.raises(BadDocument, match="wrong revision"):
        pull_from(hall, puller, peer)
    assert snapshot(hall.stations["booth-1"]) == before, "no event, no checkpoint"


def test_the_service_records_a_hostile_peer_and_carries_on(
    hall: Hall, fake: Callable[..., FakePeer]
) -> None:
    """Through SyncService: the round reports the error, the peer backs off, nothing stored."""
    peer = fake(lambda handler: send(handler, 200, b'{"results": [{"doc": '))
    before = snapshot(hall.stations["booth-1"])
    with Station(hall.stations["booth-1"], environ=ENVIRON) as st:
        service = SyncService(
            st,
            port=0,
            static_peers=[peer.url],
            interval=3600,
            discover=False,
            rng=random.Random(1),  # a backoff with jitter: this one waits 0.27 s, not ~0
        )
        service.start()
        try:
            (round_,) = service.sync_round(only=peer.url)
            assert "malformed JSON" in round_["error"]
            assert service.peers[peer.url].failures >= 1
            assert service.peers[peer.url].next_try > time.monotonic()
        finally:
            service.stop()
    after = snapshot(hall.stations["booth-1"])
    assert after.events == before.events and after.incidents == before.incidents


def test_a_garbage_last_seq_is_refused(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    event = a_new_manager_event(hall)
    peer = fake(lambda handler: send(handler, 200, changes(event, last_seq="lots")))
    with pytest.raises(PeerRefused):
        pull_from(hall, puller, peer)


def test_changes_that_never_advance_end_the_pull(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    event = a_new_manager_event(hall)
    answers = [0]

    def stuck(handler: BaseHTTPRequestHandler) -> None:
        answers[0] += 1
        if answers[0] > 20:  # the test's own brake: without it the pull never returns
            send(handler, 500, b'{"error": "brake", "reason": "brake"}')
        else:
            send(handler, 200, changes(event, last_seq=0))

    peer = fake(stuck)
    with pytest.raises(PeerRefused, match="advance"):
        pull_from(hall, puller, peer, batch=1)
    assert answers[0] <= 2


# --- issue #16: bodies that do not fit their kind, and refusals that are loud -------------------


def a_stolen_key_sale(hall: Hall, after: Event, **changes: Any) -> Event:
    """The next event of `after`'s origin: a sale signed with its (stolen) key, whose body is
    `changes` over a well-formed sale's."""
    body = {
        "serial": "D-MANAGER",
        "qty": -5,
        "price": 100,
        "amount": -500,
        "receipt": 99,
        "session": "2026-11-28/1",
        "bin": "drawer-1",
        "seller": "S1",
        **changes,
    }
    return Event.create(
        station_key(hall.stations[after.origin]),
        origin=after.origin,
        seq=after.seq + 1,
        kind="TicketsSold",
        hlc=after.hlc,
        prev=after.hash,
        body=body,
    )


def test_a_signed_body_that_does_not_fit_its_kind_is_refused_recorded_and_raised(
    hall: Hall, fake: Callable[..., FakePeer], puller: Ledger
) -> None:
    """Item 3: a stolen manager key signs a sale of -5 tickets. It is refused like a bad
    signature (nothing stored, the rest of the page taken in), recorded as an incident, and
    listed for the manager as an exception."""
    event = a_new_manager_event(hall)
    bad = a_stolen_key_sale(hall, event)
    peer = fake(lambda handler: send(handler, 200, changes(event, bad)))
    before = snapshot(hall.stations["booth-1"])
    result = pull_from(hall, puller, peer)
    assert (result.received, result.applied, result.refused) == (2, 1, 1)
    assert result.refused_events == [f"manager:{bad.seq}"]
    assert "qty: is -5" in result.refusals[0]
    after = snapshot(hall.stations["booth-1"])
    assert after.events == before.events | {(event.origin, event.seq, event.hash)}
    assert after.incidents == (*before.incidents, ("bad-body", "manager", bad.seq))
    from pos.services.exceptions import open_exceptions

    with Station(hall.stations["booth-1"], environ=ENVIRON) as st:
        listed = [e for e in open_exceptions(st) if e["kind"] == "refused-bad-body"]
    assert [e["exception"] for e in listed] == [f"manager:{bad.seq}"]
    assert "TicketsSold" in listed[0]["subject"] and "qty" in listed[0]["detail"]


def test_a_bad_body_offered_to_the_server_stores_nothing(hall: Hall, served: Served) -> None:
    """Item 3, pushed: `_bulk_docs` refuses it with its reason, and records it."""
    booth = hall.stations["booth-1"]
    events = station_events(booth, "booth-1")
    bad = a_stolen_key_sale(hall, events[-1], serial="D-BOOTH-1", amount=-500)
    context = client_context(booth)
    assert call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(*events))[0] == 201
    before = snapshot(served.directory)
    status, answer = call(served.port, context, "POST", "/ledger/_bulk_docs", bulk(bad))
    assert status == 201 and answer[0]["id"] == docs.doc_id("booth-1", bad.seq)
    assert "does not fit TicketsSold" in answer[0]["reason"]
    after = snapshot(served.directory)
    assert after.events == before.events
    assert after.incidents == (*before.incidents, ("bad-body", "booth-1", bad.seq))


@pytest.mark.parametrize("how", ["bad-body", "bad-signature"])
def test_sync_now_exits_4_naming_the_refused_events(
    hall: Hall, fake: Callable[..., FakePeer], how: str
) -> None:
    """Item 4: what a peer sent and this station refused makes `sync now` exit 4, with the
    events named in its JSON (it exited 0 with "applied 0")."""
    from tests.conftest import run_booth

    event = a_new_manager_event(hall)
    bad = (
        a_stolen_key_sale(hall, event) if how == "bad-body" else replace(event, sig=flip(event.sig))
    )
    served_events = (event, bad) if how == "bad-body" else (bad,)

    def answer(handler: BaseHTTPRequestHandler) -> None:
        # from the start every time: each `sync now` is offered the same events again
        send(handler, 200, changes(*served_events) if "since=0&" in handler.path else b"{}")

    peer = fake(answer)
    booth = str(hall.stations["booth-1"])
    result = run_booth("--hall", booth, "sync", "now", "--peer", peer.url, "--json", env=ENVIRON)
    assert result.exit_code == 4, result
    (answer,) = result.json
    assert answer["refused"] == 1 and answer["refused_events"] == [f"manager:{bad.seq}"]
    assert f"manager:{bad.seq}" in answer["refusals"][0]
    assert "refused" in result.stderr
    for directory in (hall.stations["booth-1"],):  # forget the checkpoint: offered again
        with Station(directory, environ=ENVIRON) as st, st.ledger.transaction():
            st.ledger.conn.execute("DELETE FROM sync_local")
    human = run_booth("--hall", booth, "sync", "now", "--peer", peer.url, env=ENVIRON)
    assert human.exit_code == 4 and f"REFUSED 1: refused event manager:{bad.seq}" in human.stdout
    status = run_booth("--hall", booth, "sync", "status", "--json", env=ENVIRON).json
    assert f"manager:{bad.seq}" in status["peers"][0]["last_error"]


# --- issue #16 item 2: `_local` documents are a replicator's checkpoints, bounded -------------


POUCH_ID = "Ak3pQ0ZV9x.b_rT7Yw1mLQ=="  # as PouchDB names a replication: base64 MD5, '/' -> '.'


def test_local_documents_are_checkpoints_bounded_in_size_and_count(
    hall: Hall, served: Served
) -> None:
    """A peer with a valid certificate stored unlimited 1 MB `_local` documents (40 MB in
    1.6 s). Now: only replication checkpoint ids, at most MAX_LOCAL_DOC bytes, and at most
    MAX_LOCAL_DOCS per peer (a new one replaces its least recently written)."""
    from sync.protocol import MAX_LOCAL_DOC, MAX_LOCAL_DOCS

    context = client_context(hall.stations["booth-1"])
    checkpoint = {"session_id": "s", "history": [{"last_seq": 5}], "last_seq": 5}
    path = f"/ledger/_local/{POUCH_ID}"
    assert call(served.port, context, "PUT", path, json.dumps(checkpoint).encode())[0] == 201
    status, doc = call(served.port, context, "GET", path)
    assert status == 200 and doc["last_seq"] == 5

    huge = json.dumps({"pad": "x" * 1_000_000}).encode()
    status, answer = call(served.port, context, "PUT", f"/ledger/_local/{'b' * 22}", huge)
    assert status == 413 and str(MAX_LOCAL_DOC) in answer["reason"]
    for name in ("booth-pull:manager:" + "f" * 32, "../../etc", "x"):
        status, answer = call(
            served.port, context, "PUT", f"/ledger/_local/{name}", json.dumps(checkpoint).encode()
        )
        assert status in (400, 403, 404), (name, status, answer)

    for n in range(MAX_LOCAL_DOCS * 3):
        status, _ = call(
            served.port,
            context,
            "PUT",
            f"/ledger/_local/{n:024d}",
            json.dumps({**checkpoint, "pad": "y" * (MAX_LOCAL_DOC - 200)}).encode(),
        )
        assert status == 201
    stored = snapshot(served.directory).local
    mine = {key for key in stored if key.startswith("peer:booth-1/")}
    assert len(mine) == MAX_LOCAL_DOCS
    assert f"peer:booth-1/{MAX_LOCAL_DOCS * 3 - 1:024d}" in mine, "the newest stay"
    assert not any("booth-pull" in key for key in stored - mine)

    other = client_context(hall.stations["booth-2"])
    assert call(served.port, other, "GET", path)[0] == 404, "a peer reads only its own"


# --- issue #16 item 1: strangers must not starve the hall's stations --------------------------


def idle_from(source: str, port: int, count: int) -> list[socket.socket]:
    """`count` TCP connections from `source` (a 127.x address) that never start TLS."""
    socks = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        socks.append(sock)
    return socks


def test_idle_strangers_hold_no_worker_and_a_source_only_its_share_of_handshakes(
    hall: Hall, serve: Callable[..., Served]
) -> None:
    """With 4 worker slots, 40 idle connections from one address and 40 from eight others
    used to leave a hall station no slot at all. Now they wait in the handshake pool (8 at
    most from one address, 24 in all here, the oldest pushed out) and hold no worker: every
    station's request is served, at once."""
    served = serve(
        socket_timeout=10.0,
        request_timeout=10.0,
        handshake_timeout=10.0,
        max_handshakes=24,
        max_handshakes_per_source=8,
    )
    assert served.server.handshakes is not None
    strangers = idle_from("127.0.0.2", served.port, 40)
    for n in range(8):
        strangers += idle_from(f"127.0.3.{n + 1}", served.port, 5)
    try:
        deadline = time.monotonic() + 5
        while sum(served.server.handshakes.pending().values()) < 24:
            assert time.monotonic() < deadline, served.server.handshakes.pending()
            time.sleep(0.05)
        pending = served.server.handshakes.pending()
        assert pending["127.0.0.2"] <= 8 and sum(pending.values()) <= 24, pending
        context = client_context(hall.stations["booth-1"])
        for _ in range(3 * SLOTS):  # more than the worker slots: none is held by a stranger
            assert call(served.port, context, "GET", "/")[0] == 200
        status = Peer(served.url, context, timeout=5)
        try:
            assert status.request("GET", "/")["booth"]["station"] == "manager"
        finally:
            status.close()
        assert any("handshakes at once from 127.0.0.2" in r for r in served.server.refused)
    finally:
        for sock in strangers:
            sock.close()


def test_a_peer_that_closes_during_the_handshake_is_busy_not_a_certificate_problem() -> None:
    """The client blamed "our certificate" when a busy peer closed the connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def close_each() -> None:
        with contextlib.suppress(OSError):
            for _ in range(2):
                conn, _ = listener.accept()
                conn.close()

    thread = threading.Thread(target=close_each, daemon=True)
    thread.start()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        for _ in range(2):
            peer = Peer(f"https://127.0.0.1:{port}", context, timeout=5)
            with pytest.raises(PeerUnreachable) as caught:
                peer.request("GET", "/")
            peer.close()
            assert "busy or closed the connection" in caught.value.message
            assert "certificate" not in caught.value.message
    finally:
        listener.close()
        thread.join(timeout=5)


def test_refusals_of_strangers_are_logged_a_few_times_then_counted(
    hall: Hall, served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    """One log line per refused stranger grew the log by 2.27 MB in 45 s. Now a kind of line
    repeats at most LOG_BURST times in LOG_WINDOW seconds."""
    from sync.server import LOG_BURST

    caplog.set_level("INFO", logger="booth.sync")
    for _ in range(60):
        with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # plain HTTP: not a handshake
            with contextlib.suppress(OSError):
                sock.recv(100)
    served.wait_refused(60)
    lines = [r for r in caplog.records if r.name.startswith("booth.sync")]
    assert 1 <= len(lines) <= LOG_BURST + 1, [r.getMessage() for r in lines]
    assert call(served.port, client_context(hall.stations["booth-1"]), "GET", "/")[0] == 200
