"""Benchmark (run by hand): the manager's phone with 1,000,000 events in the ledger.

- time to first byte and to the full page (`GET /`, a new TLS connection each time: the page
  inlines its style and script, so the page is the whole load), against the same bytes served
  by a bare stdlib HTTPS server with the same certificate, in the same run; and the same in
  Debian's chromium (headless): to the first byte and to the load event;
- the update latency, p50 and p99: from the commit of a sale (as the replicator applies a
  booth's event) to its update on a live stream (`/live`), against a bare server-sent-events
  loop polling the same ledger at the same tick and sending a byte, in the same run.

The ledger is bench/report.py's (cached under bench/results/cache/): a booth holding 1,000,000
events over 200 days; the dashboard shows its busiest, last day. The booth's web certificate is
issued by the hall's web CA at the manager (as `booth serve --web` does there).

    .venv/bin/python bench/web.py [--events N] [--rounds N] [--updates N] [--rebuild]
        [--no-browser]
"""

from __future__ import annotations

import sys
from pathlib import Path

# This script is bench/web.py: with bench/ first on the path, `import web` would find it, not
# the web package. The package first, then the benchmark's own helpers.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _BENCH]
from web import server as web_server  # noqa: E402
from web import tls  # noqa: E402
from web.server import WebApp  # noqa: E402

sys.path.insert(0, str(_BENCH))

import argparse  # noqa: E402
import http.client  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import ssl  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402
from typing import Any  # noqa: E402

import harness  # noqa: E402
import report  # noqa: E402
from harness import MANAGER, SELLER  # noqa: E402

from pos.domain.pins import hash_pin  # noqa: E402
from pos.ledger import replication  # noqa: E402
from pos.services import web_access  # noqa: E402
from pos.services.station import HALL_KEY_FILE, LEDGER_FILE, Station  # noqa: E402

PIN = "2468"


def _get(port: int, context: ssl.SSLContext, cookie: str | None) -> tuple[float, float, int]:
    """(seconds to the first byte, seconds to the whole page, bytes) on a new connection."""
    start = time.perf_counter()
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30)
    try:
        headers = {"Cookie": f"{web_access.COOKIE}={cookie}"} if cookie else {}
        conn.request("GET", "/", headers=headers)
        answer = conn.getresponse()  # the status line and headers: the first bytes
        first = time.perf_counter() - start
        body = answer.read()
        assert answer.status == 200, answer.status
        return first, time.perf_counter() - start, len(body)
    finally:
        conn.close()


class _Static(BaseHTTPRequestHandler):
    """The baseline: the same page's bytes, and a stream that polls the ledger."""

    server: Any
    protocol_version = "HTTP/1.1"

    def log_message(self, *_: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/live":
            self._live()
            return
        body = self.server.page
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _live(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        conn = replication.open_reader(self.server.ledger)
        seen = replication.update_seq(conn)
        try:
            while not self.server.stopping.is_set():
                time.sleep(web_server.PUBLISH_TICK)
                seq = replication.update_seq(conn)
                if seq != seen:
                    seen = seq
                    self.wfile.write(b"event: update\ndata: {}\n\n")
                    self.wfile.flush()
        except OSError:
            pass
        finally:
            conn.close()


class _TlsServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, context: ssl.SSLContext, page: bytes, ledger: Path) -> None:
        self.context, self.page, self.ledger = context, page, ledger
        self.stopping = threading.Event()
        super().__init__(("127.0.0.1", 0), _Static)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a browser that went on to the next page: nothing to report

    def get_request(self) -> tuple[socket.socket, Any]:
        raw, address = self.socket.accept()
        return self.context.wrap_socket(raw, server_side=True), address


class Stream:
    """A live stream's client: the time each update arrived."""

    def __init__(self, port: int, context: ssl.SSLContext, cookie: str | None) -> None:
        self.arrived: list[float] = []
        self.ready = threading.Event()
        self.conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=60)
        headers = {"Cookie": f"{web_access.COOKIE}={cookie}"} if cookie else {}
        self.conn.request("GET", "/live", headers=headers)
        self.answer = self.conn.getresponse()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for line in self.answer.fp:
                if line.startswith(b"event: update"):
                    self.arrived.append(time.perf_counter())
                    self.ready.set()
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        with_socket = self.conn.sock
        if with_socket is not None:
            with_socket.shutdown(socket.SHUT_RDWR)
        self.conn.close()


def _latencies(st: Station, streams: list[Stream], updates: int, session: str) -> list[list[float]]:
    """Append `updates` sales one by one; per stream, seconds from each commit to its update."""
    receipt = 10_000_000
    out: list[list[float]] = [[] for _ in streams]
    for _ in range(updates):
        counts = [len(s.arrived) for s in streams]
        receipt += 1
        with st.ledger.transaction():
            st.append(
                "TicketsSold",
                {**harness.sale_body(receipt), "session": session, "seller": SELLER},
            )
        committed = time.perf_counter()
        deadline = committed + 10
        while any(len(s.arrived) <= n for s, n in zip(streams, counts, strict=True)):
            assert time.perf_counter() < deadline, "an update did not arrive within 10 s"
            time.sleep(0.001)
        for i, (s, n) in enumerate(zip(streams, counts, strict=True)):
            out[i].append(s.arrived[n] - committed)
        time.sleep(0.05)
    return out


def _in_chromium(args: Any, app: WebApp, bare_port: int, cookie: str) -> None:
    """Time to first byte and to the load event in Debian's chromium (headless, trusting the
    hall's web CA as a paired phone does), the web app against the bare server's same page."""
    sys.path.insert(0, str(_BENCH.parent))
    from tests.web.phone import chromium, trust_in_nss

    timing = (
        "var n = performance.getEntriesByType('navigation')[0];"
        "return [n.responseStart - n.startTime, n.loadEventEnd - n.startTime];"
    )
    with tempfile.TemporaryDirectory() as home:
        trust_in_nss(Path(home), app.ca_pem)
        with chromium(Path(home)) as driver:
            driver.get(f"{app.url}/signed-out")
            driver.add_cookie(
                {"name": web_access.COOKIE, "value": cookie, "secure": True, "httpOnly": True}
            )
            bare_url = f"https://127.0.0.1:{bare_port}/"
            got: dict[str, list[tuple[float, float]]] = {"web": [], "bare": []}
            for i in range(args.rounds + 3):
                order = [("web", f"{app.url}/"), ("bare", bare_url)]
                for name, url in order if i % 2 else reversed(order):
                    driver.get(url)
                    first, loaded = driver.execute_script(timing)
                    if i >= 3:
                        got[name].append((first / 1000, loaded / 1000))
    for n, label in ((0, "time to first byte"), (1, "time to the load event")):
        web = statistics.median(x[n] for x in got["web"])
        base = statistics.median(x[n] for x in got["bare"])
        print(
            f"  chromium, {label}: web {web * 1000:.1f} ms, bare HTTPS {base * 1000:.1f} ms "
            f"(median of {args.rounds}): {web / base:.2f}x"
        )


def _q(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--updates", type=int, default=100)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached ledger")
    parser.add_argument(
        "--no-browser",
        dest="browser",
        action="store_false",
        help="leave out the page load in Debian's chromium (make test installs it)",
    )
    args = parser.parse_args()
    harness.print_header("web: the manager's phone against bare stdlib HTTPS, same run")
    hall, manifest = harness.cached_hall(
        "report", report.VERSION, args.events, report.build, rebuild=args.rebuild
    )
    harness.print_cached("ledger", args.events, manifest)
    day = manifest["day"]
    environ = {"BOOTH_NOW": f"{day}T23:30:00+00:00"}  # 18:30 in the hall, its last day
    with tempfile.TemporaryDirectory(dir=harness.RESULTS_DIR) as tmp:
        work = Path(tmp) / "hall"
        harness.copy_hall(hall, work)
        manager = hall.parent / "root" / "manager"
        with Station(work, environ=environ) as st:
            # the hall's web CA (at the manager, who holds the hall key) issues the certificate
            shutil.copy(manager / HALL_KEY_FILE, work / HALL_KEY_FILE)
            tls.server_files(work, st.config.hall, st.id, "127.0.0.1")
            (work / HALL_KEY_FILE).unlink()
            with st.ledger.transaction():
                st.append("StaffAdded", {"badge": "T1", "name": "Tess Treasurer",
                                         "roles": ["treasurer"], "by": MANAGER})  # fmt: skip
            with st.ledger.transaction():  # as `booth staff pin` records it: the hash only
                st.append("StaffPinSet", {"badge": MANAGER, "hash": hash_pin(PIN), "by": MANAGER})
            session = replication_session(st, day)
            started = time.perf_counter()
            app = WebApp(st, "127.0.0.1:0")
            app.start()
            print(
                f"  first snapshot (the dashboard at start): {time.perf_counter() - started:.2f} s"
            )
            try:
                link = web_access.create_pairing(st, "manager", operator=MANAGER)["url"]
                token = link.rsplit("/", 1)[1]
                signing = time.perf_counter()
                _, cookie = web_access.sign_in(st, token, MANAGER, PIN)
                print(f"  a sign-in (scrypt, the PIN's event found): "
                      f"{(time.perf_counter() - signing) * 1000:.0f} ms")  # fmt: skip
                context = ssl.create_default_context(cadata=app.ca_pem.decode())
                page = _page(app.port, context, cookie)
                cert, key = tls.server_files(work, st.config.hall, st.id, "127.0.0.1")
                server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                server_context.load_cert_chain(cert, key)
                bare = _TlsServer(server_context, page, work / LEDGER_FILE)
                threading.Thread(target=bare.serve_forever, daemon=True).start()
                try:
                    _measure(args, app, bare, context, cookie, st, session, len(page))
                finally:
                    bare.stopping.set()
                    bare.shutdown()
                    bare.server_close()
            finally:
                app.stop()


def replication_session(st: Station, day: str) -> str:
    from pos.ledger.projections import sessions as sessions_read

    sessions = sessions_read.sessions_on(st.ledger.conn, day)
    assert sessions, f"no session on {day}"
    return str(sessions[-1])


def _page(port: int, context: ssl.SSLContext, cookie: str) -> bytes:
    conn = http.client.HTTPSConnection("127.0.0.1", port, context=context)
    conn.request("GET", "/", headers={"Cookie": f"{web_access.COOKIE}={cookie}"})
    body = conn.getresponse().read()
    conn.close()
    return body


def _measure(
    args: Any,
    app: WebApp,
    bare: _TlsServer,
    context: ssl.SSLContext,
    cookie: str,
    st: Station,
    session: str,
    size: int,
) -> None:
    bare_port = bare.server_address[1]
    first: dict[str, list[float]] = {"web": [], "bare": []}
    full: dict[str, list[float]] = {"web": [], "bare": []}
    for i in range(args.rounds + 3):
        order = [("web", app.port, cookie), ("bare", bare_port, None)]
        for name, port, who in order if i % 2 else reversed(order):
            a, b, _ = _get(port, context, who)
            if i >= 3:
                first[name].append(a)
                full[name].append(b)
    print(
        f"  the first page: {size:,} bytes (target < 100,000)  "
        f"{'PASS' if size < 100_000 else 'MISS'}"
    )
    for label, series in (("time to first byte", first), ("time to the full page", full)):
        web, base = statistics.median(series["web"]), statistics.median(series["bare"])
        print(
            f"  {label}: web {web * 1000:.2f} ms, bare HTTPS {base * 1000:.2f} ms "
            f"(median of {args.rounds}): {web / base:.2f}x"
        )
    if args.browser:
        _in_chromium(args, app, bare_port, cookie)
    streams = [Stream(app.port, context, cookie), Stream(bare_port, context, None)]
    try:
        for s in streams[:1]:
            s.ready.wait(10)  # the web app's stream sends the dashboard at once
        time.sleep(0.5)
        web_lat, bare_lat = _latencies(st, streams, args.updates, session)
    finally:
        for s in streams:
            s.close()
    for q in (50, 99):
        web, base = _q(web_lat, q), _q(bare_lat, q)
        print(
            f"  update latency p{q}: web {web * 1000:.0f} ms, bare polling SSE "
            f"{base * 1000:.0f} ms ({args.updates} sales): {web / base:.2f}x"
        )
    p99 = _q(web_lat, 99)
    print(f"  update p99 {p99:.2f} s, target < 2 s  {'PASS' if p99 < 2 else 'MISS'}")


if __name__ == "__main__":
    main()
