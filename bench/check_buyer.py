"""Benchmark (run by hand): rule D's eligibility check with 50,000 shifts and 1,000,000 events,
against a single indexed SQLite point lookup of the same run (target at most 5.0x); and the
import of a 10,000-shift roster (target under 2 s).

    .venv/bin/python bench/check_buyer.py [--events N] [--shifts N] [--rounds N] [--rebuild]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import harness
from harness import ENVIRON, MANAGER

from pos.services import eligibility, players, roster
from pos.services.station import Station

VERSION = "check-buyer-1"
HEADER = "name,date_of_birth,badge,organisation,date,start,end,duty\n"


def roster_csv(path: Path, shifts: int, *, people: int = 2_000) -> Path:
    start = date(2026, 1, 1)
    rows = []
    for n in range(shifts):
        person = n % people
        day = start + timedelta(days=n // people)
        rows.append(
            f"Worker {person},1980-01-01,W{person},Bench Charities,{day.isoformat()},"
            f"17:00,23:00,{'sell' if n % 3 else 'redeem'}\n"
        )
    path.write_text(HEADER + "".join(rows))
    return path


def build(directory: Path, events: int, shifts: int = 50_000) -> dict[str, Any]:
    root = directory.parent / "root"
    booth_dir = harness.selling_booth(
        root, harness.flare("A123456", tickets=10_000_000, prizes=[("5.00", 100_000)])
    )
    with Station(booth_dir, environ=ENVIRON) as st:
        roster.import_roster(st, roster_csv(root / "roster.csv", shifts), operator=MANAGER)
        st.ledger.conn.execute("PRAGMA synchronous=OFF")  # building only
        started = time.perf_counter()
        receipt = 0
        while st.ledger.count() < events:
            with st.ledger.transaction():
                for _ in range(min(50_000, events - st.ledger.count())):
                    receipt += 1
                    st.append(
                        "TicketsSold",
                        {**harness.sale_body(receipt), "seller": f"W{receipt % 2_000}"},
                    )
            harness.build_rate(started, st.ledger.count())
    booth_dir.rename(directory)
    return {"ledger_bytes": (directory / "ledger.db").stat().st_size, "shifts": shifts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    harness.print_header("check_buyer: rule D's check against a point lookup")
    with tempfile.TemporaryDirectory(dir=harness.RESULTS_DIR) as tmp:
        fresh = harness.selling_booth(
            Path(tmp) / "fresh", harness.flare("B1", tickets=1000, prizes=[("1.00", 10)])
        )
        csv_path = roster_csv(Path(tmp) / "10k.csv", 10_000)
        with Station(fresh, environ=ENVIRON) as st:
            start = time.perf_counter()
            imported = roster.import_roster(st, csv_path, operator=MANAGER)
            import_s = time.perf_counter() - start
        print(
            f"  import a {imported['rows']:,}-shift roster: {import_s:.2f} s  target < 2 s  "
            f"{'PASS' if import_s < 2 else 'MISS'}"
        )
    hall, manifest = harness.cached_hall(
        "check-buyer", VERSION, args.events, build, rebuild=args.rebuild
    )
    harness.print_cached("ledger", args.events, manifest)
    with tempfile.TemporaryDirectory(dir=harness.RESULTS_DIR) as tmp:
        work = Path(tmp) / "hall"
        harness.copy_hall(hall, work)
        with Station(work, environ=ENVIRON) as st:
            worker = players.resolve_buyer(st, "W7")  # sold this deal: blocked at once
            other = players.resolve_buyer(st, "S1")  # staff, in no deal, not rostered today
            assert worker is not None and other is not None
            lookup = st.ledger.conn.execute
            series = harness.interleaved(
                [
                    (
                        "indexed point lookup",
                        lambda: lookup(
                            "SELECT hash FROM events WHERE origin = ? AND seq = ?", (st.id, 500)
                        ).fetchone(),
                    ),
                    (
                        "eligibility check (rule D)",
                        lambda: eligibility.purchase_decision(st, worker, "A123456"),
                    ),
                    (
                        "check, staff allowed (reads all)",
                        lambda: eligibility.purchase_decision(st, other, "A123456"),
                    ),
                ],
                rounds=args.rounds,
                warmup=20,
            )
            decision = eligibility.purchase_decision(st, worker, "A123456")
    harness.print_table(series)
    print(f"  the check says: {decision.verdict} ({decision.rule}) {decision.message[:70]}")
    harness.ratio_line("eligibility check / point lookup", series[1], series[0], 5.0)
    harness.ratio_line("check, staff allowed / point lookup", series[2], series[0], 5.0)


if __name__ == "__main__":
    main()
