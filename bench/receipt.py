"""Benchmark (run by hand): building one sale receipt's ESC/POS bytes with a native QR code,
and verifying a receipt's QR payload. Targets: under 20 ms and under 1 ms on this machine.

    .venv/bin/python bench/receipt.py [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from pathlib import Path

from harness import print_header, training_booth

from hardware.printer.render import render_receipt
from pos.services import current_session, deals, receipts, sales, sessions
from pos.services.station import Station

ENVIRON = {"BOOTH_NOW": "2026-11-28T23:00:00+00:00"}


def timed(call: object, rounds: int) -> list[float]:
    out = []
    gc.disable()
    try:
        for _ in range(rounds):
            start = time.perf_counter()
            call()  # type: ignore[operator]
            out.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    print_header("receipt: build a sale receipt (native QR) and verify a payload")
    with tempfile.TemporaryDirectory() as tmp:
        booth = training_booth(Path(tmp))
        with Station(booth, environ=ENVIRON) as st:
            deals.receive_deal(
                st,
                deals.flare_from_mapping(
                    {
                        "serial": "R1",
                        "game": "pull-tab",
                        "name": "Lucky 7s",
                        "form": "F",
                        "manufacturer": "Arrow",
                        "tickets": 4000,
                        "price": "1.00",
                        "prizes": [{"amount": "5.00", "count": 100}],
                        "supplier": {"name": "S", "address": "A"},
                        "invoice": "I",
                    }
                ),
                operator="M1",
            )
            deals.open_deal(st, "R1", bin_name="drawer-1", operator="M1")
            if current_session.open_session_now(st) is None:
                sessions.open_session(st, operator="M1")
            sale = sales.sell(st, "R1", qty=3, operator="S1")
            receipt = receipts.receipt(st, st.id, sale.receipt)
            assert receipt.qr is not None
            code = receipt.qr

            def build() -> bytes:
                return render_receipt(receipts.receipt(st, st.id, sale.receipt), "epson-tm-t20")

            build()
            receipts.verify_payload(st, code)
            built = timed(build, args.rounds)
            verified = timed(lambda: receipts.verify_payload(st, code), args.rounds * 3)
    build_ms = statistics.median(built) * 1000
    verify_ms = statistics.median(verified) * 1000
    print(
        f"  build sale receipt bytes (content + signed QR + ESC/POS, native QR): "
        f"median {build_ms:.2f} ms  target < 20 ms  {'PASS' if build_ms < 20 else 'MISS'}"
    )
    print(
        f"  verify a payload (decode, hall, key, Ed25519, on file):               "
        f"median {verify_ms:.3f} ms  target < 1 ms   {'PASS' if verify_ms < 1 else 'MISS'}"
    )


if __name__ == "__main__":
    main()
