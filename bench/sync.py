"""Benchmark of LAN sync (issue 8). Run by hand, never by the tests:

    .venv/bin/python bench/sync.py                            # 100,000 events; idle at 1,000,000
    .venv/bin/python bench/sync.py --events 10000 --idle-events 100000    # a quicker run

Needs node and `npm ci` in tests/sync/pouch (as .ci/run does). It measures on loopback:

1. Replicating --events events (100,000) from one station to a new one:
   - Booth: the source station served by `booth serve` (its own process; mutual TLS), the new
     station pulling with Booth's replicator (`sync.replicator.pull`, batches of 1,000; every
     event checked and applied through the ledger's apply path, signature included; its
     signatures checked in a worker process, whose CPU is counted as the client's);
   - PouchDB: pouchdb-server (in-memory, plain HTTP: it has no TLS) holding the same events as
     CouchDB documents (the very documents the Booth server serves), replicated by PouchDB 9
     (http adapter) into an in-memory PouchDB, in its own Node process;
   - for the reader: PouchDB replicating from the Booth source (mutual TLS) into memory.
   Each in the same run, in turn; rates are documents (events) per second of the replication
   alone (no process start-up). Target: Booth's rate >= 3x PouchDB's (pouchdb-server -> memory).
2. An idle round (nothing new) between two stations holding the same --idle-events events
   (1,000,000) each, the new one's checkpoint at the source's head: one `pull` as the service
   runs it (a new connection: TCP, TLS handshake, GET /, GET _changes), --idle-rounds times.
   Targets: median under 20 ms, and under 4 KB on the wire (TCP payload both ways, TLS handshake
   included, read from the socket's TCP_INFO; the replicator's own count is printed beside it).

Ledgers are built once and cached under bench/results/cache/ (bench/harness.py): a training
hall whose manager holds the events (appended in big transactions, a valid signed chain) and a
booth station joined before them. For part 2 the booth's ledger is a copy of the manager's, made
on the working copy: both then hold the same event set. The booth is then left where a completed
sync leaves it: its checkpoint, kept under the identity the replicator gives the source (its
uuid and its first event's hash), a little before the source's head, and one real pull of the
rest (already held) moves it to the head, as the LAN service does.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is bench/sync.py, and its directory comes first on sys.path when it runs: `import
# sync` would find this file instead of the sync package. So the package is imported with bench/
# off the path, and bench/ put back for harness.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != _HERE]

from sync import docs, replicator  # noqa: E402
from sync.client import Peer, client_context  # noqa: E402

sys.path.insert(0, _HERE)

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import struct  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import urllib.request  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from typing import Any  # noqa: E402

import harness  # noqa: E402
from harness import BOOTH, ENVIRON, sale_body  # noqa: E402

from pos.ledger import Event  # noqa: E402
from pos.ledger.x509 import CA_FILE, CERT_FILE, KEY_FILE  # noqa: E402
from pos.services.station import LEDGER_FILE, TLS_DIR, Station  # noqa: E402

CACHE_VERSION = "1"  # bump when the way the cached halls are built changes
BUILD_CHUNK = 100_000  # events per transaction while building
BATCH = 1000  # PouchDB's batch_size, as Booth's replicator's (sync.replicator.BATCH)
POUCH_DEFAULT_BATCH = 100  # PouchDB's own default
RATE_TARGET = 3.0
CEILING_SHARE_TARGET = 0.8  # of what two busy cores could do at Booth's CPU per event
IDLE_MS_TARGET = 20.0
IDLE_BYTES_TARGET = 4096
POUCH_DIR = harness.BENCH_DIR.parent / "tests" / "sync" / "pouch"
SERVE = "from pos.cli.main import main; main()"
COLUMNS = "origin, seq, type, hlc, prev, body, hash, sig"
TAIL = 100  # events the last sync before the idle rounds pulls (held already)


# --- the cached halls ------------------------------------------------------------------------


def build_hall(root: Path, events: int) -> dict[str, Any]:
    """root/manager holding `events` events, root/booth-1 joined before nearly all of them."""
    booth_dir = harness.training_booth(root)
    start = time.perf_counter()
    with Station(root / "manager", environ=ENVIRON) as st:
        with Station(booth_dir, environ=ENVIRON) as booth:
            # the booth's own events (its joining) go to the manager too: a copy of the
            # manager's ledger then holds everything the booth does
            _, refused = st.ledger.apply_batch(list(booth.ledger.events()))
            if refused:
                raise RuntimeError(f"the booth's events were refused: {refused[0].message}")
            booth_events = booth.ledger.count()
        ledger = st.ledger
        ledger.conn.execute("PRAGMA cache_size=-262144")  # 256 MiB, this connection only
        held = ledger.count()
        while held < events:
            chunk = min(BUILD_CHUNK, events - held)
            with ledger.transaction():
                for receipt in range(held, held + chunk):
                    st.append("TicketsSold", sale_body(receipt))
            held += chunk
            harness.build_rate(start, held)
        ledger.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if ledger.count() != events:
            raise RuntimeError(f"built {ledger.count()} events, wanted {events}")
    return {
        "ledger_bytes": (root / "manager" / LEDGER_FILE).stat().st_size,
        "booth_events": booth_events,
    }


def cached(events: int, *, rebuild: bool) -> tuple[Path, dict[str, Any]]:
    return harness.cached_hall("sync", CACHE_VERSION, events, build_hall, rebuild=rebuild)


# --- stations, pouchdb-server and PouchDB in their processes ---------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a running process has used (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Process:
    def __init__(
        self, argv: list[str], log: Path, *, cwd: Path, ready: str, timeout: float = 60.0
    ) -> None:
        self.log_path = log
        self._log = log.open("w")
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env={**os.environ, **ENVIRON},
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while ready not in log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{argv[:3]} did not start: {log.read_text()[-2000:]}")
            time.sleep(0.05)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def booth_serve(directory: Path, log: Path) -> tuple[Process, str]:
    """`booth serve` of a station, no discovery, no peers: https://127.0.0.1:PORT."""
    port = free_port()
    argv = [sys.executable, "-c", SERVE, "--hall", str(directory), "serve"]
    argv += ["--port", str(port), "--no-discovery", "--interval", "3600"]
    # a long wait: a station whose projections' code changed since its ledger was built rebuilds
    # them when it opens (minutes for a million events)
    process = Process(argv, log, cwd=harness.BENCH_DIR.parent, ready="Serving", timeout=1800)
    return process, f"https://127.0.0.1:{port}"


def pouchdb_server(work: Path) -> tuple[Process, str]:
    """pouchdb-server 4.2 (PouchDB 7 inside), in memory: http://127.0.0.1:PORT/ledger."""
    port = free_port()
    home = work / "pouchdb-server"
    home.mkdir()
    script = POUCH_DIR / "node_modules" / "pouchdb-server" / "bin" / "pouchdb-server"
    argv = ["node", str(script), "--in-memory", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--config", str(home / "config.json"), "--no-color"]
    process = Process(argv, work / "pouchdb-server.log", cwd=home, ready="has started")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as answer:
        json.load(answer)
    return process, f"http://127.0.0.1:{port}/ledger"


class Pouch:
    """PouchDB 9 in Node: tests/sync/pouch/pouch.js, one JSON command a line."""

    def __init__(self, log: Path) -> None:
        self.log = log.open("w")
        self.process = subprocess.Popen(
            ["node", str(POUCH_DIR / "pouch.js")],
            cwd=POUCH_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )

    def ask(self, op: str, *, timeout: float = 3600.0, **fields: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            raise RuntimeError(f"PouchDB gave no answer to {op}: see {self.log.name}")
        answer: dict[str, Any] = json.loads(line)
        if answer.get("failed"):
            raise RuntimeError(f"PouchDB {op} failed: {answer['error']}")
        return answer

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write('{"op": "quit"}\n')
            self.process.stdin.flush()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream:
                stream.close()
        self.log.close()


# --- reading ledgers directly -----------------------------------------------------------------


def read_only(directory: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{directory / LEDGER_FILE}?mode=ro", uri=True)


def event_set(directory: Path) -> tuple[int, str]:
    """(events, `booth verify`'s digest of the event set) of a station's ledger."""
    conn = read_only(directory)
    try:
        sha, count = hashlib.sha256(), 0
        rows = conn.execute("SELECT origin, seq, hash FROM events ORDER BY origin, seq")
        for origin, seq, event_hash in rows:
            sha.update(f"{origin}:{seq}:{event_hash}\n".encode())
            count += 1
        return count, sha.hexdigest()
    finally:
        conn.close()


def export_docs(directory: Path, path: Path) -> int:
    """Every event of a station as the CouchDB document its server serves, one a line."""
    conn = read_only(directory)
    try:
        with path.open("w") as out:
            count = 0
            for row in conn.execute(f"SELECT {COLUMNS} FROM events ORDER BY rowid"):
                out.write(json.dumps(docs.to_doc(Event(*row)), separators=(",", ":")) + "\n")
                count += 1
        return count
    finally:
        conn.close()


def station_tls(directory: Path) -> dict[str, str]:
    tls = directory / TLS_DIR
    return {"cert": str(tls / CERT_FILE), "key": str(tls / KEY_FILE), "ca": str(tls / CA_FILE)}


# --- 1. replicating N events -----------------------------------------------------------------


def _reaped_cpu() -> float:
    """CPU seconds of this process's children reaped so far: a pull's signature worker
    (pos.ledger.signature_worker) is reaped when the pull ends."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def booth_replication(source: Path, target: Path, url: str, server: Process) -> dict[str, Any]:
    """The new station pulls everything with Booth's replicator; returns the figures."""
    before, _ = event_set(target)
    with Station(target, environ=ENVIRON) as st:
        peer = Peer(url, client_context(target))
        try:
            served, used = server.cpu_seconds(), time.process_time() + _reaped_cpu()
            started = time.perf_counter()
            result = replicator.pull(st.ledger, peer)
            seconds = time.perf_counter() - started
            used = time.process_time() + _reaped_cpu() - used  # its signature worker's included
            served = server.cpu_seconds() - served
        finally:
            peer.close()
    if event_set(target) != event_set(source):
        raise RuntimeError("the new station does not hold the source's events after the pull")
    if result.refused:
        raise RuntimeError(f"{result.refused} events were refused")
    return {
        "docs": result.applied,
        "received": result.received,
        "held_before": before,
        "seconds": seconds,
        "rate": result.applied / seconds,
        "bytes_received": result.bytes_received,
        "cpu_client_s": used,
        "cpu_server_s": served,
    }


def pouch_replication(
    pouch: Pouch,
    url: str,
    db: str,
    server: Process,
    *,
    batch: int = BATCH,
    **remote: Any,
) -> dict[str, Any]:
    served, used = server.cpu_seconds(), cpu_seconds(pouch.process.pid)
    answer = pouch.ask("pull", url=url, db=db, batch_size=batch, **remote)
    used, served = cpu_seconds(pouch.process.pid) - used, server.cpu_seconds() - served
    if answer["doc_write_failures"] or answer["status"] != "complete":
        raise RuntimeError(f"PouchDB replication failed: {answer}")
    pouch.ask("destroy", db=db)
    return {
        "docs": answer["docs_written"],
        "seconds": answer["seconds"],
        "rate": answer["docs_written"] / answer["seconds"],
        "requests": answer["requests"],
        "cpu_client_s": used,
        "cpu_server_s": served,
    }


def replicate(
    cache: Path, work: Path, *, runs: int, from_booth: bool, defaults: bool
) -> dict[str, list[dict[str, Any]]]:
    copy_seconds = harness.copy_hall(cache, work / "hall")
    source, target = work / "hall" / "manager", work / "hall" / BOOTH
    pristine = work / "booth-pristine"
    shutil.copytree(target, pristine)
    count = export_docs(source, work / "docs.ndjson")
    print(f"work dir: {work} (hall copied in {copy_seconds:.1f} s; {count:,} docs exported)")

    figures: dict[str, list[dict[str, Any]]] = {
        "booth": [],
        "pouchdb": [],
        "pouchdb_defaults": [],
        "pouch_booth": [],
        "signature_check": [{"us_per_event": signature_cost(source)}],
    }
    opened: list[Process] = []
    pouch = Pouch(work / "pouch.log")
    try:
        server, url = booth_serve(source, work / "serve.log")
        opened.append(server)
        couch, couch_url = pouchdb_server(work)
        opened.append(couch)
        loaded = pouch.ask("load", url=couch_url, file=str(work / "docs.ndjson"), batch=BATCH)
        if loaded["info"]["doc_count"] != count:
            raise RuntimeError(f"pouchdb-server holds {loaded['info']['doc_count']} docs")
        print(f"pouchdb-server loaded with {count:,} docs in {loaded['seconds']:.1f} s")
        for run in range(runs):
            if run:
                shutil.rmtree(target)
                shutil.copytree(pristine, target)
            booth = booth_replication(source, target, url, server)
            figures["booth"].append(booth)
            line(f"run {run + 1}: Booth replicator <- booth serve (TLS)", booth)
            pouchdb = pouch_replication(pouch, couch_url, f"couch-{run}", couch, fetch="pouchdb")
            figures["pouchdb"].append(pouchdb)
            line(f"run {run + 1}: PouchDB <- pouchdb-server (HTTP)", pouchdb)
            if defaults:
                slow = pouch_replication(
                    pouch,
                    couch_url,
                    f"couch-d-{run}",
                    couch,
                    batch=POUCH_DEFAULT_BATCH,
                    fetch="pouchdb",
                )
                figures["pouchdb_defaults"].append(slow)
                line(f"run {run + 1}: PouchDB <- pouchdb-server, batches of 100", slow)
            if from_booth:
                tls = station_tls(target)
                mixed = pouch_replication(pouch, url + "/ledger", f"booth-{run}", server, tls=tls)
                figures["pouch_booth"].append(mixed)
                line(f"run {run + 1}: PouchDB <- booth serve (TLS)", mixed)
    finally:
        pouch.close()
        for process in opened:
            process.stop()
    return figures


def cpu_per_doc(figures: dict[str, Any]) -> float:
    """CPU microseconds per document, both sides together."""
    return float((figures["cpu_client_s"] + figures["cpu_server_s"]) / figures["docs"] * 1e6)


def line(label: str, figures: dict[str, Any]) -> None:
    print(
        f"  {label:<44} {figures['docs']:>9,} docs in {figures['seconds']:7.2f} s  "
        f"{figures['rate']:>9,.0f} docs/s  CPU {cpu_per_doc(figures):5.0f} us/doc "
        f"(client {figures['cpu_client_s']:.1f} s, server {figures['cpu_server_s']:.1f} s)",
        flush=True,
    )


def signature_cost(source: Path, sample: int = 5000) -> float:
    """Microseconds one core takes to check one event's hash and Ed25519 signature (PyNaCl,
    libsodium): the one cost per event no change to Booth's own code can remove."""
    with Station(source, environ=ENVIRON) as st:
        events = list(st.ledger.events(limit=sample))
        check = st.ledger.signature_check()
    started = time.process_time()
    for event in events:
        check([event])
    return (time.process_time() - started) / len(events) * 1e6


# --- 2. the idle round -----------------------------------------------------------------------


def wire_bytes(peer: Peer) -> tuple[int, int]:
    """(bytes sent and acknowledged, bytes received): TCP payload of the peer's connection so
    far, TLS records included (Linux TCP_INFO: tcpi_bytes_acked, tcpi_bytes_received)."""
    conn = peer._conn  # the socket the replicator used
    sock = conn.sock if conn is not None else None
    if sock is None:
        raise RuntimeError("the peer's connection is closed")
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    acked, received = struct.unpack_from("QQ", info, 120)
    return int(acked), int(received)


def idle(cache: Path, work: Path, *, rounds: int) -> dict[str, Any]:
    copy_seconds = harness.copy_hall(cache, work / "hall")
    source, target = work / "hall" / "manager", work / "hall" / BOOTH
    started = time.perf_counter()
    for suffix in ("", "-wal", "-shm"):
        (target / (LEDGER_FILE + suffix)).unlink(missing_ok=True)
    shutil.copyfile(source / LEDGER_FILE, target / LEDGER_FILE)
    if event_set(source) != event_set(target):
        raise RuntimeError("the two stations do not hold the same events")
    events = event_set(target)[0]
    print(
        f"work dir: {work} (hall copied in {copy_seconds:.1f} s, the manager's ledger into "
        f"the booth's in {time.perf_counter() - started:.1f} s): {events:,} events on each side"
    )
    server, url = booth_serve(source, work / "serve.log")
    times: list[float] = []
    sent: list[int] = []
    received: list[int] = []
    counted: list[int] = []
    try:
        with Station(target, environ=ENVIRON) as st:
            context = client_context(target)
            last_sync(st, Peer(url, context))
            for _ in range(rounds + 3):  # the first three warm up
                peer = Peer(url, context)  # a new connection each round, as the service does
                try:
                    start = time.perf_counter()
                    result = replicator.pull(st.ledger, peer)
                    elapsed = time.perf_counter() - start
                    acked, got = wire_bytes(peer)
                finally:
                    peer.close()
                if result.received or result.applied:
                    raise RuntimeError(f"an idle round received {result.received} events")
                times.append(elapsed)
                sent.append(acked)
                received.append(got)
                counted.append(result.bytes_sent + result.bytes_received)
            kept = kept_alive(st, Peer(url, context), rounds=rounds)
    finally:
        server.stop()
    times, sent, received, counted = times[3:], sent[3:], received[3:], counted[3:]
    wire = [a + b for a, b in zip(sent, received, strict=True)]
    figures = {
        "events_each_side": events,
        "rounds": rounds,
        "median_ms": statistics.median(times) * 1e3,
        "p90_ms": statistics.quantiles(times, n=10)[-1] * 1e3 if rounds > 1 else times[0] * 1e3,
        "wire_bytes_median": statistics.median(wire),
        "wire_sent": statistics.median(sent),
        "wire_received": statistics.median(received),
        "replicator_counted_bytes": statistics.median(counted),
        "kept_alive": kept,
    }
    return figures


def last_sync(st: Station, peer: Peer) -> None:
    """Leave the booth where a completed sync leaves it: its copy of the source's events is the
    pull of all but the last TAIL of them, and the real replicator then pulls the rest.

    The checkpoint is kept under the identity the replicator gives the source (its uuid and the
    hash of its own first event: sync.protocol.instance_uuid, which tells two instances of a
    station apart), at TAIL events before the source's head; the one real pull that follows
    receives those TAIL events (held already: none applied), checks the source's first event
    against the one held (the twin check) and leaves the checkpoint, with its mark, at the head
    exactly as the LAN service does."""
    try:
        source = replicator.PeerLog(peer).describe()
        head = int(peer.request("GET", "/ledger")["update_seq"])
        if source.uuid is None:
            raise RuntimeError("the source keeps no checkpoint identity")
        since = max(0, head - TAIL)
        key = replicator._checkpoint_id(source.uuid, st.ledger.station)
        with st.ledger.transaction():
            replicator._write_checkpoint(st.ledger, key, since)
        result = replicator.pull(st.ledger, peer)
    finally:
        peer.close()
    if result.refused or result.applied or result.received != head - since:
        raise RuntimeError(
            f"the last sync before the idle rounds received {result.received} events (wanted "
            f"{head - since}), applied {result.applied}, refused {result.refused}: "
            f"{result.refusals[:1]}"
        )


def kept_alive(st: Station, peer: Peer, *, rounds: int) -> dict[str, float]:
    """For the reader: the same idle round on one connection kept open between rounds."""
    times: list[float] = []
    wire: list[int] = []
    try:
        replicator.pull(st.ledger, peer)  # connects
        for _ in range(rounds + 3):
            before = sum(wire_bytes(peer))
            start = time.perf_counter()
            result = replicator.pull(st.ledger, peer)
            times.append(time.perf_counter() - start)
            wire.append(sum(wire_bytes(peer)) - before)
            if result.received:
                raise RuntimeError(f"an idle round received {result.received} events")
    finally:
        peer.close()
    return {
        "median_ms": statistics.median(times[3:]) * 1e3,
        "wire_bytes_median": statistics.median(wire[3:]),
    }


# --- the run ---------------------------------------------------------------------------------


def median_rate(runs: list[dict[str, Any]]) -> float:
    return float(statistics.median(run["rate"] for run in runs))


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=100_000, help="events replicated")
    parser.add_argument(
        "--idle-events", type=int, default=1_000_000, help="events on each side, idle round"
    )
    parser.add_argument("--runs", type=int, default=1, help="replication runs of each")
    parser.add_argument("--idle-rounds", type=int, default=50, help="idle rounds timed")
    parser.add_argument(
        "--no-pouch-from-booth",
        action="store_true",
        help="skip PouchDB replicating from the Booth station (informative)",
    )
    parser.add_argument(
        "--no-pouch-defaults",
        action="store_true",
        help="skip PouchDB with its default batches of 100 (informative)",
    )
    parser.add_argument("--skip-idle", action="store_true", help="only part 1")
    parser.add_argument(
        "--dir",
        type=Path,
        default=harness.RESULTS_DIR,
        help="where the working copies go (same disk)",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached halls")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.events < 100 or args.idle_events < 100 or args.runs < 1 or args.idle_rounds < 2:
        parser.error("need --events and --idle-events >= 100, --runs >= 1, --idle-rounds >= 2")
    if shutil.which("node") is None or not (POUCH_DIR / "node_modules").is_dir():
        parser.error(f"needs node and `npm ci` in {POUCH_DIR}")

    version = harness.print_header("Booth sync benchmark")
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"node {node}; PouchDB 9.0.0 client, pouchdb-server 4.2.0; batches of {BATCH:,}")
    record: dict[str, Any] = {"code": version, "node": node}

    hall, manifest = cached(args.events, rebuild=args.rebuild)
    harness.print_cached("\n1. replication: source hall", args.events, manifest)
    with harness.work_dir(args.dir, "sync-run-") as work:
        runs = replicate(
            hall,
            work,
            runs=args.runs,
            from_booth=not args.no_pouch_from_booth,
            defaults=not args.no_pouch_defaults,
        )
    booth, pouchdb = median_rate(runs["booth"]), median_rate(runs["pouchdb"])
    ratio = booth / pouchdb
    print(
        f"  Booth {booth:,.0f} events/s, PouchDB {pouchdb:,.0f} docs/s: {ratio:.2f}x  "
        f"target >= {RATE_TARGET:.0f}x  {verdict(ratio >= RATE_TARGET)}"
    )
    if runs["pouchdb_defaults"]:
        slow = median_rate(runs["pouchdb_defaults"])
        print(f"  (PouchDB, its default batches of 100: {slow:,.0f} docs/s: {booth / slow:.2f}x)")
    if runs["pouch_booth"]:
        print(f"  (PouchDB from the Booth station: {median_rate(runs['pouch_booth']):,.0f} docs/s)")
    cores = os.cpu_count() or 1
    cost = statistics.median(cpu_per_doc(run) for run in runs["booth"])
    signature = runs["signature_check"][0]["us_per_event"]
    ceiling = cores * 1e6 / cost
    print(
        f"  Booth's CPU per event, client and server together: {cost:.0f} us, of which "
        f"{signature:.0f} us checking its signature (one core, libsodium); at that cost "
        f"{cores} cores fully busy replicate at most {ceiling:,.0f} events/s = "
        f"{ceiling / pouchdb:.2f}x PouchDB"
    )
    share = booth / ceiling
    print(
        f"  Booth replicates at {share:.0%} of that ceiling  target >= {CEILING_SHARE_TARGET:.0%} "
        f"(issue #31)  {verdict(share >= CEILING_SHARE_TARGET)}"
    )
    record["replication"] = {**runs, "ratio": ratio, "source": manifest, "ceiling": ceiling}

    if not args.skip_idle:
        hall, manifest = cached(args.idle_events, rebuild=args.rebuild)
        harness.print_cached("\n2. idle round: source hall", args.idle_events, manifest)
        with harness.work_dir(args.dir, "sync-idle-") as work:
            figures = idle(hall, work, rounds=args.idle_rounds)
        ms, wire = figures["median_ms"], figures["wire_bytes_median"]
        print(
            f"  {figures['rounds']} idle rounds, a new TLS connection each: median {ms:.1f} ms "
            f"(p90 {figures['p90_ms']:.1f} ms)  target < {IDLE_MS_TARGET:.0f} ms  "
            f"{verdict(ms < IDLE_MS_TARGET)}"
        )
        print(
            f"  on the wire: {wire:,.0f} bytes ({figures['wire_sent']:,.0f} sent, "
            f"{figures['wire_received']:,.0f} received; TCP payload, TLS handshake included)  "
            f"target < {IDLE_BYTES_TARGET:,} bytes  {verdict(wire < IDLE_BYTES_TARGET)}"
        )
        print(
            f"  (the replicator's own count, HTTP bodies + 64 bytes a message: "
            f"{figures['replicator_counted_bytes']:,.0f} bytes)"
        )
        kept = figures["kept_alive"]
        print(
            f"  (on one connection kept open between rounds: median {kept['median_ms']:.1f} ms, "
            f"{kept['wire_bytes_median']:,.0f} bytes on the wire)"
        )
        record["idle"] = {**figures, "source": manifest}

    if args.json:
        harness.write_record(args.json, record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
