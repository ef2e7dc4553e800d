"""Benchmark of a booth sale (issue 3). Run by hand, never by the tests:

    .venv/bin/python bench/sell.py                               # 1,000 rounds, 30 processes
    .venv/bin/python bench/sell.py --rounds 200 --runs 10        # a quicker run

It measures, on real files in one directory of the same disk:

1. one `pos.services.sales.sell` of one ticket through the service layer (every rule of a sale
   checked, then the TicketsSold event; its own BEGIN IMMEDIATE..COMMIT, WAL, synchronous=FULL)
   at a booth station holding a $1.00 pull-tab deal in bin drawer-1, a session open, the
   operator a seller, --history sales (1,000) in its log; against a raw stdlib sqlite3
   single-row INSERT + COMMIT with the same settings. Target: ratio <= 3.0. For the reader,
   the sale's event appended alone (`Station.append`, no rule checked) is timed in the same
   rounds. (bench/redeem.py times the same sale at a booth with a 1,000,000-event history.)
2. `booth --hall DIR sell SERIAL --qty 1 --as S1` as a whole process, start-up included (the
   console script, BOOTH_NOW set for the training hall). Target: median under 400 ms. Timed in
   the same rounds as `python -c pass` (the floor: the same interpreter starting and stopping)
   and `python -c "import pos.cli.main"` (start-up with Booth's imports, nothing run). These run
   from compiled bytecode, as an installed Booth does (PYTHONPYCACHEPREFIX in the run's work
   directory, filled by the warm-up rounds); `booth sell` is also timed with this shell's own
   bytecode settings, for the reader (PYTHONDONTWRITEBYTECODE=1 and sources newer than their
   __pycache__ mean compiling them at every start).
   When the target is missed (or with --importtime), `python -X importtime` of the same command
   says where the start-up time goes.

The machine is shared and noisy, so only ratios within one run mean anything: the targets are
measured in the same rounds, one call each per round, in an order that rotates through every
permutation (GC off, warm-up rounds discarded), and compared by their medians. A second,
informative phase of part 1 times the same calls back to back inside one open transaction: the
CPU part alone, with warm caches.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness
from harness import ENVIRON, SELLER, Figures, RawTable, Series, Subject

from pos.services import sales
from pos.services.numbering import next_receipt_number
from pos.services.station import Station

SERIAL = "SELL01"
TICKETS = 1_000_000  # enough for every sale of a full run
DURABLE_TARGET = 3.0
PROCESS_TARGET_MS = 400.0
IMPORT_PROFILES = 5  # `python -X importtime` runs whose medians are reported
PYTHON = Path(sys.executable)
BOOTH_SCRIPT = PYTHON.parent / "booth"


# --- 1. through the service layer ------------------------------------------------------------


def measure_service(booth_dir: Path, raw: RawTable, *, rounds: int, warmup: int) -> Figures:
    with Station(booth_dir, environ=ENVIRON) as st:
        sold = sales.sell(st, SERIAL, qty=1, operator=SELLER)
        template = st.ledger.get(*_event_key(sold.event))
        if template is None:
            raise RuntimeError(f"the sale {sold.event} is not in the ledger")
        body = template.body

        def sell() -> object:
            return sales.sell(st, SERIAL, qty=1, operator=SELLER)

        def append() -> object:
            return st.append("TicketsSold", {**body, "receipt": next_receipt_number(st)})

        return harness.measure(
            raw,
            [
                Subject("sales.sell, 1 ticket", sell, st.ledger.conn),
                Subject("Station.append of its event alone", append, st.ledger.conn),
            ],
            rounds=rounds,
            warmup=warmup,
        )


def _event_key(event_id: str) -> tuple[str, int]:
    origin, seq = event_id.rsplit(":", 1)
    return origin, int(seq)


def report_service(figures: Figures) -> float:
    harness.print_figures(figures, "durable sale")
    raw_d, sell_d, append_d = figures.durable
    raw_c, sell_c, append_c = figures.in_transaction
    print("\nratios of medians (paired: median of the per-round ratios):")
    ratio = harness.ratio_line(
        "1. durable sales.sell / raw INSERT+COMMIT", sell_d, raw_d, DURABLE_TARGET
    )
    print(
        f"     the sale's event alone / raw INSERT+COMMIT {append_d.median / raw_d.median:.2f}x; "
        f"the rules of a sale add {(sell_d.median - append_d.median) / 1e3:.0f} µs durable, "
        f"{(sell_c.median - append_c.median) / 1e3:.0f} µs without a commit"
    )
    print(
        f"     no commit: sales.sell / raw INSERT {sell_c.median / raw_c.median:.2f}x "
        f"({sell_c.median / 1e3:.0f} µs of CPU of the {sell_d.median / 1e3:.0f} µs durable)"
    )
    return ratio


# --- 2. as a whole process -------------------------------------------------------------------


def booth_sell_argv(booth_dir: Path) -> list[str]:
    return [
        str(BOOTH_SCRIPT),
        "--hall",
        str(booth_dir),
        "sell",
        SERIAL,
        "--qty",
        "1",
        "--as",
        SELLER,
    ]


def process_environ(pycache: Path | None) -> dict[str, str]:
    """The measured processes' environment: this shell's, without BOOTH_ settings, with the
    training hall's BOOTH_NOW. With `pycache`, compiled bytecode is read from and written to
    that directory (PYTHONPYCACHEPREFIX) whatever the shell says: an installed Booth runs from
    compiled bytecode, so the first (warm-up) run compiles and the measured ones only load."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOOTH_")}
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return {**env, **ENVIRON}


def stale_bytecode() -> tuple[int, int]:
    """(modules, modules whose __pycache__ bytecode is missing or older than the source) of
    Booth's packages: what a process compiles at each start when it may not write bytecode."""
    modules = stale = 0
    for package in ("pos", "sync", "hardware", "kiosk"):
        for source in (harness.BENCH_DIR.parent / package).rglob("*.py"):
            modules += 1
            compiled = Path(importlib.util.cache_from_source(str(source)))
            if not compiled.exists() or compiled.stat().st_mtime < source.stat().st_mtime:
                stale += 1
    return modules, stale


def run_process(argv: list[str], env: dict[str, str], cwd: Path) -> Callable[[], object]:
    """A call that runs `argv` to its end, in `cwd` (so that `python -c` finds no package in
    the directory it was started from)."""

    def run() -> object:
        done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr}")
        return done

    return run


def measure_process(booth_dir: Path, pycache: Path, *, runs: int, warmup: int) -> list[Series]:
    env, cwd = process_environ(pycache), booth_dir.parent
    python, booth = str(PYTHON), booth_sell_argv(booth_dir)
    return harness.interleaved(
        [
            ("python -c pass", run_process([python, "-c", "pass"], env, cwd)),
            (
                'python -c "import pos.cli.main"',
                run_process([python, "-c", "import pos.cli.main"], env, cwd),
            ),
            ("booth sell --qty 1", run_process(booth, env, cwd)),
            ("booth sell, this shell's bytecode", run_process(booth, process_environ(None), cwd)),
        ],
        rounds=runs,
        warmup=warmup,
    )


def report_process(series: list[Series]) -> bool:
    print("\nbooth sell as a whole process (wall time of the process, start-up included):")
    harness.print_table(series, unit="ms")
    floor, imports, booth, as_shell = series
    median_ms = booth.median / 1e6
    passed = median_ms < PROCESS_TARGET_MS
    print(
        f"\n  2. booth sell, whole process: median {median_ms:.1f} ms  "
        f"target < {PROCESS_TARGET_MS:.0f} ms  {'PASS' if passed else 'MISS'}"
    )
    print(
        f"     of which: interpreter floor {floor.median / 1e6:.1f} ms, Booth's imports "
        f"{(imports.median - floor.median) / 1e6:.1f} ms, the command itself "
        f"{(booth.median - imports.median) / 1e6:.1f} ms (differences of medians)"
    )
    modules, stale = stale_bytecode()
    setting = os.environ.get("PYTHONDONTWRITEBYTECODE")
    print(
        f"     with this shell's bytecode settings (PYTHONDONTWRITEBYTECODE="
        f"{setting if setting is not None else 'unset'}; {stale} of Booth's {modules} modules "
        f"without fresh bytecode in __pycache__): {as_shell.median / 1e6:.1f} ms"
    )
    return passed


# --- where start-up time goes ----------------------------------------------------------------

_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


@dataclass
class Imported:
    name: str
    self_us: int
    cumulative_us: int
    parent: str | None = None
    children: list[Imported] = field(default_factory=list)


def parse_importtime(stderr: str) -> list[Imported]:
    """The modules of one `-X importtime` run, each with the module that imported it."""
    pending: dict[int, list[Imported]] = {}  # children printed before their parent, by depth
    modules: list[Imported] = []
    for line in stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match is None:
            continue
        depth = (len(match.group(3)) - 1) // 2
        node = Imported(match.group(4), int(match.group(1)), int(match.group(2)))
        node.children = pending.pop(depth + 1, [])
        for child in node.children:
            child.parent = node.name
        pending.setdefault(depth, []).append(node)
        modules.append(node)
    return modules


def _root(name: str) -> str:
    return name.split(".", 1)[0]


def import_profile(argv: list[str], pycache: Path, *, runs: int) -> None:
    env = process_environ(pycache)
    profiles = []
    for _ in range(runs):
        done = subprocess.run(
            [str(PYTHON), "-X", "importtime", *argv], env=env, capture_output=True, text=True
        )  # the console script's directory first on sys.path, as when it runs by itself
        if done.returncode != 0:
            raise RuntimeError(f"importtime run exited {done.returncode}: {done.stderr[-2000:]}")
        profiles.append(parse_importtime(done.stderr))

    def median_of(values: list[int]) -> float:
        return float(statistics.median(values)) / 1e3

    by_root: dict[str, list[int]] = {}
    for profile in profiles:
        totals: dict[str, int] = {}
        for module in profile:
            totals[_root(module.name)] = totals.get(_root(module.name), 0) + module.self_us
        for root, total in totals.items():
            by_root.setdefault(root, []).append(total)
    total_ms = median_of([sum(m.self_us for m in profile) for profile in profiles])
    print(
        f"\nwhere start-up goes: python -X importtime of the same command, medians of {runs} runs"
    )
    print(f"  all imports: {total_ms:.1f} ms. By package (time spent in its own modules):")
    packages = sorted(by_root.items(), key=lambda item: -statistics.median(item[1]))
    for root, values in packages[:12]:
        print(f"    {root:<28} {median_of(values):>6.1f} ms")

    def ranked(
        pick: Callable[[Imported], str | None], *, cumulative: bool
    ) -> list[tuple[str, float]]:
        values: dict[str, list[int]] = {}
        for profile in profiles:
            for module in profile:
                key = pick(module)
                if key is not None:
                    values.setdefault(key, []).append(
                        module.cumulative_us if cumulative else module.self_us
                    )
        return sorted(((k, median_of(v)) for k, v in values.items()), key=lambda kv: -kv[1])

    def other_package(module: Imported) -> str | None:
        parent = module.parent or ""
        if _root(parent) == "pos" and _root(module.name) != "pos":
            return f"{module.name:<28} by {parent}"
        return None

    def command_module(module: Imported) -> str | None:
        return module.name if module.parent == "pos.cli.main" else None

    def pos_module(module: Imported) -> str | None:
        return module.name if _root(module.name) == "pos" else None

    print("  imports of other packages by pos modules (cumulative: the first importer pays):")
    for key, ms in ranked(other_package, cumulative=True)[:10]:
        print(f"    {ms:>6.1f} ms  {key}")
    print("  modules imported by pos.cli.main (cumulative), what lazy subcommands would defer:")
    for key, ms in ranked(command_module, cumulative=True)[:14]:
        print(f"    {ms:>6.1f} ms  {key}")
    print("  slowest pos modules to import (their own code only):")
    for key, ms in ranked(pos_module, cumulative=False)[:6]:
        print(f"    {ms:>6.1f} ms  {key}")


# --- the run ---------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=1_000, help="measured rounds of part 1")
    parser.add_argument("--warmup", type=int, default=30, help="rounds run and discarded first")
    parser.add_argument("--history", type=int, default=1_000, help="sales made before timing")
    parser.add_argument("--runs", type=int, default=30, help="measured processes of part 2")
    parser.add_argument("--run-warmup", type=int, default=3, help="process rounds discarded")
    parser.add_argument(
        "--importtime", action="store_true", help="profile start-up imports even on a PASS"
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=harness.RESULTS_DIR,
        help="where the working files go (same disk)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.rounds < 10 or args.warmup < 0 or args.runs < 5 or args.run_warmup < 1:
        parser.error("need --rounds >= 10, --warmup >= 0, --runs >= 5 and --run-warmup >= 1")
    if not BOOTH_SCRIPT.exists():
        parser.error(f"no console script {BOOTH_SCRIPT}: run this with the virtualenv's python")

    version = harness.print_header("Booth sale benchmark")
    raw: RawTable | None = None
    with harness.work_dir(args.dir, "sell-run-") as work:
        try:
            deal = harness.flare(SERIAL, tickets=TICKETS, prizes=[("5.00", 10_000)])
            booth_dir = harness.selling_booth(work / "hall", deal)
            with Station(booth_dir, environ=ENVIRON) as st, st.ledger.transaction():
                for _ in range(args.history):
                    sales.sell(st, SERIAL, qty=1, operator=SELLER)
                held = st.ledger.count()
            raw = RawTable(work / "raw.db", rows=held)
            raw.prepare(2 * (args.warmup + args.rounds))  # one row per call of either phase
            harness.fsync_tree(work)
            print(
                f"work dir: {work}; booth station {harness.BOOTH} holds deal {SERIAL} in "
                f"drawer-1, a session open, {held:,} events in its log"
            )
            print(
                f"\n1. rounds: {args.rounds:,} measured (+{args.warmup} warm-up), one call per "
                "target per round, order rotating through every permutation"
            )
            figures = measure_service(booth_dir, raw, rounds=args.rounds, warmup=args.warmup)
            durable_ratio = report_service(figures)
        finally:
            if raw is not None:
                raw.close()

        print(
            f"\n2. rounds: {args.runs} measured (+{args.run_warmup} warm-up), one process per "
            "target per round, order rotating through every permutation"
        )
        print(f"   {' '.join(booth_sell_argv(booth_dir))}  (BOOTH_NOW={ENVIRON['BOOTH_NOW']})")
        pycache = work / "pycache"
        processes = measure_process(booth_dir, pycache, runs=args.runs, warmup=args.run_warmup)
        process_passed = report_process(processes)
        if args.importtime or not process_passed:
            import_profile(booth_sell_argv(booth_dir), pycache, runs=IMPORT_PROFILES)

    if args.json:
        record: dict[str, Any] = {
            "code": version,
            "durable": {s.label: s.summary() for s in figures.durable},
            "in_transaction": {s.label: s.summary() for s in figures.in_transaction},
            "process": {s.label: s.summary() for s in processes},
            "ratios": {"durable": durable_ratio},
            "process_median_ms": processes[2].median / 1e6,
        }
        harness.write_record(args.json, record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
