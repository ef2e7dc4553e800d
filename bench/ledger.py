"""Benchmark of a durable ledger append. Run by hand, never by the tests:

    .venv/bin/python bench/ledger.py                 # 1,000,000-event log (built once, cached)
    .venv/bin/python bench/ledger.py --events 100000 --rounds 500   # a quicker run

It measures, on real files in one directory of the same disk:

1. one `Station.append` of a sale-sized signed event (its own BEGIN IMMEDIATE..COMMIT, WAL,
   synchronous=FULL, with its projection update) in a small log, against a raw stdlib sqlite3
   single-row INSERT + COMMIT into a table shaped like `events`, with the same settings.
   Target: ratio <= 2.0.
2. the same append in a log of --events events (1,000,000 by default) against one of --small
   events (1,000). Target: ratio <= 1.2.

The machine is shared and noisy, so only ratios within one run mean anything: the three targets
are measured in the same rounds, one append each per round, in an order that rotates through
every permutation, and compared by their medians. A second, informative phase times the same
calls back to back inside one open transaction: the CPU part alone, with warm caches (after the
idle wait of an fsync the same code runs markedly slower on a VM, so it underestimates the CPU
share of a durable append).

The big log is built once through `Ledger.append`, in transactions of BUILD_CHUNK events (a valid
signed chain, projections included), and cached under bench/results/cache/, keyed by the
ledger's format (schema, projections, event hashing); each run works on a copy of it.
"""

from __future__ import annotations

import argparse
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pos.domain.canonical import EVENT_HASH_VERSION, canonical_json
from pos.ledger import Event, Ledger
from pos.ledger import schema as ledger_schema
from pos.ledger.projections import ALL
from pos.ledger.verify import verify
from pos.services.hall import init_hall
from pos.services.station import LEDGER_FILE, Station

CACHE_VERSION = 1  # bump when the way the cached log is built changes
BENCH_DIR = Path(__file__).resolve().parent
RESULTS_DIR = BENCH_DIR / "results"
CACHE_DIR = RESULTS_DIR / "cache"
ENVIRON = {"BOOTH_NOW": "2026-11-28T23:00:00+00:00"}
BUILD_CHUNK = 100_000  # events per transaction while building a log
TAIL_CHECK = 1_000  # events at the end of the big log whose chain is checked on every run
DURABLE_TARGET = 2.0
SCALE_TARGET = 1.2

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


# --- ledgers on disk -------------------------------------------------------------------------


def ledger_format_key() -> str:
    """What the cached log depends on: its schema, projections and event hashing."""
    text = "\n".join(
        (
            str(CACHE_VERSION),
            ALL.fingerprint,
            EVENT_HASH_VERSION,
            Path(ledger_schema.__file__).read_text(),
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


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


def build_ledger(directory: Path, events: int, *, progress: bool) -> float:
    """A training hall whose log holds `events` events; returns the seconds it took."""
    start = time.perf_counter()
    init_hall(
        directory,
        organisation="Bench Charities",
        location="Bench Hall",
        time_zone="America/New_York",
        training=True,
        environ=ENVIRON,
    )
    with Station(directory, environ=ENVIRON) as st:
        ledger = st.ledger
        ledger.conn.execute("PRAGMA cache_size=-262144")  # 256 MiB, this connection only
        held = ledger.count()
        while held < events:
            chunk = min(BUILD_CHUNK, events - held)
            with ledger.transaction():
                for receipt in range(held, held + chunk):
                    st.append("TicketsSold", sale_body(receipt))
            held += chunk
            if progress:
                rate = (held - 1) / (time.perf_counter() - start)
                print(f"  {held:>10,} events  ({rate:,.0f} events/s)", flush=True)
        ledger.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if ledger.count() != events:
            raise RuntimeError(f"built {ledger.count()} events, wanted {events}")
    fsync_tree(directory)
    return time.perf_counter() - start


def cached_ledger(events: int, *, rebuild: bool) -> tuple[Path, dict[str, Any]]:
    """The cached hall directory of an `events`-event log, built if missing."""
    entry = CACHE_DIR / f"ledger-{ledger_format_key()}-{events}"
    manifest_path = entry / "manifest.json"
    if rebuild and entry.exists():
        shutil.rmtree(entry)
    if manifest_path.exists():
        manifest: dict[str, Any] = json.loads(manifest_path.read_text())
        manifest["cached"] = True
        return entry / "hall", manifest
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    for stale in CACHE_DIR.glob(f"ledger-*-{events}"):
        shutil.rmtree(stale)  # an older format of the same size
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=CACHE_DIR))
    try:
        print(f"building a {events:,}-event ledger in {building} ...", flush=True)
        seconds = build_ledger(building / "hall", events, progress=True)
        manifest = {
            "events": events,
            "build_seconds": round(seconds, 1),
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "format_key": ledger_format_key(),
            "ledger_bytes": (building / "hall" / LEDGER_FILE).stat().st_size,
        }
        (building / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        building.rename(entry)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    manifest["cached"] = False
    return entry / "hall", manifest


def check_tail(ledger: Ledger, count: int) -> None:
    """The last `count` events of this station chain to each other and carry its signature."""
    key = ledger.public_key(ledger.station)
    if key is None:
        raise RuntimeError(f"no key for {ledger.station}")
    last_seq, last_hash = ledger.head(ledger.station)
    first = max(1, last_seq - count + 1)
    rows = ledger.conn.execute(
        "SELECT origin, seq, type, hlc, prev, body, hash, sig FROM events "
        "WHERE origin = ? AND seq >= ? ORDER BY seq",
        (ledger.station, first - 1),
    ).fetchall()
    events = [Event(*row) for row in rows]
    for before, event in itertools.pairwise(events):
        if event.prev != before.hash or event.seq != before.seq + 1:
            raise RuntimeError(f"the chain breaks at seq {event.seq}")
    for event in events:
        if not (event.hash_matches() and event.signed_by(key)):
            raise RuntimeError(f"event {event.seq} does not verify")
    if events[-1].hash != last_hash:
        raise RuntimeError("the chain does not end at the head")


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


# --- the run ---------------------------------------------------------------------------------


def verdict(ratio: float, target: float) -> str:
    return "PASS" if ratio <= target else "MISS"


def print_table(series: Sequence[Series]) -> None:
    width = max(len(s.label) for s in series)
    print(f"  {'':{width}}  {'median':>10}  {'p10':>10}  {'p90':>10}  {'p99':>10}")
    for s in series:
        figures = s.summary()
        cells = "  ".join(
            f"{figures[k]:>7.1f} µs" for k in ("median_us", "p10_us", "p90_us", "p99_us")
        )
        print(f"  {s.label:{width}}  {cells}")


@dataclass
class Figures:
    durable: list[Series]  # raw INSERT+COMMIT, small log, big log
    in_transaction: list[Series]  # the same three, inside one open transaction


def measure(
    raw: RawTable, small: Station, big: Station, labels: Sequence[str], *, rounds: int, warmup: int
) -> Figures:
    receipts = itertools.count(10_000_000)

    def append_to(st: Station) -> Callable[[], object]:
        return lambda: st.append("TicketsSold", sale_body(next(receipts)))

    raw_label, small_label, big_label = labels
    # The durable append: each call its own BEGIN IMMEDIATE..COMMIT.
    durable = interleaved(
        [
            (raw_label + " + COMMIT", raw.insert_commit),
            (small_label, append_to(small)),
            (big_label, append_to(big)),
        ],
        rounds=rounds,
        warmup=warmup,
    )
    # The same calls inside one open transaction, rolled back after: no commit, no fsync.
    conns = (raw.conn, small.ledger.conn, big.ledger.conn)
    for conn in conns:
        conn.execute("BEGIN IMMEDIATE")
    try:
        in_transaction = interleaved(
            [
                (raw_label, raw.insert),
                (small_label, append_to(small)),
                (big_label, append_to(big)),
            ],
            rounds=rounds,
            warmup=warmup,
        )
    finally:
        for conn in conns:
            conn.execute("ROLLBACK")
    return Figures(durable, in_transaction)


def report(figures: Figures, *, small: int, big: int) -> dict[str, float]:
    print("\ndurable append (BEGIN IMMEDIATE..COMMIT, WAL, synchronous=FULL):")
    print_table(figures.durable)
    print("\nthe same, back to back inside one open transaction (CPU only, warm; rolled back):")
    print_table(figures.in_transaction)

    raw_d, small_d, big_d = figures.durable
    raw_c, small_c, big_c = figures.in_transaction
    durable_ratio = small_d.median / raw_d.median
    scale_ratio = big_d.median / small_d.median
    print("\nratios of medians (paired: median of the per-round ratios):")
    print(
        f"  1. durable append / raw INSERT+COMMIT ({small:,} events): "
        f"{durable_ratio:.2f}x  (paired {paired_ratio(small_d, raw_d):.2f}x)  "
        f"target <= {DURABLE_TARGET:.1f}x  {verdict(durable_ratio, DURABLE_TARGET)}"
    )
    print(
        f"  2. durable append, {big:,} / {small:,} events: "
        f"{scale_ratio:.2f}x  (paired {paired_ratio(big_d, small_d):.2f}x)  "
        f"target <= {SCALE_TARGET:.1f}x  {verdict(scale_ratio, SCALE_TARGET)}"
    )
    print(
        f"     no commit: append / raw INSERT {small_c.median / raw_c.median:.2f}x; "
        f"append, {big:,} / {small:,} events {big_c.median / small_c.median:.2f}x"
    )
    return {"durable": durable_ratio, "scale": scale_ratio}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=1_000_000, help="events in the big log")
    parser.add_argument("--small", type=int, default=1_000, help="events in the small log")
    parser.add_argument("--rounds", type=int, default=1_000, help="measured rounds")
    parser.add_argument("--warmup", type=int, default=30, help="rounds run and discarded first")
    parser.add_argument(
        "--dir", type=Path, default=RESULTS_DIR, help="where the working copies go (same disk)"
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached big log")
    parser.add_argument("--verify", action="store_true", help="run `booth verify` on the big log")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.events < args.small or args.small < 2 or args.rounds < 10 or args.warmup < 0:
        parser.error("need --events >= --small >= 2, --rounds >= 10 and --warmup >= 0")

    print(
        f"Booth ledger append benchmark: python {platform.python_version()}, "
        f"sqlite {sqlite3.sqlite_version}, {platform.machine()}, {os.cpu_count()} CPUs"
    )
    version = code_version()
    print(f"code: {version}")
    cached_hall, manifest = cached_ledger(args.events, rebuild=args.rebuild)
    how = "cached" if manifest["cached"] else "built now"
    print(
        f"big log: {args.events:,} events, {manifest['ledger_bytes'] / 2**20:,.0f} MiB "
        f"({how}; build took {manifest['build_seconds']:.1f} s on {manifest['built_at']})"
    )

    args.dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ledger-run-", dir=args.dir))
    opened: list[Station] = []
    raw: RawTable | None = None
    try:
        started = time.perf_counter()
        shutil.copytree(cached_hall, work / "big")
        fsync_tree(work / "big")
        copy_seconds = time.perf_counter() - started
        build_ledger(work / "small", args.small, progress=False)
        raw = RawTable(work / "raw.db", rows=args.small)
        raw.prepare(2 * (args.warmup + args.rounds))  # one row per call of either phase
        fsync_tree(work)
        print(f"work dir: {work} (big log copied in {copy_seconds:.1f} s)")

        big = Station(work / "big", environ=ENVIRON)
        opened.append(big)
        small = Station(work / "small", environ=ENVIRON)
        opened.append(small)
        check_tail(big.ledger, TAIL_CHECK)
        if args.verify:
            started = time.perf_counter()
            verified = verify(big.ledger)
            print(
                f"booth verify on the big log: {'ok' if verified.ok else verified.problems[:3]} "
                f"({time.perf_counter() - started:.1f} s)"
            )
            if not verified.ok:
                return 2

        print(
            f"\nrounds: {args.rounds:,} measured (+{args.warmup} warm-up), one call per target "
            "per round, order rotating through every permutation"
        )
        labels = (
            "raw sqlite3 INSERT",
            f"Station.append, {args.small:,}-event log",
            f"Station.append, {args.events:,}-event log",
        )
        figures = measure(raw, small, big, labels, rounds=args.rounds, warmup=args.warmup)
        ratios = report(figures, small=args.small, big=args.events)
    finally:
        for st in opened:
            st.close()
        if raw is not None:
            raw.close()
        shutil.rmtree(work, ignore_errors=True)

    if args.json:
        record = {
            "argv": sys.argv[1:],
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "code": version,
            "big_log": manifest,
            "durable": {s.label: s.summary() for s in figures.durable},
            "in_transaction": {s.label: s.summary() for s in figures.in_transaction},
            "ratios": ratios,
        }
        args.json.write_text(json.dumps(record, indent=2) + "\n")
        print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
