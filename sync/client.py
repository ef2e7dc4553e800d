"""A replication client: JSON over HTTPS with this station's certificate (mutual TLS)."""

from __future__ import annotations

import http.client
import json
import ssl
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pos.ledger.x509 import CA_FILE, CERT_FILE, KEY_FILE
from pos.services.station import TLS_DIR
from sync.errors import PeerRefused, PeerUnreachable

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


class KeptAlive:
    """One HTTP(S) connection kept open between requests. Subclasses open it (`_connection`)."""

    _conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        raise NotImplementedError

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def exchange(
        self, method: str, path: str, data: bytes | None, headers: dict[str, str], limit: int
    ) -> tuple[http.client.HTTPResponse, bytes]:
        """The response and its body (at most `limit` + 1 bytes). A kept-alive socket the
        other side closed meanwhile is replaced once; errors close the connection and rise."""
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


class Peer(KeptAlive):
    """One peer's replication endpoint. Keeps one connection open; counts bytes on the wire."""

    def __init__(
        self, url: str, context: ssl.SSLContext | None, *, timeout: float = TIMEOUT
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise PeerUnreachable(f"{url!r} is not a peer URL (https://HOST:PORT)")
        self.url = url.rstrip("/")
        self.host, self.port = (
            parts.hostname,
            parts.port or (443 if parts.scheme == "https" else 80),
        )
        self.context = context if parts.scheme == "https" else None
        self.timeout = timeout
        self.base = parts.path.rstrip("/")
        self.bytes_sent = 0
        self.bytes_received = 0
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            connect = min(self.timeout, CONNECT_TIMEOUT)
            conn: http.client.HTTPConnection
            if self.context is not None:
                conn = http.client.HTTPSConnection(
                    self.host, self.port, timeout=connect, context=self.context
                )
            else:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=connect)
            self._conn = conn
            conn.connect()  # TCP and the TLS handshake within `connect` seconds
            assert conn.sock is not None
            conn.sock.settimeout(self.timeout)
        return self._conn

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        try:
            response, raw = self.exchange(method, self.base + path, data, headers, MAX_RESPONSE)
        except ssl.SSLError as exc:
            raise PeerRefused(
                f"{self.url} refused our certificate or is not of this hall: {exc.reason or exc}"
            ) from None
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
