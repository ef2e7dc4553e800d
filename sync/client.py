"""HTTP clients: the one kept-alive connection code (`Connection`) that the LAN peer client
(`Peer`, mutual TLS with this station's certificate) and the head office's client
(`sync.upstream.Upstream`, HTTPS with basic auth) are both made of."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pos.ledger.x509 import CA_FILE, CERT_FILE, KEY_FILE
from pos.services.station import TLS_DIR
from sync.errors import PeerRefused, PeerUnreachable, SyncError

TIMEOUT = 30.0
CONNECT_TIMEOUT = 3.0  # a peer behind a cut LAN: fail fast, the round moves on
MAX_RESPONSE = 256 * 1024 * 1024


def client_context(station_dir: Path) -> ssl.SSLContext:
    tls = station_dir / TLS_DIR
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(tls / CERT_FILE, tls / KEY_FILE)
    context.load_verify_locations(tls / CA_FILE)
    # Stations move between addresses: identity is the hall-issued certificate, not a name.
    context.check_hostname = False
    return context


def read_body(response: http.client.HTTPResponse, limit: int | None = None) -> bytes:
    """The body, or its first `limit` (MAX_RESPONSE) + 1 bytes: more, and the caller refuses
    it. (`read(amt)` would allocate `amt` bytes for every answer, however short.)"""
    limit = MAX_RESPONSE if limit is None else limit
    if response.length is not None and response.length <= limit:
        return response.read()
    chunks, size = [], 0
    while size <= limit:
        chunk = response.read1(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


# TLS alerts a server sends when it refuses the certificate we showed (OpenSSL's reasons)
_CERTIFICATE_ALERTS = (
    "BAD_CERTIFICATE",
    "CERTIFICATE_REQUIRED",
    "CERTIFICATE_UNKNOWN",
    "UNKNOWN_CA",
    "CERTIFICATE_REVOKED",
    "CERTIFICATE_EXPIRED",
    "UNSUPPORTED_CERTIFICATE",
    "ACCESS_DENIED",
    "DECRYPT_ERROR",
)


def tls_failure(url: str, exc: ssl.SSLError) -> SyncError:
    """What a failed TLS exchange with `url` means, said the right way round: its certificate
    is not of this hall, it refused ours, or (most often under load) it was busy and closed the
    connection, which is no certificate problem at all."""
    reason = str(exc.reason or exc)
    if isinstance(exc, ssl.SSLCertVerificationError):
        return PeerRefused(
            f"{url} is not of this hall: its certificate does not verify "
            f"({exc.verify_message or reason})"
        )
    if any(alert in reason.upper() for alert in _CERTIFICATE_ALERTS):
        return PeerRefused(f"{url} refused our certificate or is not of this hall: {reason}")
    return PeerUnreachable(busy(url, reason))


def busy(url: str, detail: str) -> str:
    return f"{url} was busy or closed the connection; try again ({detail})"


def encode_json(body: Any) -> bytes | None:
    return json.dumps(body, separators=(",", ":")).encode() if body is not None else None


class Connection:
    """One HTTP(S) connection to `host`:`port`, kept open between requests.

    The TCP connect and the TLS handshake must be done within `connect_timeout` seconds (at
    most `timeout`), every later read within `timeout`. The handshake runs on a socket already
    held here, so `abort()`, from another thread, can end it as well as a request."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        context: ssl.SSLContext | None,
        timeout: float,
        connect_timeout: float,
    ) -> None:
        self.host, self.port = host, port
        self.context = context
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            connect = min(self.timeout, self.connect_timeout)
            conn: http.client.HTTPConnection
            if self.context is not None:  # (its Host header leaves out the default port 443)
                conn = http.client.HTTPSConnection(
                    self.host, self.port, timeout=connect, context=self.context
                )
            else:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=connect)
            raw = socket.create_connection((self.host, self.port), connect)
            try:
                # headers and body are separate writes: no waiting on the delayed ACK
                raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock: socket.socket = raw
                if self.context is not None:
                    sock = self.context.wrap_socket(
                        raw, server_hostname=self.host, do_handshake_on_connect=False
                    )
            except BaseException:
                raw.close()
                raise
            conn.sock = sock
            self._conn = conn
            if isinstance(sock, ssl.SSLSocket):
                sock.do_handshake()  # within `connect` seconds
            sock.settimeout(self.timeout)
        return self._conn

    def abort(self) -> None:
        """From another thread: end the request in progress at once (a service stopping)."""
        conn = self._conn
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):  # already closed
                # the plain socket's shutdown: the TLS one's would drop its state under the
                # thread still using it
                socket.socket.shutdown(conn.sock, socket.SHUT_RDWR)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def exchange(
        self, method: str, path: str, data: bytes | None, headers: dict[str, str], limit: int
    ) -> tuple[http.client.HTTPResponse, bytes]:
        """The response and its body (at most `limit` + 1 bytes). A kept-alive socket the
        other side closed meanwhile is replaced once; errors close the connection and rise."""
        if data is not None:
            headers = {**headers, "Content-Type": "application/json"}
        for attempt in (1, 2):
            reused = self._conn is not None
            try:
                conn = self._connection()
                conn.request(method, path, body=data, headers=headers)
                response = conn.getresponse()
                return response, read_body(response, limit)
            except ssl.SSLError:
                self.close()
                raise
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt == 2 or not reused:
                    raise
        raise AssertionError("unreachable")


class Peer(Connection):
    """One peer's replication endpoint. Keeps one connection open; counts bytes on the wire."""

    def __init__(
        self, url: str, context: ssl.SSLContext | None, *, timeout: float = TIMEOUT
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise PeerUnreachable(f"{url!r} is not a peer URL (https://HOST:PORT)")
        super().__init__(
            parts.hostname,
            parts.port or (443 if parts.scheme == "https" else 80),
            context=context if parts.scheme == "https" else None,
            timeout=timeout,
            connect_timeout=CONNECT_TIMEOUT,
        )
        self.url = url.rstrip("/")
        self.base = parts.path.rstrip("/")
        self.bytes_sent = 0
        self.bytes_received = 0

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = encode_json(body)
        headers = {"Accept": "application/json"}
        try:
            response, raw = self.exchange(method, self.base + path, data, headers, MAX_RESPONSE)
        except ssl.SSLError as exc:
            raise tls_failure(self.url, exc) from None
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected) as exc:
            raise PeerUnreachable(busy(self.url, str(exc) or type(exc).__name__)) from None
        except (OSError, http.client.HTTPException) as exc:
            raise PeerUnreachable(f"{self.url}: {exc}") from None
        self.bytes_sent += len(data or b"") + len(path) + 64
        self.bytes_received += len(raw) + 64
        if len(raw) > MAX_RESPONSE:
            self.close()
            raise PeerRefused(f"{self.url} sent more than {MAX_RESPONSE} bytes")
        try:
            payload = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            if response.status >= 400:
                raise PeerRefused(f"{self.url} answered {response.status}: {raw[:200]!r}") from None
            raise PeerRefused(f"{self.url} answered with malformed JSON") from None
        if response.status >= 400:
            reason = payload.get("reason") if isinstance(payload, dict) else None
            raise PeerRefused(f"{self.url} answered {response.status}: {reason or raw[:200]!r}")
        return payload
