"""The manager's phone over HTTPS: a read-only web app beside the station's owner.

Routes (GET and HEAD; every other method is 405, but the sign-in POST):
- `/pair/TOKEN`: the sign-in form of a one-time pairing link, and how to trust the hall's
  certificate (`/pair/TOKEN/hall-web-ca.pem`, its fingerprint);
- `/hall-ca.crt`: the hall's web certificate authority's certificate (public: never a key),
  for anyone to install, so that a phone trusts the hall before (or after) it pairs: the
  manager screen's Phones tab shows its address as a QR code;
- `POST /signin`: badge and PIN against the link's role; a signed session cookie;
- `/`: the dashboard; `/live`: its server-sent events (an update within a publish tick of a new
  event stored here: a sale a booth acknowledged arrives by LAN sync); `/data.json`: the same
  figures as JSON; `/report/day.pdf`, `/report/form.pdf`.
Every route but the pairing ones and the certificate needs a session cookie; the pairing ones
need a link that is still good. Times on every page are on the hall's clock (its time zone).
Sign-in attempts are limited per client address.

The port is on the hall's LAN beside the replication port, in the same process: it has the same
limits (sync.handshakes), so that strangers cannot take the descriptors the hall's sync needs.
TLS handshakes go through a bounded non-blocking pool with a cap per source address; a
connection past its handshake gets one of the worker slots (a cap per source address too) and
is ended when idle; a session keeps at most MAX_STREAMS_PER_SESSION live streams (a new one ends
its oldest).
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import socket
import socketserver
import ssl
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pos.clock import SystemClock
from pos.errors import BadInput, BoothError
from pos.services import dashboard as dashboard_service
from pos.services import reports, web_access
from pos.services.current_session import hall_date
from pos.services.station import Station
from sync.handshakes import Handshakes, LogThrottle, Slots, request_arrives
from web import render, tls

log = logging.getLogger("booth.web")

PUBLISH_TICK = 0.2  # seconds between looks for new events
BEAT = 5.0  # seconds between heartbeats on a live stream
STALE_AFTER = 30.0  # seconds without contact before a station's figures are called stale
SIGNIN_LIMIT = 5  # sign-in attempts per client address ...
SIGNIN_WINDOW = 60.0  # ... per this many seconds
MAX_FORM = 4096
SOCKET_TIMEOUT = 30.0
HANDSHAKE_TIMEOUT = 10.0
# The limits of the port (sync.handshakes). File descriptors: at most MAX_HANDSHAKES in the pool
# and MAX_CONNECTIONS served (each with the station's reader open: a few more), well inside the
# unit's LimitNOFILE beside the replication port's own.
MAX_HANDSHAKES = 128
MAX_HANDSHAKES_PER_SOURCE = 16
MAX_CONNECTIONS = 32  # worker threads
MAX_CONNECTIONS_PER_SOURCE = 12  # a phone's browser opens 6 at most, and its live streams
IDLE_TIMEOUT = 5.0  # a connection with no (next) request within this is ended
MAX_STREAMS_PER_SESSION = 3  # live streams (/live) of one session at once; a 4th ends the 1st
ALLOWED = ("GET", "HEAD")
#: every route a session may read (GET and HEAD); the pairing routes are `/pair/TOKEN` and
#: `/pair/TOKEN/hall-web-ca.pem`; the one POST is `/signin`
ROUTES = ("/", "/live", "/data.json", "/report/day.pdf", "/report/form.pdf")
PAIR_ROUTES = ("/pair/{token}", "/pair/{token}/hall-web-ca.pem")
#: what anyone may read: the hall's web CA certificate (public, as any CA's certificate is)
PUBLIC_ROUTES = (tls.CA_ROUTE,)
CA_TYPE = "application/x-x509-ca-cert"
SIGNIN = "/signin"
#: the section of the dashboard (render.SECTIONS) a role must see to read each route; None: the
#: route shows each role its own sections (the dashboard, its live updates, its JSON)
ROUTE_SECTIONS: dict[str, str | None] = {
    "/": None,
    "/live": None,
    "/data.json": None,
    "/report/day.pdf": "reports",
    "/report/form.pdf": "reports",
}
#: the parts of the day report (the PDFs' source) each section governs: a role that does not
#: see the section gets the report without them (C2's unpunched winners are exceptions too)
REPORT_PARTS = {"exceptions": ("exceptions", "unpunched")}


def _parse_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise BadInput("web", f"{text!r} is not ADDRESS:PORT (e.g. 0.0.0.0:8443)")
    return host.strip("[]"), int(port)


def phone_data(st: Station) -> dict[str, Any]:
    """The dashboard's data as the phone's pages read it: with the hall's time zone, the clock
    its times are shown on."""
    return {**dashboard_service.dashboard(st), "time_zone": st.hall.time_zone}


class Snapshot:
    """The newest dashboard, computed once per change of the ledger for every client."""

    def __init__(self, data: dict[str, Any], seq: int, contacts: str, day: str) -> None:
        self.data, self.seq, self.contacts, self.day = data, seq, contacts, day
        self.version = f"{seq}.{hash((contacts, day)) & 0xFFFFFFFF:x}"


class WebApp:
    def __init__(self, station: Station, address: str) -> None:
        self.station = station
        self.host, self.port = _parse_address(address)
        self.directory = station.directory
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self.snapshot: Snapshot | None = None
        self.attempts: dict[str, deque[float]] = {}
        self._attempts_lock = threading.Lock()
        self._local = threading.local()
        self._writer_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._streams: dict[str, deque[threading.Event]] = {}  # session -> its streams' ends
        self._streams_lock = threading.Lock()
        self.server: WebServer | None = None
        self.ca_pem = b""
        self.ca_fingerprint = ""
        self.ca_name = ""
        self.zone = station.hall.time_zone  # the hall's clock, on every page
        self._writer: Station | None = None
        self.clock = SystemClock()  # how old a station's last contact is: the wall clock's

    # --- the station, as each thread reads it ---------------------------------------------------

    def reader(self) -> Station:
        view: Station | None = getattr(self._local, "view", None)
        if view is None:
            view = self.station.own_connection()
            self._local.view = view
        return view

    def close_reader(self) -> None:
        view: Station | None = getattr(self._local, "view", None)
        if view is not None:
            view.close()
            self._local.view = None

    def writer(self) -> Station:
        if self._writer is None:
            self._writer = self.station.own_connection(write=True)
        return self._writer

    # --- lifetime -----------------------------------------------------------------------------

    @property
    def public_host(self) -> str:
        """The address phones reach: the one served on, or, serving on every address, this
        machine's address on the LAN (the one its default route leaves by)."""
        if self.host not in ("0.0.0.0", "::", ""):
            return self.host
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: only a route is chosen
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"
        finally:
            probe.close()

    @property
    def url(self) -> str:
        return f"https://{self.public_host}:{self.port}"

    def start(self) -> None:
        cert, key = tls.server_files(
            self.directory, self.station.config.hall, self.station.id, self.public_host
        )
        self.ca_pem = tls.web_ca(self.directory, self.station.config.hall)
        self.ca_fingerprint = tls.fingerprint(self.ca_pem)
        self.ca_name = tls.common_name(self.ca_pem)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(cert, key)
        self.server = WebServer((self.host, self.port), self, context)
        self.port = self.server.server_address[1]
        try:
            self._publish()
        finally:
            self.close_reader()  # this thread's: the publisher and each request read on their own
        self._spawn("booth-web-publish", self._publish_forever)
        self._spawn("booth-web", self.server.serve_forever)
        web_access.record_served(self.directory, self.url, self.ca_fingerprint)

    def _spawn(self, name: str, target: Any) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        web_access.forget_served(self.directory)
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        for thread in self._threads:
            thread.join(timeout=10)
        if self._writer is not None:
            self._writer.close()

    # --- publishing ---------------------------------------------------------------------------

    def _publish(self) -> None:
        """A new snapshot when an event was stored here (everything is read again) or a peer
        was reached (only the stations are)."""
        st = self.reader()
        seq, contacts = dashboard_service.changes(st)
        day = hall_date(st, st.clock.now()).isoformat()  # past midnight: the new day's figures
        old = self.snapshot
        if old is not None and (old.seq, old.contacts, old.day) == (seq, contacts, day):
            return
        if old is not None and (old.seq, old.day) == (seq, day):
            data = {**old.data, "stations": dashboard_service.stations(st, old.data["report"])}
        else:
            data = phone_data(st)
            self.zone = data["time_zone"]
        snap = Snapshot(data, seq, contacts, day)
        with self._changed:
            self.snapshot = snap
            self._changed.notify_all()

    def _publish_forever(self) -> None:
        try:
            while not self._stop.wait(PUBLISH_TICK):
                try:
                    self._publish()
                except BoothError as error:
                    log.warning("the web dashboard could not be read: %s", error.message)
                except Exception:
                    log.exception("the web dashboard could not be read")
        finally:
            self.close_reader()

    def wait_change(self, version: str | None, timeout: float) -> Snapshot:
        with self._changed:
            if self.snapshot is None or self.snapshot.version == version:
                self._changed.wait(timeout)
            assert self.snapshot is not None
            return self.snapshot

    def stale(self, data: dict[str, Any]) -> list[str]:
        """Which stations' figures here are stale, and since when (on the hall's clock)."""
        now = self.clock.now()
        out = []
        for s in data.get("stations", []):
            if s["this_station"]:
                continue
            if not s["last_contact"]:
                out.append(f"{s['station']}: not reached from here yet")
                continue
            try:
                at = datetime.fromisoformat(s["last_contact"])
            except ValueError:
                continue
            if at.tzinfo is None:
                at = at.replace(tzinfo=UTC)
            if (now - at).total_seconds() > STALE_AFTER:
                out.append(f"{s['station']}: as of {render.hall_clock(at, self.zone)}")
        return out

    # --- live streams -------------------------------------------------------------------------

    def open_stream(self, session: str) -> threading.Event:
        """A new live stream of `session`: the event that ends it. Past MAX_STREAMS_PER_SESSION
        the session's oldest stream is ended (a page opened again keeps its updates)."""
        ended = threading.Event()
        with self._streams_lock:
            streams = self._streams.setdefault(session, deque())
            streams.append(ended)
            while len(streams) > MAX_STREAMS_PER_SESSION:
                streams.popleft().set()
        with self._changed:
            self._changed.notify_all()  # the ended one stops waiting
        return ended

    def close_stream(self, session: str, ended: threading.Event) -> None:
        with self._streams_lock:
            streams = self._streams.get(session)
            if streams is not None:
                with contextlib.suppress(ValueError):
                    streams.remove(ended)
                if not streams:
                    del self._streams[session]

    def streams(self, session: str) -> int:
        with self._streams_lock:
            return len(self._streams.get(session, ()))

    # --- sign-in rate limit -------------------------------------------------------------------

    def may_try(self, client: str) -> bool:
        now = time.monotonic()
        with self._attempts_lock:
            tries = self.attempts.setdefault(client, deque())
            while tries and now - tries[0] > SIGNIN_WINDOW:
                tries.popleft()
            if len(tries) >= SIGNIN_LIMIT:
                return False
            tries.append(now)
            return True


class WebServer(ThreadingHTTPServer):
    daemon_threads = True
    # Connections waiting to be accepted are the kernel's (no descriptor of this process): a
    # long queue lets a flood wait there rather than be refused and come straight back.
    request_queue_size = 1024

    def __init__(
        self,
        address: tuple[str, int],
        app: WebApp,
        context: ssl.SSLContext,
        *,
        max_handshakes: int = MAX_HANDSHAKES,
        max_handshakes_per_source: int = MAX_HANDSHAKES_PER_SOURCE,
        max_connections: int = MAX_CONNECTIONS,
        max_connections_per_source: int = MAX_CONNECTIONS_PER_SOURCE,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self.app = app
        self.context = context
        self.idle_timeout = idle_timeout
        self.throttle = LogThrottle(log)
        self.slots = Slots(max_connections, min(max_connections_per_source, max_connections))
        super().__init__(address, WebHandler)
        # Every connection's TLS handshake in the pool first (no thread, a bounded number of
        # descriptors); only one that completed it gets a worker slot.
        self.handshakes = Handshakes(
            context,
            timeout=HANDSHAKE_TIMEOUT,
            done=self._handshaken,
            refused=self._refused,
            limit=max_handshakes,
            per_source=max_handshakes_per_source,
            throttle=self.throttle,
        )

    def process_request(self, request: Any, client_address: Any) -> None:
        self.handshakes.add(request, client_address)  # its handshake first, off this thread

    def _handshaken(self, request: ssl.SSLSocket, client_address: Any) -> None:
        refusal = self.slots.take(str(client_address[0]))
        if refusal is not None:
            self.throttle.log(logging.WARNING, "busy", "web: refused %s", refusal)
            self.shutdown_request(request)
            return
        try:
            socketserver.ThreadingMixIn.process_request(self, request, client_address)
        except BaseException:
            self.slots.give(str(client_address[0]))
            raise

    def _refused(self, client_address: Any, reason: str) -> None:
        self.throttle.log(
            logging.INFO, "handshake", "web: refused %s: %s", client_address[0], reason
        )

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.give(str(client_address[0]))

    def finish_request(self, request: Any, client_address: Any) -> None:
        request.settimeout(SOCKET_TIMEOUT)
        try:
            WebHandler(request, client_address, self)
        finally:
            self.app.close_reader()

    def server_close(self) -> None:
        self.handshakes.stop()
        super().server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):  # the phone went away (ssl errors too)
            log.debug("web connection from %s lost", client_address[0], exc_info=True)
            return
        log.warning("web request from %s failed", client_address[0], exc_info=True)


def report_for(role: str, report: dict[str, Any]) -> dict[str, Any]:
    """The day report as `role` may read it: the parts of the sections it does not see
    (REPORT_PARTS) emptied."""
    shown = render.SECTIONS[role]
    scoped = dict(report)
    for section, parts in REPORT_PARTS.items():
        if section not in shown:
            scoped.update({part: [] for part in parts})
    return scoped


def _json(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, default=str).encode()


class WebHandler(BaseHTTPRequestHandler):
    server: WebServer
    protocol_version = "HTTP/1.1"
    server_version = "booth-web"
    sys_version = ""

    @property
    def app(self) -> WebApp:
        return self.server.app

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.client_address[0], *args)

    def handle_one_request(self) -> None:
        if not request_arrives(self.request, self.rfile, self.server.idle_timeout):
            self.close_connection = True  # idle (or gone): its slot is for someone else
            return
        self.request.settimeout(SOCKET_TIMEOUT)
        super().handle_one_request()

    # --- answering ----------------------------------------------------------------------------

    def _headers(self, status: int, ctype: str, length: int | None, nonce: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        script = f"'nonce-{nonce}'" if nonce else "'none'"
        self.send_header(
            "Content-Security-Policy",
            f"default-src 'none'; script-src {script}; style-src {script}; img-src 'self'; "
            "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        )
        self.send_header("Strict-Transport-Security", "max-age=31536000")

    def _send(
        self,
        status: int,
        body: bytes,
        ctype: str = "text/html; charset=utf-8",
        *,
        nonce: str = "",
        extra: dict[str, str] | None = None,
    ) -> None:
        self._headers(status, ctype, len(body), nonce)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _page(self, status: int, html_of: Any, **extra: str) -> None:
        nonce = secrets.token_urlsafe(12)
        self._send(status, html_of(nonce).encode(), nonce=nonce, extra=extra or None)

    def _refuse(self, status: int, title: str, text: str) -> None:
        self._page(status, lambda n: render.message_page(title, text, nonce=n, zone=self.app.zone))

    def _not_allowed(self) -> None:
        self._drain()
        body = render.message_page(
            "Read only",
            "This app only reads: nothing can be changed here.",
            nonce="x",
            zone=self.app.zone,
        ).encode()
        self._headers(HTTPStatus.METHOD_NOT_ALLOWED, "text/html; charset=utf-8", len(body))
        self.send_header("Allow", "GET, HEAD")
        self.end_headers()
        self.wfile.write(body)

    def _drain(self) -> None:
        length = self.headers.get("Content-Length")
        if length and length.isdigit() and int(length) <= MAX_FORM:
            self.rfile.read(int(length))
        elif length:
            self.close_connection = True

    # --- who is asking ------------------------------------------------------------------------

    def _session(self) -> web_access.WebSession | None:
        raw = self.headers.get("Cookie")
        if not raw:
            return None
        try:
            jar = SimpleCookie(raw)
        except CookieError:
            return None
        morsel = jar.get(web_access.COOKIE)
        if morsel is None:
            return None
        return web_access.check_cookie(self.app.reader(), morsel.value)

    # --- methods ------------------------------------------------------------------------------

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        try:
            if path.startswith("/pair/"):
                self._pairing(path)
                return
            if path == tls.CA_ROUTE:
                self._ca_certificate()
                return
            session = self._session()
            if session is None:
                self._refuse(
                    HTTPStatus.UNAUTHORIZED,
                    "Not signed in",
                    "Pair this phone: on the manager screen, or with 'booth web pair', open "
                    "the pairing link and sign in with your badge and PIN.",
                )
                return
            handlers: tuple[Callable[[web_access.WebSession], None], ...] = (
                self._dashboard,
                self._live,
                self._data,
                self._day_pdf,
                self._form_pdf,
            )
            route = dict(zip(ROUTES, handlers, strict=True)).get(path)
            if route is None:
                self._refuse(
                    HTTPStatus.NOT_FOUND,
                    "Not found",
                    "There is no such page here: go back to the hall's page.",
                )
                return
            needed = ROUTE_SECTIONS[path]
            if needed is not None and needed not in render.SECTIONS[session.role]:
                self._refuse(
                    HTTPStatus.FORBIDDEN, "Not for this role", f"A {session.role} has no {path}."
                )
                return
            route(session)
        except BoothError as error:
            self._refuse(HTTPStatus.SERVICE_UNAVAILABLE, "Not available", error.message)

    def do_POST(self) -> None:
        if urlsplit(self.path).path != SIGNIN:
            self._not_allowed()
            return
        self._signin()

    def _other(self) -> None:
        self._not_allowed()

    def __getattr__(self, name: str) -> Any:
        # every other method, named or not (PUT, DELETE, PROPFIND ...): read only
        if name.startswith("do_"):
            return self._other
        raise AttributeError(name)

    # --- pairing and sign-in --------------------------------------------------------------------

    def _pairing(self, path: str) -> None:
        parts = path.split("/")  # '', 'pair', TOKEN[, 'hall-web-ca.pem']
        token = parts[2] if len(parts) > 2 else ""
        try:
            role = web_access.pairing_role(self.app.reader(), token)
        except web_access.SignInRefused as refusal:
            self._refuse(HTTPStatus.FORBIDDEN, "Pairing refused", refusal.message)
            return
        if len(parts) == 4 and parts[3] == "hall-web-ca.pem":
            self._send(
                HTTPStatus.OK,
                self.app.ca_pem,
                CA_TYPE,
                extra={"Content-Disposition": 'attachment; filename="hall-web-ca.pem"'},
            )
            return
        if len(parts) != 3:
            self._refuse(HTTPStatus.NOT_FOUND, "Not found", "No such page.")
            return
        self._page(HTTPStatus.OK, lambda n: self._pairing_page(role, token, n))

    def _pairing_page(self, role: str, token: str, nonce: str, error: str | None = None) -> str:
        return render.pairing_page(
            role,
            token,
            self.app.ca_fingerprint,
            nonce=nonce,
            error=error,
            zone=self.app.zone,
            ca_name=self.app.ca_name,
        )

    def _ca_certificate(self) -> None:
        """The hall's web CA certificate, the public part only (tls.web_ca: a certificate, no
        key), as phones install a CA: Android from Settings, an iPhone as a profile."""
        self._send(
            HTTPStatus.OK,
            self.app.ca_pem,
            CA_TYPE,
            extra={"Content-Disposition": f'attachment; filename="{tls.CA_FILE_NAME}"'},
        )

    def _signin(self) -> None:
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_FORM:
            self.close_connection = True
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "Refused", "The form is too big.")
            return
        form = parse_qs(self.rfile.read(int(length)).decode(errors="replace"))
        token = form.get("token", [""])[0]
        badge = form.get("badge", [""])[0]
        pin = form.get("pin", [""])[0]
        if not self.app.may_try(self.client_address[0]):
            self._refuse(
                HTTPStatus.TOO_MANY_REQUESTS,
                "Too many tries",
                f"At most {SIGNIN_LIMIT} sign-ins a minute from one phone: wait a minute.",
            )
            return
        with self.app._writer_lock:
            try:
                session, cookie = web_access.sign_in(self.app.writer(), token, badge, pin)
            except web_access.SignInRefused as refusal:
                why = refusal.message
                try:
                    role = web_access.pairing_role(self.app.writer(), token)
                except web_access.SignInRefused:
                    self._refuse(HTTPStatus.FORBIDDEN, "Sign-in refused", why)
                    return
                self._page(
                    HTTPStatus.FORBIDDEN, lambda n: self._pairing_page(role, token, n, error=why)
                )
                return
        log.info("web sign-in: %s as %s (session %s)", session.badge, session.role, session.id)
        self._send(
            HTTPStatus.SEE_OTHER,
            b"",
            extra={
                "Location": "/",
                "Set-Cookie": f"{web_access.COOKIE}={cookie}; Path=/; Secure; HttpOnly; "
                f"SameSite=Strict; Max-Age={web_access.SESSION_TTL}",
            },
        )

    # --- the dashboard --------------------------------------------------------------------------

    def _snapshot(self) -> Snapshot:
        snap = self.app.snapshot
        if snap is None:
            self.app._publish()
            snap = self.app.snapshot
        assert snap is not None
        return snap

    def _dashboard(self, session: web_access.WebSession) -> None:
        snap = self._snapshot()
        self._page(
            HTTPStatus.OK,
            lambda n: render.dashboard_page(
                snap.data, session.role, session.badge, snap.version, nonce=n
            ),
        )

    def _data(self, session: web_access.WebSession) -> None:
        data = self._snapshot().data
        shown = render.SECTIONS[session.role]
        keys = {"takings": "report", "deals": "deals", "stations": "stations"}
        keys |= {"exceptions": "exceptions", "cash": "cash"}
        snap = self._snapshot()
        out = {"role": session.role, "version": snap.version, "station": data["station"]}
        out |= {keys[s]: data[keys[s]] for s in shown if s in keys}
        self._send(HTTPStatus.OK, _json(out), "application/json")

    def _day_pdf(self, session: web_access.WebSession) -> None:
        self._pdf(session, "day")

    def _form_pdf(self, session: web_access.WebSession) -> None:
        self._pdf(session, "form")

    def _pdf(self, session: web_access.WebSession, which: str) -> None:
        from pos.services.report_pdf import write_day_pdf, write_form_pdf

        st = self.app.reader()
        report = report_for(session.role, reports.day_report(st, None, None))
        with tempfile.TemporaryDirectory(prefix="booth-web-") as tmp:
            path = Path(tmp) / f"{which}.pdf"
            (write_day_pdf if which == "day" else write_form_pdf)(report, path)
            body = path.read_bytes()
        name = f"{which}-{report['date']}.pdf"
        self._send(
            HTTPStatus.OK,
            body,
            "application/pdf",
            extra={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    def _live(self, session: web_access.WebSession) -> None:
        self._headers(HTTPStatus.OK, "text/event-stream", None)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        sent: str | None = None
        last_check = time.monotonic()
        ended = self.app.open_stream(session.id)
        try:
            while not self.app._stop.is_set():
                if ended.is_set():  # the session opened more streams: this, its oldest, ends
                    self.wfile.write(b"event: replaced\ndata: {}\n\n")
                    self.wfile.flush()
                    return
                snap = self.app.wait_change(sent, BEAT)
                if time.monotonic() - last_check >= BEAT:
                    last_check = time.monotonic()
                    if self._session() is None:
                        self.wfile.write(b"event: signed-out\ndata: {}\n\n")
                        self.wfile.flush()
                        return
                if snap.version != sent:
                    payload = {
                        "version": snap.version,
                        "html": render.fragment(snap.data, session.role),
                        "stale": self.app.stale(snap.data),
                    }
                    self.wfile.write(b"event: update\ndata: " + _json(payload) + b"\n\n")
                    sent = snap.version
                else:
                    self.wfile.write(b"event: beat\ndata: {}\n\n")
                self.wfile.flush()
        except (OSError, ssl.SSLError):
            return
        finally:
            self.app.close_stream(session.id, ended)


def start_web(station: Station, address: str) -> WebApp:
    """The `booth.web` entry point: serve the web app for `station` on ADDRESS:PORT."""
    app = WebApp(station, address)
    app.start()
    return app
