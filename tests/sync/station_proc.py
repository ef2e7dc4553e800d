"""One station as its own process, the way `booth run` runs it: the station open for commands
on the main thread, the sync service beside it. Driven line by line on stdin (test harness).

    python -m tests.sync.station_proc HALL_DIR PORT [--offline] [--peer URL ...]
                                      [--address ADDR]
    sell SERIAL QTY | digest | sync | quit
    redeem CODE | peers | tally

`--address` (alias `--interface`) binds the server and zeroconf to ADDR (127.0.0.1 by default).
`redeem` answers {"redeemed": ...} or {"refused": RULE, "message": ...}; `peers` lists the
peers the service knows; `tally` lists every sale and redemption the ledger holds.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

from pos.domain.money import json_form
from pos.errors import BoothError, RuleRefused
from pos.ledger.verify import verify
from pos.services import sales, winners
from pos.services.station import Station

NOW = {"BOOTH_NOW": "2026-11-28T23:00:00+00:00"}


def _option(argv: list[str], *names: str) -> str | None:
    for i, arg in enumerate(argv[:-1]):
        if arg in names:
            return argv[i + 1]
    return None


def _redeem(st: Station, code: str) -> dict[str, Any]:
    try:
        return {"redeemed": json_form(winners.redeem(st, code, operator="S1"))}
    except RuleRefused as refusal:
        return {"refused": refusal.rule, "message": refusal.message}
    except BoothError as error:
        return {"refused": type(error).__name__, "message": error.message}


def _tally(st: Station) -> dict[str, Any]:
    sold, redeemed = [], []
    for origin, seq, kind, body_json in st.ledger.conn.execute(
        "SELECT origin, seq, type, body FROM events "
        "WHERE type IN ('TicketsSold', 'WinnerRedeemed') ORDER BY origin, seq"
    ):
        body = json.loads(body_json)
        if kind == "TicketsSold":
            sold.append([origin, body["receipt"], body["serial"], body["qty"]])
        else:
            redeemed.append([origin, body["serial"], body["ticket"], seq])
    return {"sales": sold, "redemptions": redeemed}


def main(argv: list[str]) -> None:
    hall_dir, port = Path(argv[0]), int(argv[1])
    offline = "--offline" in argv
    peers = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--peer"]
    address = _option(argv, "--address", "--interface") or "127.0.0.1"
    peer_timeout = _option(argv, "--peer-timeout")
    if peer_timeout is not None:
        # How long one pull may wait on a peer (connect, each read); the client's default is
        # 30 s. SyncService has no setting for it: the harness wraps the class it calls.
        import sync.service
        from sync.client import Peer

        sync.service.Peer = functools.partial(Peer, timeout=float(peer_timeout))  # type: ignore[misc]
    with Station(hall_dir, environ=NOW) as st:
        service = None
        if not offline:
            from sync.service import SyncService

            service = SyncService(
                st,
                port=port,
                address=address,
                static_peers=peers,
                interval=0.3,
                discover=not peers,
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
                    print(json.dumps({"sold": result.receipt}), flush=True)
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
                elif words[0] == "redeem":
                    print(json.dumps(_redeem(st, words[1])), flush=True)
                elif words[0] == "peers":
                    known = [] if service is None else list(service.peers.values())
                    print(
                        json.dumps(
                            {
                                "peers": [
                                    {
                                        "url": p.url,
                                        "source": p.source,
                                        "station": p.station,
                                        "failures": p.failures,
                                    }
                                    for p in known
                                ]
                            }
                        ),
                        flush=True,
                    )
                elif words[0] == "tally":
                    print(json.dumps(_tally(st)), flush=True)
        finally:
            if service is not None:
                service.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
