"""One station as its own process, the way `booth run` runs it: the station open for commands
on the main thread, the sync service beside it. Driven line by line on stdin (test harness).

    python -m tests.sync.station_proc HALL_DIR PORT [--offline] [--peer URL ...]
    sell SERIAL QTY | digest | sync | quit
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pos.ledger.verify import verify
from pos.services import sales
from pos.services.station import Station

NOW = {"BOOTH_NOW": "2026-11-28T23:00:00+00:00"}


def main(argv: list[str]) -> None:
    hall_dir, port = Path(argv[0]), int(argv[1])
    offline = "--offline" in argv
    peers = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--peer"]
    with Station(hall_dir, environ=NOW) as st:
        service = None
        if not offline:
            from sync.service import SyncService

            service = SyncService(
                st, port=port, static_peers=peers, interval=0.3, discover=not peers
            )
            service.start()
        print(json.dumps({"ready": st.id, "port": service.port if service else None}), flush=True)
        try:
            for line in sys.stdin:
                words = line.split()
                if not words:
                    continue
                if words[0] == "quit":
                    break
                if words[0] == "sell":
                    result = sales.sell(st, words[1], qty=words[2], operator="S1")
                    print(json.dumps({"sold": result["receipt"]}), flush=True)
                elif words[0] == "digest":
                    report = verify(st.ledger)
                    print(
                        json.dumps(
                            {
                                "digest": report.digest,
                                "ok": report.ok,
                                "events": sum(s.events for s in report.origins.values()),
                                "sales": st.ledger.conn.execute(
                                    "SELECT count(*) FROM events WHERE type = 'TicketsSold'"
                                ).fetchone()[0],
                            }
                        ),
                        flush=True,
                    )
                elif words[0] == "sync" and service is not None:
                    print(json.dumps({"synced": service.sync_round()}), flush=True)
        finally:
            if service is not None:
                service.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
