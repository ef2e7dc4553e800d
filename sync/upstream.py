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
import ssl
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from pos.clock import Clock, SystemClock
from pos.errors import BadInput, StorageFailure
from pos.ledger import Event, Ledger, replication
from pos.services.inputs import CA_MAX, read_input_text
from pos.services.station import write_private
from sync import docs, protocol
from sync.client import Connection, encode_json
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
    pem = read_input_text(path, "ca-file", limit=CA_MAX)
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


class Upstream(Connection):
    """The upstream database: JSON over HTTPS with basic auth, one kept-alive connection."""

    def __init__(self, settings: UpstreamSettings, *, timeout: float = TIMEOUT) -> None:
        parts = urlsplit(settings.url)
        assert parts.hostname is not None, "check_url() first"
        super().__init__(
            parts.hostname,
            parts.port or 443,
            context=tls_context(settings),
            timeout=timeout,
            connect_timeout=CONNECT_TIMEOUT,
        )
        self.settings = settings
        self.url = settings.url
        self.database = parts.path.rstrip("/")
        token = base64.b64encode(f"{settings.user}:{settings.password}".encode()).decode()
        self._authorization = f"Basic {token}"
        self.bytes_sent = 0
        self.bytes_received = 0
        self.requests = 0

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, JSON answer) of `METHOD {database}{path}`; 401/403 and TLS failures raise."""
        data = encode_json(body)
        headers = {"Accept": "application/json", "Authorization": self._authorization}
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
        answer = self.expect("POST", "/_revs_diff", protocol.revs_diff_request(revs))
        return protocol.read_revs_diff(answer, revs, self.url)

    def all_docs(self, startkey: str, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` rows of `_all_docs` in id order from `startkey` (inclusive; "" from the
        first), each with its document. Reads only."""
        query = protocol.all_docs_query(startkey, limit)
        status, payload = self.request("GET", "/_all_docs" + query)
        if status == 404:
            raise UpstreamRefused(f"the head office has no database at {self.url}")
        if status != 200:
            self.expect("GET", "/_all_docs" + query)
        return protocol.read_all_docs(payload, self.url)

    def write_events(self, events: list[Event]) -> None:
        """Store `events` upstream as they are (`new_edits: false`); refused unless every one
        was stored."""
        answer = self.expect("POST", "/_bulk_docs", protocol.bulk_docs_request(events))
        protocol.read_bulk_docs(answer, self.url)


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


checkpoint_id = protocol.push_checkpoint_id


def last_push(ledger: Ledger, hall: str) -> dict[str, Any] | None:
    """This station's checkpoint and the figures of its last push (None: never pushed)."""
    return replication.local_doc(ledger.conn, checkpoint_id(ledger.station, hall))


def _write_local(ledger: Ledger, hall: str, result: PushResult) -> None:
    with ledger.transaction():
        replication.put_local_doc(
            ledger.conn, checkpoint_id(ledger.station, hall), result.to_dict()
        )


def push(
    ledger: Ledger,
    settings: UpstreamSettings,
    *,
    hall: str,
    lock: threading.Lock | None = None,
    batch: int = BATCH,
    stopping: Callable[[], bool] = lambda: False,
    upstream: Upstream | None = None,
    clock: Clock | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PushResult:
    """Copy to the head office every event here it lacks, in batches; resumable.

    `lock` guards this ledger's connection when other threads share it; the network is never
    waited on while it is held. `stopping` is asked between batches, and a service stopping
    can `abort()` the `upstream` it passed in. `clock` stamps the checkpoints.
    `progress(done, total)`: this station's events examined so far, of those after the
    checkpoint."""
    clock = clock or SystemClock()
    guard = lock or nullcontext()
    upstream = upstream or Upstream(settings)
    key = checkpoint_id(ledger.station, hall)
    result = PushResult(url=settings.url, station=ledger.station)
    try:
        result.created = upstream.ensure_database()
        remote = upstream.get_local(key) or {}
        with guard:
            local = last_push(ledger, hall) or {}
        since = protocol.push_start(local, remote, settings.url)
        start, end = since, 0
        if progress is not None:
            with guard:
                end = replication.update_seq(ledger.conn)
        remote_rev = remote.get("_rev")
        while not stopping():
            with guard:
                rows = replication.changes(ledger.conn, since, batch)
            if not rows:
                break
            events = [event for _, event in rows]
            revs = protocol.revs_of(events)
            lacking = upstream.missing(revs)
            if lacking:
                upstream.write_events(
                    [e for e in events if docs.doc_id(e.origin, e.seq) in lacking]
                )
            since = rows[-1][0]
            checkpoint = protocol.push_checkpoint(
                since=since, station=ledger.station, hall=hall, now=clock.now(), rev=remote_rev
            )
            remote_rev = upstream.put_local(key, checkpoint)
            result.examined += len(rows)
            if progress is not None:
                progress(min(since, end) - start, max(end - start, 0))
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
        result.at = protocol.stamp(clock.now())
        with guard:
            _write_local(ledger, hall, result)
    finally:
        upstream.close()
    return result
