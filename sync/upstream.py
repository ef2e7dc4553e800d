"""The head-office upstream: a CouchDB database over HTTPS with a user name and password, to
which a station pushes every event it holds with the CouchDB replication protocol.

The settings (URL, user, password, a private CA) live in the station directory in
`upstream.json`, mode 0600: they are this station's secret and never enter the ledger, which
replicates to every station. A push reads the checkpoint (a `_local` document upstream and the
same position here, the rowid of this station's event table), asks `_revs_diff` which of the
next batch the head office lacks, sends those with `_bulk_docs` (`new_edits: false`: each event
keeps its one revision), then moves the checkpoint, upstream first. The checkpoint here moves
only after the head office confirmed the batch; a second push copies nothing.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import ssl
import threading
from collections.abc import Callable
from contextlib import nullcontext, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from pos.errors import BadInput, StorageFailure
from pos.ledger import Event, Ledger
from pos.services.station import write_private
from sync import docs
from sync.client import KeptAlive
from sync.errors import UpstreamRefused, UpstreamUnreachable

SETTINGS_FILE = "upstream.json"
PASSWORD_ENV = "BOOTH_UPSTREAM_PASSWORD"
BATCH = 500
TIMEOUT = 60.0
CONNECT_TIMEOUT = 5.0  # within the service's 10 s to stop: a TCP connect cannot be aborted
MAX_RESPONSE = 64 * 1024 * 1024


# --- settings ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UpstreamSettings:
    url: str
    user: str
    password: str
    ca_pem: str | None = None  # a private head-office CA; None: the system's CAs

    def public(self) -> dict[str, Any]:
        """What may be shown: never the password."""
        return {"url": self.url, "user": self.user, "ca": "private" if self.ca_pem else "system"}


def check_url(url: str) -> str:
    """The upstream database's URL, normalised; refused unless https://HOST[:PORT]/DATABASE."""
    parts = urlsplit(url.strip())
    if parts.scheme != "https":
        raise BadInput("url", f"{url!r} is not https://: the head office takes HTTPS only")
    if not parts.hostname:
        raise BadInput("url", f"{url!r} names no host")
    if parts.username is not None or parts.password is not None:
        raise BadInput("url", f"{url!r} carries credentials: give --user and the password apart")
    if parts.query or parts.fragment:
        raise BadInput("url", f"{url!r} has a query or fragment; give the database URL only")
    if not parts.path.strip("/"):
        raise BadInput("url", f"{url!r} names no database (https://HOST:PORT/DATABASE)")
    try:
        parts.port  # noqa: B018  (raises on a malformed port)
    except ValueError:
        raise BadInput("url", f"{url!r} has a malformed port") from None
    return url.strip().rstrip("/")


def read_ca_file(path: Path) -> str:
    """A PEM file of one or more CA certificates, checked by loading it."""
    try:
        pem = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput("ca-file", f"cannot read {path}: {exc}") from None
    try:
        ssl.create_default_context(cadata=pem)
    except (ssl.SSLError, ValueError):
        raise BadInput("ca-file", f"{path} holds no PEM certificate") from None
    return pem


def make_settings(url: str, user: str, password: str, ca_pem: str | None) -> UpstreamSettings:
    if not user.strip() or ":" in user:
        raise BadInput("user", f"{user!r} is not a user name (non-empty, no ':')")
    if not password:
        raise BadInput("password", "the password is empty")
    return UpstreamSettings(check_url(url), user.strip(), password, ca_pem)


def save_settings(directory: Path, settings: UpstreamSettings) -> None:
    data = {
        "url": settings.url,
        "user": settings.user,
        "password": settings.password,
        "ca_pem": settings.ca_pem,
    }
    path = directory / SETTINGS_FILE
    write_private(path, json.dumps(data, indent=2) + "\n", 0o600)
    os.chmod(path, 0o600)  # a left-over temp file would have kept its own mode


def load_settings(directory: Path) -> UpstreamSettings | None:
    path = directory / SETTINGS_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise StorageFailure(f"cannot read {path}: {exc}") from None
    try:
        return UpstreamSettings(
            check_url(data["url"]), data["user"], data["password"], data.get("ca_pem")
        )
    except (KeyError, TypeError):
        raise BadInput("upstream", f"{path} is not an upstream settings file") from None


def remove_settings(directory: Path) -> bool:
    try:
        (directory / SETTINGS_FILE).unlink()
    except FileNotFoundError:
        return False
    return True


# --- the head office's HTTPS endpoint ----------------------------------------------------------


def tls_context(settings: UpstreamSettings) -> ssl.SSLContext:
    """The server's certificate verified against the system's CAs or the private one, and its
    name (or IP address) checked."""
    context = ssl.create_default_context(cadata=settings.ca_pem)
    context.check_hostname = True
    context.verify_mode = ssl.CERT_REQUIRED
    return context


class Upstream(KeptAlive):
    """The upstream database: JSON over HTTPS with basic auth, one kept-alive connection."""

    def __init__(self, settings: UpstreamSettings, *, timeout: float = TIMEOUT) -> None:
        parts = urlsplit(settings.url)
        assert parts.hostname is not None, "check_url() first"
        self.settings = settings
        self.url = settings.url
        self.host, self.port = parts.hostname, parts.port or 443
        self.database = parts.path.rstrip("/")
        self.timeout = timeout
        self.context = tls_context(settings)
        token = base64.b64encode(f"{settings.user}:{settings.password}".encode()).decode()
        self._authorization = f"Basic {token}"
        self.bytes_sent = 0
        self.bytes_received = 0
        self.requests = 0
        self._conn: http.client.HTTPSConnection | None = None

    def _connection(self) -> http.client.HTTPSConnection:
        if self._conn is None:
            connect = min(self.timeout, CONNECT_TIMEOUT)
            conn = http.client.HTTPSConnection(
                self.host, self.port, timeout=connect, context=self.context
            )
            raw = socket.create_connection((self.host, self.port), connect)
            # The handshake runs on a socket already in `conn`, so abort() can end it too.
            conn.sock = self.context.wrap_socket(
                raw, server_hostname=self.host, do_handshake_on_connect=False
            )
            self._conn = conn
            conn.sock.do_handshake()
            conn.sock.settimeout(self.timeout)
        return self._conn

    def abort(self) -> None:
        """From another thread: end the request in progress at once (a service stopping)."""
        conn = self._conn
        if conn is not None and conn.sock is not None:
            with suppress(OSError):  # already closed
                # the plain socket's shutdown: the TLS one's would drop its state under the
                # thread still using it
                socket.socket.shutdown(conn.sock, socket.SHUT_RDWR)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, JSON answer) of `METHOD {database}{path}`; 401/403 and TLS failures raise."""
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        headers = {"Accept": "application/json", "Authorization": self._authorization}
        if data is not None:
            headers["Content-Type"] = "application/json"
        try:
            response, raw = self.exchange(method, self.database + path, data, headers, MAX_RESPONSE)
        except ssl.SSLCertVerificationError as exc:
            raise UpstreamRefused(
                f"the head office's certificate at {self.url} does not verify: "
                f"{exc.verify_message or exc.reason} (a private CA needs --ca-file)"
            ) from None
        except ssl.SSLError as exc:
            raise UpstreamRefused(f"TLS with the head office at {self.url} failed: {exc}") from None
        except (OSError, http.client.HTTPException) as exc:
            raise UpstreamUnreachable(
                f"the head office at {self.url} cannot be reached: {exc}"
            ) from None
        self.requests += 1
        self.bytes_sent += len(data or b"") + len(path)
        self.bytes_received += len(raw)
        if response.status in (401, 403):
            self.close()
            raise UpstreamRefused(
                f"the head office refused the credentials for {self.settings.user} at {self.url} "
                f"(HTTP {response.status})"
            )
        if len(raw) > MAX_RESPONSE:
            self.close()
            raise UpstreamRefused(
                f"the head office at {self.url} sent more than {MAX_RESPONSE} bytes"
            )
        try:
            payload = json.loads(raw) if raw else None
        except (ValueError, RecursionError):
            raise UpstreamRefused(
                f"the head office at {self.url} answered {method} {path or '/'} with "
                f"HTTP {response.status} and no JSON: {raw[:200]!r}"
            ) from None
        return response.status, payload

    def expect(self, method: str, path: str, body: Any = None, ok: tuple[int, ...] = ()) -> Any:
        """The answer of a request that must succeed (2xx, or a status in `ok`)."""
        status, payload = self.request(method, path, body)
        if not (200 <= status < 300 or status in ok):
            reason = payload.get("reason") if isinstance(payload, dict) else payload
            raise UpstreamRefused(
                f"the head office at {self.url} answered {method} {path or '/'} with "
                f"HTTP {status}: {reason}"
            )
        return payload

    def ensure_database(self) -> bool:
        """True if the database had to be created. A member who may not create databases only
        needs to read it: GET first."""
        status, _ = self.request("GET", "")
        if status == 200:
            return False
        if status != 404:
            self.expect("GET", "")
        self.expect("PUT", "", ok=(412,))  # 412: made meanwhile
        return True

    def get_local(self, local_id: str) -> dict[str, Any] | None:
        status, payload = self.request("GET", f"/_local/{quote(local_id, safe=':')}")
        if status == 404:
            return None
        if status != 200 or not isinstance(payload, dict):
            self.expect("GET", f"/_local/{quote(local_id, safe=':')}")
        return payload if isinstance(payload, dict) else None

    def put_local(self, local_id: str, doc: dict[str, Any]) -> str:
        answer = self.expect("PUT", f"/_local/{quote(local_id, safe=':')}", doc)
        rev = answer.get("rev") if isinstance(answer, dict) else None
        if not isinstance(rev, str):
            raise UpstreamRefused(f"the head office at {self.url} kept no revision of {local_id}")
        return rev

    def missing(self, revs: dict[str, str]) -> set[str]:
        """The ids among `revs` ({id: rev}) whose revision the head office lacks."""
        answer = self.expect("POST", "/_revs_diff", {key: [rev] for key, rev in revs.items()})
        if not isinstance(answer, dict):
            raise UpstreamRefused(f"the head office at {self.url} sent a malformed _revs_diff")
        return {
            key
            for key, entry in answer.items()
            if key in revs and isinstance(entry, dict) and revs[key] in entry.get("missing", ())
        }

    def all_docs(self, startkey: str, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` rows of `_all_docs` in id order from `startkey` (inclusive; "" from the
        first), each with its document. Reads only."""
        query = f"?include_docs=true&limit={limit}"
        if startkey:
            query += "&startkey=" + quote(json.dumps(startkey), safe="")
        status, payload = self.request("GET", "/_all_docs" + query)
        if status == 404:
            raise UpstreamRefused(f"the head office has no database at {self.url}")
        if status != 200:
            self.expect("GET", "/_all_docs" + query)
        rows = payload.get("rows") if isinstance(payload, dict) else None
        if not isinstance(rows, list):
            raise UpstreamRefused(f"the head office at {self.url} sent a malformed _all_docs")
        return [row for row in rows if isinstance(row, dict)]

    def write_docs(self, batch: list[dict[str, Any]]) -> None:
        answer = self.expect("POST", "/_bulk_docs", {"docs": batch, "new_edits": False})
        if not isinstance(answer, list):
            raise UpstreamRefused(f"the head office at {self.url} sent a malformed _bulk_docs")
        failed = [entry for entry in answer if isinstance(entry, dict) and "error" in entry]
        if failed:
            first = failed[0]
            raise UpstreamRefused(
                f"the head office at {self.url} refused {len(failed)} document(s), first "
                f"{first.get('id')}: {first.get('error')} {first.get('reason', '')}".rstrip()
            )


# --- pushing -----------------------------------------------------------------------------------


@dataclass
class PushResult:
    url: str
    station: str
    created: bool = False  # the database was made by this push
    since: int = 0  # this station's event rowid up to which the head office holds everything
    examined: int = 0
    written: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "station": self.station,
            "created": self.created,
            "since": self.since,
            "examined": self.examined,
            "written": self.written,
            "bytes_sent": self.bytes_sent,
            "bytes_received": self.bytes_received,
            "at": self.at,
        }


def checkpoint_id(station: str, hall: str) -> str:
    return f"booth-push:{station}:{hall}"


def last_push(ledger: Ledger, hall: str) -> dict[str, Any] | None:
    """This station's checkpoint and the figures of its last push (None: never pushed)."""
    row = ledger.conn.execute(
        "SELECT doc FROM sync_local WHERE id = ?", (checkpoint_id(ledger.station, hall),)
    ).fetchone()
    if row is None:
        return None
    value: dict[str, Any] = json.loads(row[0])
    return value


def _write_local(ledger: Ledger, hall: str, result: PushResult) -> None:
    with ledger.transaction():
        ledger.conn.execute(
            "INSERT OR REPLACE INTO sync_local VALUES (?, '0-1', ?)",
            (checkpoint_id(ledger.station, hall), json.dumps(result.to_dict())),
        )


def _events_after(ledger: Ledger, rowid: int, limit: int) -> list[tuple[int, Event]]:
    rows = ledger.conn.execute(
        "SELECT rowid, origin, seq, type, hlc, prev, body, hash, sig FROM events "
        "WHERE rowid > ? ORDER BY rowid LIMIT ?",
        (rowid, limit),
    ).fetchall()
    return [(row[0], Event(*row[1:])) for row in rows]


def push(
    ledger: Ledger,
    settings: UpstreamSettings,
    *,
    hall: str,
    lock: threading.Lock | None = None,
    batch: int = BATCH,
    stopping: Callable[[], bool] = lambda: False,
    upstream: Upstream | None = None,
) -> PushResult:
    """Copy to the head office every event here it lacks, in batches; resumable.

    `lock` guards this ledger's connection when other threads share it; the network is never
    waited on while it is held. `stopping` is asked between batches, and a service stopping
    can `abort()` the `upstream` it passed in."""
    guard = lock or nullcontext()
    upstream = upstream or Upstream(settings)
    key = checkpoint_id(ledger.station, hall)
    result = PushResult(url=settings.url, station=ledger.station)
    try:
        result.created = upstream.ensure_database()
        remote = upstream.get_local(key) or {}
        with guard:
            local = last_push(ledger, hall) or {}
        # Either side may have lost its checkpoint (a wiped database, a restored station): start
        # from the smaller, which only costs a _revs_diff over events the head office holds.
        here = int(local.get("since", 0)) if local.get("url") == settings.url else 0
        since = min(here, int(remote.get("since", 0)))
        remote_rev = remote.get("_rev")
        while not stopping():
            with guard:
                rows = _events_after(ledger, since, batch)
            if not rows:
                break
            revs = {docs.doc_id(e.origin, e.seq): docs.rev_of(e.hash) for _, e in rows}
            lacking = upstream.missing(revs)
            if lacking:
                upstream.write_docs(
                    [
                        docs.to_doc(event, revisions=True)
                        for _, event in rows
                        if docs.doc_id(event.origin, event.seq) in lacking
                    ]
                )
            since = rows[-1][0]
            checkpoint: dict[str, Any] = {
                "since": since,
                "station": ledger.station,
                "hall": hall,
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            if isinstance(remote_rev, str):
                checkpoint["_rev"] = remote_rev
            remote_rev = upstream.put_local(key, checkpoint)
            result.examined += len(rows)
            result.written += len(lacking)
            result.since = since
            result.bytes_sent, result.bytes_received = upstream.bytes_sent, upstream.bytes_received
            result.at = checkpoint["at"]
            with guard:
                _write_local(ledger, hall, result)
            if len(rows) < batch:
                break
        result.since = since
        result.bytes_sent, result.bytes_received = upstream.bytes_sent, upstream.bytes_received
        result.at = datetime.now(UTC).isoformat(timespec="seconds")
        with guard:
            _write_local(ledger, hall, result)
    finally:
        upstream.close()
    return result
