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
import itertools
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import harness
from harness import ENVIRON, Figures, RawTable, Subject, sale_body

from pos.ledger import Event, Ledger
from pos.ledger.verify import verify
from pos.services.station import LEDGER_FILE, Station

CACHE_VERSION = 1  # bump when the way the cached log is built changes
BUILD_CHUNK = 100_000  # events per transaction while building a log
TAIL_CHECK = 1_000  # events at the end of the big log whose chain is checked on every run
DURABLE_TARGET = 2.0
SCALE_TARGET = 1.2


# --- ledgers on disk -------------------------------------------------------------------------


def build_ledger(directory: Path, events: int, *, progress: bool) -> float:
    """A training hall whose log holds `events` events; returns the seconds it took."""
    start = time.perf_counter()
    harness.init_training_hall(directory)
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
                harness.build_rate(start, held)
        ledger.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if ledger.count() != events:
            raise RuntimeError(f"built {ledger.count()} events, wanted {events}")
    harness.fsync_tree(directory)
    return time.perf_counter() - start


def build_cached(directory: Path, events: int) -> dict[str, Any]:
    build_ledger(directory, events, progress=True)
    return {"ledger_bytes": (directory / LEDGER_FILE).stat().st_size}


def cached_ledger(events: int, *, rebuild: bool) -> tuple[Path, dict[str, Any]]:
    """The cached hall directory of an `events`-event log, built if missing."""
    return harness.cached_hall("ledger", str(CACHE_VERSION), events, build_cached, rebuild=rebuild)


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


# --- the run ---------------------------------------------------------------------------------


def measure(
    raw: RawTable, small: Station, big: Station, labels: Sequence[str], *, rounds: int, warmup: int
) -> Figures:
    receipts = itertools.count(10_000_000)

    def append_to(st: Station) -> Callable[[], object]:
        return lambda: st.append("TicketsSold", sale_body(next(receipts)))

    small_label, big_label = labels
    return harness.measure(
        raw,
        [
            Subject(small_label, append_to(small), small.ledger.conn),
            Subject(big_label, append_to(big), big.ledger.conn),
        ],
        rounds=rounds,
        warmup=warmup,
    )


def report(figures: Figures, *, small: int, big: int) -> dict[str, float]:
    harness.print_figures(figures, "durable append")
    raw_d, small_d, big_d = figures.durable
    raw_c, small_c, big_c = figures.in_transaction
    print("\nratios of medians (paired: median of the per-round ratios):")
    durable_ratio = harness.ratio_line(
        f"1. durable append / raw INSERT+COMMIT ({small:,} events)", small_d, raw_d, DURABLE_TARGET
    )
    scale_ratio = harness.ratio_line(
        f"2. durable append, {big:,} / {small:,} events", big_d, small_d, SCALE_TARGET
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
        "--dir",
        type=Path,
        default=harness.RESULTS_DIR,
        help="where the working copies go (same disk)",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached big log")
    parser.add_argument("--verify", action="store_true", help="run `booth verify` on the big log")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.events < args.small or args.small < 2 or args.rounds < 10 or args.warmup < 0:
        parser.error("need --events >= --small >= 2, --rounds >= 10 and --warmup >= 0")

    version = harness.print_header("Booth ledger append benchmark")
    cached_hall, manifest = cached_ledger(args.events, rebuild=args.rebuild)
    harness.print_cached("big log", args.events, manifest)

    opened: list[Station] = []
    raw: RawTable | None = None
    with harness.work_dir(args.dir, "ledger-run-") as work:
        try:
            copy_seconds = harness.copy_hall(cached_hall, work / "big")
            build_ledger(work / "small", args.small, progress=False)
            raw = RawTable(work / "raw.db", rows=args.small)
            raw.prepare(2 * (args.warmup + args.rounds))  # one row per call of either phase
            harness.fsync_tree(work)
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
                    "booth verify on the big log: "
                    f"{'ok' if verified.ok else verified.problems[:3]} "
                    f"({time.perf_counter() - started:.1f} s)"
                )
                if not verified.ok:
                    return 2

            print(
                f"\nrounds: {args.rounds:,} measured (+{args.warmup} warm-up), one call per "
                "target per round, order rotating through every permutation"
            )
            labels = (
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

    if args.json:
        harness.write_record(
            args.json,
            {
                "code": version,
                "big_log": manifest,
                "durable": {s.label: s.summary() for s in figures.durable},
                "in_transaction": {s.label: s.summary() for s in figures.in_transaction},
                "ratios": ratios,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
