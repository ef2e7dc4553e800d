"""Checking incoming events' hashes and Ed25519 signatures on 1 thread against 2 (issue #31).
Run by hand, never by the tests:

    .venv/bin/python bench/verify.py [--events 20000] [--rounds 7]

A pull checks each page's events off the applying thread (pos.ledger.follower fetches the next
page and checks it while this one is written) with pos.ledger.store.SignatureCheck, which splits
a page into chunks of 128 events over a thread pool of one worker per core: PyNaCl calls
libsodium through cffi, which releases the GIL during the call, so two threads can verify at
once. This measures, in the same run, interleaved, on --events signed sale events:

- `1 thread`: the check (hash recomputed, then the signature) of every event on one thread;
- `2 threads`: the same chunks on a ThreadPoolExecutor of 2;
- `SignatureCheck`: the ledger's own check, as a pull runs it (one worker per core here);
- the same two for the signature alone (libsodium's share, no hashing in Python).

It prints events per second and the ratio 2 threads / 1 thread. Target for using the pool in
the pull path: >= 1.3x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import sale_body

from pos.ledger.events import GENESIS, Event
from pos.ledger.keys import PublicKey, StationKey
from pos.ledger.store import SignatureCheck

CHUNK = 128  # events a thread checks at a time, as pos.ledger.store's _CHECK_CHUNK
TARGET = 1.3


def signed_events(count: int) -> tuple[list[Event], PublicKey]:
    key = StationKey.generate()
    events, prev = [], GENESIS
    for seq in range(1, count + 1):
        hlc = f"{1795906800000 + seq:013d}.00000"
        event = Event.create(
            key,
            origin="manager",
            seq=seq,
            kind="TicketsSold",
            hlc=hlc,
            prev=prev,
            body=sale_body(seq),
        )
        events.append(event)
        prev = event.hash
    return events, PublicKey(key.public_hex)


def full_check(key: PublicKey) -> Callable[[list[Event]], list[bool]]:
    def check(chunk: list[Event]) -> list[bool]:
        return [event.hash_matches() and event.signed_by(key) for event in chunk]

    return check


def signature_only(key: PublicKey) -> Callable[[list[Event]], list[bool]]:
    def check(chunk: list[Event]) -> list[bool]:
        return [event.signed_by(key) for event in chunk]

    return check


def on_threads(
    check: Callable[[list[Event]], list[bool]], chunks: Sequence[list[Event]], threads: int
) -> Callable[[], list[bool]]:
    def run() -> list[bool]:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return [ok for result in pool.map(check, chunks) for ok in result]

    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=20_000, help="events checked per round")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (after 1 warm-up)")
    args = parser.parse_args(argv)
    if args.events < CHUNK * 2 or args.rounds < 1:
        parser.error(f"need --events >= {CHUNK * 2} and --rounds >= 1")

    print(f"bench/verify.py: {os.cpu_count()} CPUs; signing {args.events:,} events ...")
    events, key = signed_events(args.events)
    chunks = [events[i : i + CHUNK] for i in range(0, len(events), CHUNK)]
    ledger_check = SignatureCheck({"manager": key})
    targets: dict[str, Callable[[], list[bool]]] = {
        "hash + signature, 1 thread": on_threads(full_check(key), chunks, 1),
        "hash + signature, 2 threads": on_threads(full_check(key), chunks, 2),
        "SignatureCheck (the pull's)": lambda: ledger_check(events),
        "signature only, 1 thread": on_threads(signature_only(key), chunks, 1),
        "signature only, 2 threads": on_threads(signature_only(key), chunks, 2),
    }
    names = list(targets)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}  # CPU seconds / wall seconds
    for round_no in range(args.rounds + 1):
        shift = round_no % len(names)
        for name in names[shift:] + names[:shift]:
            started, used = time.perf_counter(), time.process_time()
            verdicts = targets[name]()
            elapsed, used = time.perf_counter() - started, time.process_time() - used
            if len(verdicts) != len(events) or not all(verdicts):
                raise RuntimeError(f"{name}: not every event checked as authentic")
            if round_no:
                seconds[name].append(elapsed)
                cpu[name].append(used / elapsed)

    rate = {name: args.events / statistics.median(seconds[name]) for name in names}
    print(
        f"{args.rounds} rounds, interleaved; median events per second, and the cores the "
        "process kept busy meanwhile (CPU time / wall time: near 2 when both threads ran at "
        "once, below when other processes had the cores)"
    )
    for name in names:
        busy = statistics.median(cpu[name])
        print(f"  {name:<30} {rate[name]:>10,.0f} events/s  {busy:4.2f} cores")
    full = rate["hash + signature, 2 threads"] / rate["hash + signature, 1 thread"]
    sig = rate["signature only, 2 threads"] / rate["signature only, 1 thread"]
    pull = rate["SignatureCheck (the pull's)"] / rate["hash + signature, 1 thread"]
    verdict = "PASS" if full >= TARGET else "MISS"
    print(f"  2 threads / 1 thread, hash + signature: {full:.2f}x  target >= {TARGET}x  {verdict}")
    print(f"  2 threads / 1 thread, signature only:   {sig:.2f}x")
    print(f"  SignatureCheck / 1 thread:              {pull:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
