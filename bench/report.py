"""Benchmark (run by hand): the day report with 1,000,000 events in the ledger, against a full
rebuild of the projections from the log in the same run. Target: the report at most 1/20 of the
rebuild (it reads projections kept up to date event by event; it never rescans the log).

    .venv/bin/python bench/report.py [--events N] [--rounds N] [--rebuild]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import harness
from harness import ENVIRON, MANAGER, SELLER

from pos.services import reports
from pos.services.station import Station

DAYS = 200  # past game dates the ledger spans; the report is for the last one
VERSION = "report-1"


def build(directory: Path, events: int) -> dict[str, Any]:
    """A booth whose ledger holds `events` signed events: sales over DAYS sessions, each opened
    and closed, so the report's day is one among many."""
    root = directory.parent / "root"
    booth_dir = harness.selling_booth(
        root, harness.flare("A123456", tickets=10_000_000, prizes=[("5.00", 100_000)])
    )
    with Station(booth_dir, environ=ENVIRON) as st:
        st.ledger.conn.execute("PRAGMA synchronous=OFF")  # building only
        per_day = max(1, events // DAYS)
        receipt = 0
        started = time.perf_counter()
        with st.ledger.transaction():
            st.append(
                "SessionClosed",
                {
                    "session": "2026-11-28/1",
                    "by": MANAGER,
                    "carried_over": ["A123456"],
                    "event_games_ended": [],
                },
            )
        for day in range(DAYS):
            session = f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}/{1 + day // 336}"
            with st.ledger.transaction():
                st.append(
                    "SessionOpened",
                    {
                        "session": session,
                        "game_date": session[:10],
                        "number": 1,
                        "by": MANAGER,
                        "resumed": [],
                    },
                )
                for _ in range(per_day):
                    receipt += 1
                    st.append(
                        "TicketsSold",
                        {**harness.sale_body(receipt), "session": session, "seller": SELLER},
                    )
                if day < DAYS - 1:
                    st.append(
                        "SessionClosed",
                        {
                            "session": session,
                            "by": MANAGER,
                            "carried_over": [],
                            "event_games_ended": [],
                        },
                    )
            if day % 20 == 0:
                harness.build_rate(started, st.ledger.count())
        last_day = session[:10]
    booth_dir.rename(directory)
    return {"ledger_bytes": (directory / "ledger.db").stat().st_size, "day": last_day}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached ledger")
    args = parser.parse_args()
    harness.print_header("report: the day report against a full rebuild")
    hall, manifest = harness.cached_hall(
        "report", VERSION, args.events, build, rebuild=args.rebuild
    )
    harness.print_cached("ledger", args.events, manifest)
    with tempfile.TemporaryDirectory(dir=harness.RESULTS_DIR) as tmp:
        work = Path(tmp) / "hall"
        harness.copy_hall(hall, work)
        with Station(work, environ=ENVIRON) as st:
            day = manifest["day"]
            reports.day_report(st, day)
            report_times = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                result = reports.day_report(st, day)
                report_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            replayed = st.ledger.rebuild()
            rebuild_s = time.perf_counter() - start
    report_s = statistics.median(report_times)
    print(
        f"  day report ({day}: {len(result['deals'])} deals, gross ${result['gross']}): "
        f"median {report_s * 1000:.1f} ms over {args.rounds} runs"
    )
    print(f"  full rebuild of the projections ({replayed:,} events): {rebuild_s:.1f} s")
    ratio = report_s / rebuild_s
    print(
        f"  report / rebuild = 1/{1 / ratio:,.0f}  target at most 1/20  "
        f"{'PASS' if ratio <= 1 / 20 else 'MISS'}"
    )


if __name__ == "__main__":
    main()
