"""Interop with an independent implementation of the CouchDB replication protocol: PouchDB 9
from the npm registry (pouchdb-core with the memory and http adapters and pouchdb-replication),
talking to Booth stations over HTTPS with mutual TLS, with a station certificate of the hall.

PouchDB runs in Node (tests/sync/pouch/pouch.js, driven line by line); its http adapter is given
a `fetch` built on undici's, whose Agent presents the certificate. The stations serve with
`booth serve` in their own processes. Needs node and `npm ci` in tests/sync/pouch (.ci/run).
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.x509.oid import NameOID

from pos.ledger import Ledger
from pos.ledger.keys import StationKey
from pos.ledger.x509 import CA_FILE, CERT_FILE, KEY_FILE, key_pem
from pos.services import hall, sales
from pos.services.station import LEDGER_FILE, TLS_DIR, Station
from sync import docs
from sync.server import ReplicationServer
from tests.conftest import run_booth
from tests.sync.conftest import ENVIRON, ROOT, build_hall, free_port

pytestmark = pytest.mark.slow  # PouchDB in Node and booth serve in processes of their own

POUCH_DIR = Path(__file__).resolve().parent / "pouch"
NODE = shutil.which("node")
BOOTH = "from pos.cli.main import main; main()"
BATCH = 25  # PouchDB's batch_size here: several batches, so checkpoints and `since` are used


@pytest.fixture(autouse=True)
def _needs_node() -> None:
    if NODE is None or not (POUCH_DIR / "node_modules" / "pouchdb-core").is_dir():
        reason = "needs node and `npm ci` in tests/sync/pouch (as .ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


# --- PouchDB in Node ---------------------------------------------------------------------------


class Pouch:
    """tests/sync/pouch/pouch.js: one JSON command a line in, one JSON answer a line out."""

    def __init__(self, log: Path) -> None:
        assert NODE is not None
        self.log = log.open("w")
        self.process = subprocess.Popen(
            [NODE, str(POUCH_DIR / "pouch.js")],
            cwd=POUCH_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )

    def ask(self, op: str, *, timeout: float = 30.0, **fields: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            raise AssertionError(f"PouchDB gave no answer to {op} in {timeout} s")
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f"PouchDB ended: {Path(self.log.name).read_text()[-2000:]}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.write('{"op": "quit"}\n')
                self.process.stdin.flush()
                self.process.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream:
                stream.close()
        self.log.close()


@pytest.fixture
def pouch(tmp_path: Path) -> Iterator[Pouch]:
    driver = Pouch(tmp_path / "pouch.log")
    yield driver
    driver.close()


# --- Booth stations serving --------------------------------------------------------------------


class Serving:
    """`booth --hall DIR serve --no-discovery` in its own process; its stderr is its log."""

    def __init__(self, directory: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}/ledger"
        self.log_path = log
        self._log = log.open("w")
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-c", BOOTH, "--hall", str(directory), "serve"),
                *("--port", str(self.port), "--no-discovery", "--interval", "600"),
            ],
            cwd=ROOT,
            env={**os.environ, **ENVIRON},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
        )
        deadline = time.monotonic() + 30
        try:
            while "Serving" not in self.log:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"booth serve did not start: {self.log[-2000:]}")
                time.sleep(0.05)
        except BaseException:  # or the test timed out: it is ended all the same
            self.stop()
            raise

    @property
    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: `booth serve` stops its service and exits
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


@pytest.fixture
def serving() -> Iterator[list[Serving]]:
    running: list[Serving] = []
    yield running
    for server in running:
        server.stop()


# --- the hall ----------------------------------------------------------------------------------


@dataclass
class PouchHall:
    source: Path  # booth-1: its own events and the manager's, relayed
    target: Path  # booth-2: joined before most of those, then never synced
    tls: dict[str, str]  # the PouchDB side's certificate, key and the hall's CA
    hall_key: StationKey


def write_tls(directory: Path, cert: str | bytes, key: bytes, ca: str | bytes) -> dict[str, str]:
    directory.mkdir(parents=True, exist_ok=True)
    files = {"cert": (cert, "cert.pem"), "key": (key, "key.pem"), "ca": (ca, "ca.pem")}
    paths = {}
    for name, (data, filename) in files.items():
        path = directory / filename
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        paths[name] = str(path)
    return paths


@pytest.fixture
def pouch_hall(tmp_path: Path) -> PouchHall:
    """Manager and booth-1 (tests.sync.conftest), plus a station certified for PouchDB and a
    booth-2 joined early. Sales at the manager and at booth-1; booth-1 holds the manager's
    events too (relayed through the apply path), so it serves more than one origin."""
    built = build_hall(tmp_path, ["booth-1"])
    manager, source = built.stations["manager"], built.stations["booth-1"]
    with Station(manager, environ=ENVIRON) as st:
        pouch_bundle = hall.add_station(st, name="pouchdb", role="booth", operator="M1")
        target_bundle = hall.add_station(st, name="booth-2", role="booth", operator="M1")
        for _ in range(30):
            sales.sell(st, "D-MANAGER", qty=1, operator="S1")
        hall_key = st.hall_key()
    (tmp_path / "booth-2.json").write_text(json.dumps(target_bundle))
    hall.join(tmp_path / "booth-2", tmp_path / "booth-2.json", environ=ENVIRON)
    with Station(source, environ=ENVIRON) as st, Station(manager, environ=ENVIRON) as mgr:
        for _ in range(15):
            sales.sell(st, "D-BOOTH-1", qty=2, operator="S1")
        applied, refused = st.ledger.apply_batch(list(mgr.ledger.events()))
        assert applied > 30 and not refused
    tls = write_tls(
        tmp_path / "pouchdb-tls",
        pouch_bundle["tls_cert"],
        key_pem(StationKey.from_hex(pouch_bundle["station_key"])),
        pouch_bundle["tls_ca"],
    )
    return PouchHall(source, tmp_path / "booth-2", tls, hall_key)


def named_cert(
    hall_key: StationKey, ca_pem: bytes, station: str, hall_name: str, key: StationKey
) -> bytes:
    """A certificate issued by the hall's CA (its key, its name) for `station` of `hall_name`."""
    issuer = x509.load_pem_x509_certificate(ca_pem).subject
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(
            x509.Name(
                [
                    x509.NameAttribute(NameOID.COMMON_NAME, station),
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, hall_name),
                ]
            )
        )
        .issuer_name(issuer)
        .public_key(Ed25519PublicKey.from_public_bytes(bytes.fromhex(key.public_hex)))
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .sign(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(hall_key.to_hex())), None)
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def held(directory: Path) -> dict[tuple[str, int], str]:
    """(origin, seq) -> hash of every event in a station's ledger (read-only: it may serve)."""
    conn = sqlite3.connect(f"file:{directory / LEDGER_FILE}?mode=ro", uri=True)
    try:
        return {(o, s): h for o, s, h in conn.execute("SELECT origin, seq, hash FROM events")}
    finally:
        conn.close()


def digest(events: dict[tuple[str, int], str], origins: set[str]) -> str:
    """`booth verify`'s digest (pos.ledger.verify) over the events of `origins` only."""
    sha = hashlib.sha256()
    for (origin, seq), event_hash in sorted(events.items()):
        if origin in origins:
            sha.update(f"{origin}:{seq}:{event_hash}\n".encode())
    return sha.hexdigest()


def revs(events: dict[tuple[str, int], str]) -> dict[str, str]:
    return {docs.doc_id(o, s): docs.rev_of(h) for (o, s), h in events.items()}


def verify_json(directory: Path) -> dict[str, Any]:
    result = run_booth("--hall", str(directory), "verify", "--json", env=ENVIRON)
    assert result.exit_code == 0, result.stdout + result.stderr
    report: dict[str, Any] = result.json
    return report


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """The server records a refusal in its handler thread, maybe just after the client saw it."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def replicated(answer: dict[str, Any], written: int) -> None:
    assert not answer.get("failed"), answer
    assert answer["ok"] and answer["status"] == "complete", answer
    assert answer["doc_write_failures"] == 0 and not answer["errors"], answer
    assert answer["docs_written"] == written, answer


# --- the tests ---------------------------------------------------------------------------------


def test_pouchdb_replicates_from_a_station_and_back_into_another(
    tmp_path: Path, pouch_hall: PouchHall, pouch: Pouch, serving: list[Serving]
) -> None:
    source = Serving(pouch_hall.source, tmp_path / "booth-1.log")
    serving.append(source)
    target = Serving(pouch_hall.target, tmp_path / "booth-2.log")
    serving.append(target)
    tls, batch = pouch_hall.tls, BATCH
    at_source, at_target = held(pouch_hall.source), held(pouch_hall.target)
    origins = {origin for origin, _ in at_source}
    assert origins == {"manager", "booth-1"}
    missing = set(at_source) - set(at_target)
    assert len(missing) > 40, "the target lacks most of the source's events"

    # (a) every event of booth-1 into an in-memory PouchDB: same ids, same revisions, same bodies
    pulled = pouch.ask("pull", url=source.url, tls=tls, db="hall", batch_size=batch)
    replicated(pulled, len(at_source))
    assert pulled["requests"]["GET /ledger/_changes"] >= len(at_source) // batch
    assert pulled["requests"]["POST /ledger/_bulk_get"] >= len(at_source) // batch
    assert "PUT /ledger/_local/ID" in pulled["requests"], "PouchDB checkpoints at the source"
    copy = pouch.ask("docs", db="hall", include_docs=True)
    assert copy["count"] == len(at_source)
    assert copy["revs"] == revs(at_source)
    conn = sqlite3.connect(f"file:{pouch_hall.source / LEDGER_FILE}?mode=ro", uri=True)
    try:
        ledger = Ledger(conn, station="booth-1", key=None, hall_public_key="")
        expected = {docs.doc_id(e.origin, e.seq): docs.to_doc(e) for e in ledger.events()}
    finally:
        conn.close()
    assert {doc["_id"]: doc for doc in copy["docs"]} == expected

    # (b) from that PouchDB into booth-2: PouchDB pushes with _revs_diff and
    # _bulk_docs new_edits=false; booth-2 applies each event through its apply path
    pushed = pouch.ask("push", url=target.url, tls=tls, db="hall", batch_size=batch)
    replicated(pushed, len(missing))
    assert pushed["requests"]["POST /ledger/_revs_diff"] >= len(at_source) // batch
    assert pushed["requests"]["POST /ledger/_bulk_docs"] >= len(missing) // batch
    assert set(pushed["new_edits"]) == {False}
    now_at_target = held(pouch_hall.target)
    assert set(at_source) <= set(now_at_target)
    assert digest(now_at_target, origins) == digest(at_source, origins)

    # ... and back: booth-2's own events through PouchDB into booth-1; all three now hold one set
    own = set(now_at_target) - set(at_source)
    assert own and {origin for origin, _ in own} == {"booth-2"}
    replicated(pouch.ask("pull", url=target.url, tls=tls, db="hall", batch_size=batch), len(own))
    replicated(pouch.ask("push", url=source.url, tls=tls, db="hall", batch_size=batch), len(own))

    # (c) a second run of each replication copies nothing
    for op, server in (("pull", source), ("push", target), ("pull", target), ("push", source)):
        answer = pouch.ask(op, url=server.url, tls=tls, db="hall", batch_size=batch)
        replicated(answer, 0)
        assert answer["docs_read"] == 0, answer
    assert pouch.ask("docs", db="hall")["revs"] == revs(held(pouch_hall.source))

    for server in (source, target):
        server.stop()
        assert "refused" not in server.log, server.log
    here, there = verify_json(pouch_hall.source), verify_json(pouch_hall.target)
    assert here["ok"] and there["ok"], (here["problems"], there["problems"])
    assert here["digest"] == there["digest"]
    assert here["origins"] == there["origins"]
    assert set(here["origins"]) == origins | {"booth-2"}
    assert digest(held(pouch_hall.target), origins) == digest(at_source, origins)


@pytest.fixture
def served(pouch_hall: PouchHall) -> Iterator[ReplicationServer]:
    """booth-1's replication server in this process (to read its `refused` list)."""
    with Station(pouch_hall.source, environ=ENVIRON) as st:
        ledger = Ledger.open(
            st.directory / LEDGER_FILE,
            station=st.id,
            key=None,
            hall_public_key=st.config.hall_public_key,
        )
        server = ReplicationServer(
            ("127.0.0.1", 0),
            station_dir=st.directory,
            ledger=ledger,
            write_lock=threading.Lock(),
            hall=st.config.hall,
            station=st.id,
        )
        thread = threading.Thread(target=server.serve_forever, name="test-replication-server")
        thread.start()
        try:
            yield server
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)
            ledger.close()


@pytest.fixture
def foreign(tmp_path: Path, pouch_hall: PouchHall) -> dict[str, str]:
    """The certificate and key of another hall's station; this hall's CA to check the server
    (so PouchDB accepts the station: only its own certificate is wrong)."""
    hall.init_hall(
        tmp_path / "other",
        organisation="Another Post",
        location="2 Other Road",
        time_zone="America/New_York",
        training=True,
        environ=ENVIRON,
    )
    other = tmp_path / "other" / TLS_DIR
    assert (other / CA_FILE).read_bytes() != Path(pouch_hall.tls["ca"]).read_bytes()
    return {
        "cert": str(other / CERT_FILE),
        "key": str(other / KEY_FILE),
        "ca": pouch_hall.tls["ca"],
    }


def test_booth_serve_refuses_and_logs_another_halls_certificate(
    tmp_path: Path,
    pouch_hall: PouchHall,
    pouch: Pouch,
    serving: list[Serving],
    foreign: dict[str, str],
) -> None:
    station = Serving(pouch_hall.target, tmp_path / "booth-2.log")
    serving.append(station)
    answer = pouch.ask("pull", url=station.url, tls=foreign, db="foreign")
    assert answer.get("failed") and "fetch failed" in answer["error"], answer
    assert pouch.ask("docs", db="foreign")["count"] == 0
    assert pouch.ask("get", url=station.url, tls=pouch_hall.tls)["status"] == 200
    station.stop()
    refusals = [line for line in station.log.splitlines() if "refused" in line]
    assert refusals and all("certificate verify failed" in line for line in refusals), station.log


def test_a_certificate_of_another_hall_is_refused_and_recorded(
    tmp_path: Path,
    pouch_hall: PouchHall,
    pouch: Pouch,
    served: ReplicationServer,
    foreign: dict[str, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    base = f"https://127.0.0.1:{served.server_address[1]}"
    ca = foreign["ca"]

    # the hall's own certificate is served (control)
    answer = pouch.ask("get", url=base + "/", tls=pouch_hall.tls)
    assert answer["status"] == 200 and answer["body"]["booth"]["station"] == "booth-1"

    # another hall's certificate: the TLS handshake is refused, nothing is read, it is logged
    caplog.set_level("WARNING", logger="booth.sync.server")
    answer = pouch.ask("get", url=base + "/", tls=foreign)
    assert answer.get("failed"), answer
    answer = pouch.ask("pull", url=base + "/ledger", tls=foreign, db="foreign")
    assert answer.get("failed") and "fetch failed" in answer["error"], answer
    assert pouch.ask("docs", db="foreign")["count"] == 0
    wait_for(lambda: len(served.refused) >= 2)
    assert all("certificate verify failed" in entry for entry in served.refused), served.refused
    logged = [r.getMessage() for r in caplog.records if r.name == "booth.sync.server"]
    assert any("refused" in m and "certificate verify failed" in m for m in logged), logged

    # a certificate from this hall's CA that names another hall (O=): 403, also recorded
    key = StationKey.generate()
    forged = named_cert(pouch_hall.hall_key, Path(ca).read_bytes(), "pouchdb", "otherhall", key)
    forged_tls = write_tls(tmp_path / "forged-tls", forged, key_pem(key), Path(ca).read_bytes())
    answer = pouch.ask("get", url=base + "/ledger/_changes", tls=forged_tls)
    assert answer["status"] == 403 and answer["body"]["error"] == "forbidden", answer
    assert served.refused[-1] == "pouchdb of hall otherhall"

    # no certificate at all: refused too
    refused = len(served.refused)
    answer = pouch.ask("get", url=base + "/", tls={"ca": ca})
    assert answer.get("failed"), answer
    wait_for(lambda: len(served.refused) == refused + 1)
