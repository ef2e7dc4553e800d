"""What the benchmarks in bench/ share. A library, not a benchmark: it measures nothing itself.

- timing: `interleaved` rounds (GC off, warm-up discarded, the order of the targets rotating
  through every permutation), `Series` statistics and `paired_ratio`;
- the baseline: `RawTable`, a stdlib sqlite3 single-row INSERT + COMMIT (WAL, synchronous=FULL)
  in the same directory, and `measure`, which times subjects against it twice: each call its own
  durable transaction, then back to back inside one open transaction that is rolled back;
- halls: `init_training_hall` (the hall every benchmark starts from), `training_booth` (that hall
  with a manager, a seller-redeemer and a booth station joined to it), `pull` (sync one way, as
  the LAN service does) and `selling_booth` (the booth holding a pull-tab deal in a bin, with a
  session open);
- the cache of big ledgers under bench/results/cache/ (`cached_hall`), keyed by the ledger's
  format and a version string of the recipe that built it;
- output: the run's header, tables, verdicts and the --json record.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pos.domain.canonical import EVENT_HASH_VERSION, canonical_json
from pos.ledger import schema as ledger_schema
from pos.ledger.projections import ALL
from pos.services import deals, replicate, sessions, staff
from pos.services import hall as hall_service
from pos.services.station import Station

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_DIR = BENCH_DIR / "results"
CACHE_DIR = RESULTS_DIR / "cache"
TRAINING_NOW = "2026-11-28T23:00:00+00:00"  # 18:00 in the hall's time zone
ENVIRON = {"BOOTH_NOW": TRAINING_NOW}
MANAGER = "M1"  # badge of the hall's manager
SELLER = "S1"  # badge of a seller who also redeems
BOOTH = "booth-1"  # the booth station's name, and its directory's under a hall's root


# --- the code measured -----------------------------------------------------------------------


def code_version() -> str:
    """The commit measured, and whether pos/ had uncommitted changes at the time."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=BENCH_DIR,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "pos"],
            cwd=BENCH_DIR.parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head} (pos/ has uncommitted changes)" if dirty else head


def print_header(title: str) -> str:
    """Print what the run measures on, and return the code version for the --json record."""
    print(
        f"{title}: python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs"
    )
    version = code_version()
    print(f"code: {version}")
    return version


# --- statistics ------------------------------------------------------------------------------


@dataclass
class Series:
    label: str
    samples: list[int]  # nanoseconds, one per round

    @property
    def median(self) -> float:
        return float(statistics.median(self.samples))

    def quantile(self, q: int) -> float:
        """The q-th percentile (1..99)."""
        return statistics.quantiles(self.samples, n=100, method="inclusive")[q - 1]

    def summary(self) -> dict[str, float]:
        return {
            "median_us": self.median / 1e3,
            "p10_us": self.quantile(10) / 1e3,
            "p90_us": self.quantile(90) / 1e3,
            "p99_us": self.quantile(99) / 1e3,
        }


def paired_ratio(a: Series, b: Series) -> float:
    """Median of the per-round ratios a/b: a cross-check of the ratio of medians."""
    return float(statistics.median(x / y for x, y in zip(a.samples, b.samples, strict=True)))


def interleaved(
    targets: Sequence[tuple[str, Callable[[], object]]], *, rounds: int, warmup: int
) -> list[Series]:
    """Time each target once per round, in an order that cycles through every permutation."""
    orders = list(itertools.permutations(range(len(targets))))
    samples: list[list[int]] = [[] for _ in targets]
    clock = time.perf_counter_ns
    gc.collect()
    gc.disable()
    try:
        for round_no in range(warmup + rounds):
            for index in orders[round_no % len(orders)]:
                run = targets[index][1]
                start = clock()
                run()
                elapsed = clock() - start
                if round_no >= warmup:
                    samples[index].append(elapsed)
    finally:
        gc.enable()
    return [Series(label, s) for (label, _), s in zip(targets, samples, strict=True)]


def verdict(ratio: float, target: float) -> str:
    return "PASS" if ratio <= target else "MISS"


UNITS = {"µs": 1e3, "ms": 1e6}


def print_table(series: Sequence[Series], unit: str = "µs") -> None:
    width = max(len(s.label) for s in series)
    scale = UNITS[unit]
    print(f"  {'':{width}}  {'median':>10}  {'p10':>10}  {'p90':>10}  {'p99':>10}")
    for s in series:
        values = (s.median, s.quantile(10), s.quantile(90), s.quantile(99))
        cells = "  ".join(f"{value / scale:>7.1f} {unit}" for value in values)
        print(f"  {s.label:{width}}  {cells}")


def ratio_line(name: str, a: Series, b: Series, target: float) -> float:
    """Print `name: a/b ratio (paired) target PASS|MISS` for a target on a ratio of medians."""
    ratio = a.median / b.median
    print(
        f"  {name}: {ratio:.2f}x  (paired {paired_ratio(a, b):.2f}x)  "
        f"target <= {target:.1f}x  {verdict(ratio, target)}"
    )
    return ratio


# --- files -----------------------------------------------------------------------------------


def fsync_tree(directory: Path) -> None:
    """Flush a freshly written directory, so its write-back does not land inside the timings."""
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def work_dir(base: Path, prefix: str) -> Iterator[Path]:
    """A fresh directory under `base` (on the disk measured), removed whatever happens."""
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def copy_hall(source: Path, target: Path) -> float:
    """Copy a cached hall to a working directory and flush it; returns the seconds it took."""
    started = time.perf_counter()
    shutil.copytree(source, target)
    fsync_tree(target)
    return time.perf_counter() - started


def write_record(path: Path, record: dict[str, Any]) -> None:
    """The --json file: the run's figures, with when, how and on what code it ran."""
    full = {
        "argv": sys.argv[1:],
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        **record,
    }
    path.write_text(json.dumps(full, indent=2) + "\n")
    print(f"\nfigures written to {path}")


# --- the cache of big ledgers ----------------------------------------------------------------


def format_key(version: str) -> str:
    """What a cached hall depends on: its recipe's `version`, and the ledger's schema,
    projections and event hashing."""
    text = "\n".join(
        (
            version,
            ALL.fingerprint,
            EVENT_HASH_VERSION,
            Path(ledger_schema.__file__).read_text(),
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


Builder = Callable[[Path, int], dict[str, Any]]


def cached_hall(
    kind: str, version: str, events: int, build: Builder, *, rebuild: bool
) -> tuple[Path, dict[str, Any]]:
    """The cached hall directory `kind`-KEY-`events`/hall, built by `build(directory, events)`
    if missing. `build` returns the manifest's own entries (at least "ledger_bytes").

    Only entries of this `kind` are ever removed: an older format of the same size, or this one
    when `rebuild` is asked for. A build goes to a .building-* directory, renamed when complete.
    """
    key = format_key(version)
    entry = CACHE_DIR / f"{kind}-{key}-{events}"
    manifest_path = entry / "manifest.json"
    if rebuild and entry.exists():
        shutil.rmtree(entry)
    if manifest_path.exists():
        manifest: dict[str, Any] = json.loads(manifest_path.read_text())
        manifest["cached"] = True
        return entry / "hall", manifest
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    for stale in CACHE_DIR.glob(f"{kind}-*-{events}"):
        shutil.rmtree(stale)  # an older format of the same size
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=CACHE_DIR))
    try:
        print(f"building a {events:,}-event ledger in {building} ...", flush=True)
        started = time.perf_counter()
        extra = build(building / "hall", events)
        fsync_tree(building / "hall")
        manifest = {
            "events": events,
            "build_seconds": round(time.perf_counter() - started, 1),
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "format_key": key,
            **extra,
        }
        (building / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        building.rename(entry)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    manifest["cached"] = False
    return entry / "hall", manifest


def print_cached(what: str, events: int, manifest: dict[str, Any]) -> None:
    how = "cached" if manifest["cached"] else "built now"
    print(
        f"{what}: {events:,} events, {manifest['ledger_bytes'] / 2**20:,.0f} MiB "
        f"({how}; build took {manifest['build_seconds']:.1f} s on {manifest['built_at']})"
    )


def build_rate(start: float, held: int) -> None:
    """A progress line of a build: events held so far and the rate since `start`."""
    rate = held / (time.perf_counter() - start)
    print(f"  {held:>10,} events  ({rate:,.0f} events/s)", flush=True)


# --- the baseline ----------------------------------------------------------------------------

RAW_SCHEMA = """
CREATE TABLE events (
    rowid INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    type TEXT NOT NULL,
    hlc TEXT NOT NULL,
    prev TEXT NOT NULL,
    body TEXT NOT NULL,
    hash TEXT NOT NULL,
    sig TEXT NOT NULL,
    UNIQUE (origin, seq)
);
CREATE INDEX events_hlc ON events (hlc)
"""
RAW_INSERT = (
    "INSERT INTO events (origin, seq, type, hlc, prev, body, hash, sig) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
RAW_LABEL = "raw sqlite3 INSERT"


def sale_body(receipt: int) -> dict[str, Any]:
    """A `TicketsSold` body of the shape pos.services.sales records for a booth sale."""
    return {
        "serial": "A123456",
        "qty": 3,
        "price": 100,
        "amount": 300,
        "seller": "S1",
        "receipt": receipt,
        "bin": "drawer-1",
        "session": "2026-11-28/1",
        "buyer": None,
    }


class RawTable:
    """The baseline: stdlib sqlite3, one row per BEGIN IMMEDIATE..COMMIT, like the ledger's.

    Its rows are ledger rows in size and content: a canonical sale body and fresh random hex for
    the hash, signature and prev link. Only the signing is left out. (The content matters: on
    this kind of virtual disk, rewriting the same bytes commits measurably faster than new ones.)
    Rows are made in advance by `prepare`, outside the timings.
    """

    def __init__(self, path: Path, *, rows: int) -> None:
        self.conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        for statement in RAW_SCHEMA.split(";"):
            self.conn.execute(statement)
        self._made = 0
        self._prev = "0" * 64
        self._rows: list[tuple[Any, ...]] = []
        self.prepare(rows)
        self.conn.execute("BEGIN IMMEDIATE")
        for _ in range(rows):
            self.conn.execute(RAW_INSERT, self._rows.pop())
        self.conn.execute("COMMIT")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def prepare(self, count: int) -> None:
        """Make `count` more rows, to be inserted in seq order."""
        made = []
        for seq in range(self._made + 1, self._made + count + 1):
            hlc = f"{1795906800000 + seq // 100_000:013d}.{seq % 100_000:05d}"
            body = canonical_json(sale_body(seq))
            digest = os.urandom(32).hex()
            signature = os.urandom(64).hex()
            made.append(("manager", seq, "TicketsSold", hlc, self._prev, body, digest, signature))
            self._prev = digest
        self._made += count
        self._rows[:0] = reversed(made)  # popped from the end

    def insert_commit(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(RAW_INSERT, self._rows.pop())
        self.conn.execute("COMMIT")

    def insert(self) -> None:
        self.conn.execute(RAW_INSERT, self._rows.pop())

    def close(self) -> None:
        self.conn.close()


@dataclass
class Subject:
    """A call measured against the baseline, and the connection whose transaction it uses."""

    label: str
    call: Callable[[], object]
    conn: sqlite3.Connection


@dataclass
class Figures:
    durable: list[Series]  # the raw INSERT+COMMIT first, then each subject
    in_transaction: list[Series]  # the same, inside one open transaction


def measure(raw: RawTable, subjects: Sequence[Subject], *, rounds: int, warmup: int) -> Figures:
    """Two phases of interleaved rounds, one call per target per round.

    1. durable: the raw INSERT + COMMIT against each subject, each call its own transaction;
    2. the same calls back to back inside one open transaction per connection, rolled back
       after: no commit, no fsync. The CPU part alone, with warm caches (after the idle wait of
       an fsync the same code runs markedly slower on a VM, so it underestimates the CPU share
       of a durable call).

    `raw` needs 2 * (warmup + rounds) rows prepared.
    """
    durable = interleaved(
        [(RAW_LABEL + " + COMMIT", raw.insert_commit)] + [(s.label, s.call) for s in subjects],
        rounds=rounds,
        warmup=warmup,
    )
    conns: list[sqlite3.Connection] = []
    for conn in [raw.conn] + [s.conn for s in subjects]:
        if all(conn is not seen for seen in conns):
            conns.append(conn)
    for conn in conns:
        conn.execute("BEGIN IMMEDIATE")
    try:
        in_transaction = interleaved(
            [(RAW_LABEL, raw.insert)] + [(s.label, s.call) for s in subjects],
            rounds=rounds,
            warmup=warmup,
        )
    finally:
        for conn in conns:
            conn.execute("ROLLBACK")
    return Figures(durable, in_transaction)


def print_figures(figures: Figures, what: str) -> None:
    """The two phases' tables; `what` names the durable call (e.g. "durable append")."""
    print(f"\n{what} (BEGIN IMMEDIATE..COMMIT, WAL, synchronous=FULL):")
    print_table(figures.durable)
    print("\nthe same, back to back inside one open transaction (CPU only, warm; rolled back):")
    print_table(figures.in_transaction)


# --- halls -----------------------------------------------------------------------------------


def init_training_hall(directory: Path, environ: dict[str, str] | None = None) -> None:
    """The benchmarks' training hall: its manager station in `directory`, no staff yet."""
    hall_service.init_hall(
        directory,
        organisation="Bench Charities",
        location="Bench Hall",
        time_zone="America/New_York",
        training=True,
        environ=environ or ENVIRON,
    )


def training_booth(root: Path, environ: dict[str, str] | None = None) -> Path:
    """A training hall under `root`: the manager station (root/manager) with a manager (M1) and
    a seller-redeemer (S1), and a booth station joined to it (root/booth-1). Returns the booth's
    directory."""
    env = environ or ENVIRON
    manager_dir, booth_dir = root / "manager", root / BOOTH
    init_training_hall(manager_dir, env)
    with Station(manager_dir, environ=env) as st:
        staff.add_staff(
            st,
            badge=MANAGER,
            name="Mary Manager",
            roles=["manager"],
            date_of_birth="1970-01-01",
            operator=None,
        )
        staff.add_staff(
            st,
            badge=SELLER,
            name="Sam Seller",
            roles=["seller", "redeemer"],
            date_of_birth="1990-05-05",
            operator=MANAGER,
        )
        bundle = hall_service.add_station(st, name=BOOTH, role="booth", operator=MANAGER)
    bundle_path = root / f"{BOOTH}.join.json"
    bundle_path.write_text(json.dumps(bundle))
    hall_service.join(booth_dir, bundle_path, environ=env)
    bundle_path.unlink()
    return booth_dir


def flare(serial: str, *, tickets: int, prizes: Sequence[tuple[str, int]]) -> dict[str, Any]:
    """A $1.00 pull-tab deal's flare in the interchange form: `prizes` as (amount, count)."""
    return {
        "serial": serial,
        "game": "pull-tab",
        "name": "Lucky 7s",
        "form": "LS-4000",
        "manufacturer": "Arrow",
        "tickets": tickets,
        "price": "1.00",
        "prizes": [{"amount": amount, "count": count} for amount, count in prizes],
        "supplier": {"name": "Bingo Supply Co", "address": "1 Main St, Richmond VA"},
        "invoice": f"INV-{serial}",
    }


def pull(source: Station, target: Station) -> int:
    """Sync one way, as the LAN service does: every event `target` lacks, through its apply
    path (hash, signature, chain). Returns how many were new."""
    return replicate.pull(source.ledger, target.ledger)


def selling_booth(root: Path, data: dict[str, Any]) -> Path:
    """`training_booth` whose booth holds the deal `data` in bin drawer-1, a session open: the
    manager takes the deal in and opens the session, the booth syncs and puts the deal in play."""
    booth_dir = training_booth(root)
    with (
        Station(root / "manager", environ=ENVIRON) as manager,
        Station(booth_dir, environ=ENVIRON) as booth,
    ):
        deals.receive_deal(manager, deals.flare_from_mapping(data), operator=MANAGER)
        sessions.open_session(manager, operator=MANAGER)
        pull(manager, booth)
        deals.open_deal(booth, data["serial"], bin_name="drawer-1", operator=SELLER)
    return booth_dir
