"""Benchmark of a redemption (issue 4). Run by hand, never by the tests:

    .venv/bin/python bench/redeem.py              # 1,000,000-event ledger (built once, cached)
    .venv/bin/python bench/redeem.py --events 100000 --rounds 300   # a quicker run

It measures, on real files in one directory of the same disk, one `pos.services.winners.redeem`
of a fresh winning ticket (SERIAL/TICKET/500: a $5.00 prize of deal BENCH5, whose 500,000
winners of that tier never run out): the decision (the deal, its tier, the holder, a void, an
earlier payment, the winners left, the claim window) and the commit of its WinnerRedeemed event,
its own BEGIN IMMEDIATE..COMMIT (WAL, synchronous=FULL), by redeemer S1 at a booth station
whose ledger holds --events events (1,000,000 by default); against a raw stdlib sqlite3
single-row INSERT + COMMIT with the same settings. Target: ratio <= 3.0. The same redemption at
a booth whose ledger holds --small events (made the same way) is timed in the same rounds, so a
cost that grows with the ledger shows; so is a one-ticket `pos.services.sales.sell` of BENCH5 at
the big booth (issue 3's sale, with a long history; informative, no target here).

The ledger is a hall's history, EVENTS_PER_DAY events a day: the manager station opens a
session, takes in $1.00 pull-tab deals of 4,000 tickets, and closes the session hall-wide at the
end of the day once it holds the booth's events and close marker; the booth puts the deals in two
bins and closes them when sold out, sells 1 to 5 tickets at a time, pays their winners and voids
a tampered ticket; the two sync through the apply path, as the LAN service would. On the last day
(the training day, 2026-11-28) deal BENCH5 is in a third bin, sold and paid from too, and the
session is left open. The first two sales and payments of each deal each day go through the
services (the second checked against the copy the recipe would have made); the others are copies
of those events with their own receipt, quantity or ticket number, appended in transactions of
BUILD_CHUNK events. The big ledger is cached under bench/results/cache/, keyed by CACHE_VERSION
and the ledger's format; each run works on a copy of the booth's directory.

The machine is shared and noisy, so only ratios within one run mean anything: the targets are
measured in the same rounds, one call each per round, in an order that rotates through every
permutation (GC off, warm-up rounds discarded), and compared by their medians. A second,
informative phase times the same calls back to back inside one open transaction: the CPU part
alone, with warm caches.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import harness
from harness import BOOTH, ENVIRON, MANAGER, SELLER, Figures, RawTable, Subject

from pos.clock import FixedClock, parse_instant
from pos.services import deals, sales, sessions, winners
from pos.services.numbering import next_receipt_number
from pos.services.station import LEDGER_FILE, Station

CACHE_VERSION = "redeem-3"  # bump when the recipe of the cached ledger changes
SERIAL = "BENCH5"
BENCH_PRIZES = (("100.00", 10), ("5.00", 500_000))
BENCH_DEAL = harness.flare(SERIAL, tickets=1_000_000, prizes=BENCH_PRIZES)
BENCH_BIN = "drawer-3"
TIER = 500  # cents: the tier of every measured redemption
FRESH_FROM = 100_000  # measured ticket numbers start here; the history pays lower ones
DEAL_TICKETS = 4_000
DEAL_PRIZES = (("500.00", 1), ("100.00", 2), ("5.00", 100))
BINS = ("drawer-1", "drawer-2")
EVENTS_PER_DAY = 500
BUILD_CHUNK = 50_000  # events per transaction while building
LAST_DAY = parse_instant(ENVIRON["BOOTH_NOW"])  # the training day, 18:00 in the hall
DURABLE_TARGET = 3.0


# --- the hall's history ----------------------------------------------------------------------


@dataclass
class Deal:
    serial: str
    tickets: int
    price: int = 100
    sold: int = 0
    paid: int = 0  # ticket numbers 1..paid were paid
    voided: int = 0  # ticket numbers tickets, tickets - 1, ... were voided
    left: dict[int, int] = field(default_factory=dict)  # winners left per tier, in cents
    # Today's sale and $5.00 payment made by the services, whose bodies the copies start from.
    # The first two of each a day go through the services: the second is checked against the
    # copy the recipe would have made of the first.
    sale: dict[str, Any] | None = None
    payment: dict[str, Any] | None = None
    sales_made: int = 0
    payments_made: int = 0

    @property
    def winners_per_ticket(self) -> float:
        return sum(self.left.values()) / max(1, self.tickets - self.sold)


def _cents(amount: str) -> int:
    dollars, cents = amount.split(".")
    return int(dollars) * 100 + int(cents)


class History:
    """Makes a booth's ledger reach `events` events, one day after another.

    The manager station takes the deals in and opens and closes the sessions; the booth puts
    the deals in its bins, sells and pays. They sync as the LAN service would (every event
    through the apply path): the booth pulls the manager's events as they are made, and at the
    end of a day the booth records its close marker and the manager pulls the booth's day
    before closing the session hall-wide.
    """

    def __init__(
        self, manager: Station, booth: Station, clock: FixedClock, events: int, *, progress: bool
    ) -> None:
        self.manager = manager
        self.st = booth
        self.clock = clock
        self.events = events
        self.progress = progress
        self.rng = random.Random(20261128)
        self.bins: dict[str, Deal | None] = dict.fromkeys(BINS)
        self.numbers = itertools.count(1)
        self.started = time.perf_counter()
        self.committed = self.held()

    def held(self) -> int:
        row = self.st.ledger.conn.execute("SELECT max(rowid) FROM events").fetchone()
        return int(row[0] or 0)

    def build(self) -> None:
        days = max(1, -(-self.events // EVENTS_PER_DAY))
        for station in (self.manager, self.st):
            station.ledger.conn.execute("PRAGMA cache_size=-262144")  # 256 MiB, this connection
        conn = self.st.ledger.conn
        conn.execute("BEGIN IMMEDIATE")
        for day in range(days):
            last = day == days - 1
            self.clock.at = LAST_DAY - timedelta(days=days - 1 - day)
            self.day(self.events if last else min(self.events, (day + 1) * EVENTS_PER_DAY), last)
        conn.execute("COMMIT")
        for station in (self.manager, self.st):
            station.ledger.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if self.progress:
            harness.build_rate(self.started, self.held())

    def checkpoint(self) -> None:
        """Commit every BUILD_CHUNK events: big transactions, but not one of a gigabyte."""
        held = self.held()
        if held - self.committed >= BUILD_CHUNK:
            conn = self.st.ledger.conn
            conn.execute("COMMIT")
            conn.execute("BEGIN IMMEDIATE")
            self.committed = held
            if self.progress:
                harness.build_rate(self.started, held)

    def day(self, target: int, last: bool) -> None:
        st = self.st
        sessions.open_session(self.manager, operator=MANAGER)
        harness.pull(self.manager, st)
        bins: dict[str, Deal | None] = dict(self.bins)
        if last:
            self.take_in(BENCH_DEAL, BENCH_BIN)
            bins[BENCH_BIN] = Deal(SERIAL, 1_000_000, left={_cents(a): n for a, n in BENCH_PRIZES})
        for deal in bins.values():
            if deal is not None:
                deal.sale = deal.payment = None
                deal.sales_made = deal.payments_made = 0
        self.void_one(bins)
        for name in itertools.cycle(bins):
            held = self.held()
            if held >= target:
                break
            # The last few events of the ledger: single sales of BENCH5, one event each, to end
            # on `target` exactly (an iteration before adds at most 9 events).
            exact = last and target - held < 10
            chosen = BENCH_BIN if exact else name
            deal = bins[chosen] or self.new_deal(chosen, bins)
            self.sell(deal, exact=exact)
            if deal.sold >= deal.tickets:
                deals.close_deal(st, deal.serial, unsold=0, operator=MANAGER)
                bins[chosen] = None
            self.checkpoint()
        self.bins = {name: bins[name] for name in BINS}
        if not last:
            sessions.close_session(st, operator=SELLER)  # the booth's close marker
            harness.pull(st, self.manager)
            sessions.close_session(self.manager, operator=MANAGER)
            harness.pull(self.manager, st)

    def take_in(self, data: dict[str, Any], bin_name: str) -> None:
        """The manager takes a deal in; the booth, once it has the intake, puts it in a bin."""
        deals.receive_deal(self.manager, deals.flare_from_mapping(data), operator=MANAGER)
        harness.pull(self.manager, self.st)
        deals.open_deal(self.st, data["serial"], bin_name=bin_name, operator=SELLER)

    def new_deal(self, bin_name: str, bins: dict[str, Deal | None]) -> Deal:
        serial = f"D{next(self.numbers):06d}"
        self.take_in(harness.flare(serial, tickets=DEAL_TICKETS, prizes=DEAL_PRIZES), bin_name)
        deal = Deal(serial, DEAL_TICKETS, left={_cents(a): n for a, n in DEAL_PRIZES})
        bins[bin_name] = deal
        return deal

    def void_one(self, bins: dict[str, Deal | None]) -> None:
        """A seller voids a tampered ticket of one of the deals in play."""
        deal = next((d for d in bins.values() if d is not None and d.serial != SERIAL), None)
        if deal is None or deal.tickets - deal.voided <= deal.paid + 1:
            return
        ticket = deal.tickets - deal.voided
        deal.voided += 1
        winners.void_ticket(
            self.st,
            f"{deal.serial}/{ticket:04d}",
            reason="tampered: tabs lifted",
            operator=SELLER,
        )

    def sell(self, deal: Deal, *, exact: bool) -> None:
        st = self.st
        qty = 1 if exact else min(self.rng.randint(1, 5), deal.tickets - deal.sold)
        if deal.sale is None or deal.sales_made < 2:
            sold = sales.sell(st, deal.serial, qty=qty, operator=SELLER)
            made = _body(st, sold.event)
            if deal.sale is not None:
                _check_copy("TicketsSold", sale_copy(deal, qty, made["receipt"]), made)
            deal.sale = made
            deal.sales_made += 1
        else:
            st.append("TicketsSold", sale_copy(deal, qty, next_receipt_number(st)))
        deal.sold += qty
        if exact:
            return
        for _ in range(qty):
            if self.rng.random() < deal.winners_per_ticket:
                self.pay(deal)

    def pay(self, deal: Deal) -> None:
        tiers = [tier for tier, left in deal.left.items() if left > 0]
        if not tiers or deal.paid + 1 >= deal.tickets - deal.voided:
            return
        tier = self.rng.choices(tiers, weights=[deal.left[t] for t in tiers])[0]
        deal.left[tier] -= 1
        deal.paid += 1
        ticket = f"{deal.paid:06d}" if deal.serial == SERIAL else f"{deal.paid:04d}"
        if tier == TIER and deal.payment is not None and deal.payments_made >= 2:
            receipt = next_receipt_number(self.st)
            self.st.append("WinnerRedeemed", {**deal.payment, "ticket": ticket, "receipt": receipt})
            return
        paid = winners.redeem(self.st, f"{deal.serial}/{ticket}/{tier}", operator=SELLER)
        if tier == TIER:
            made = _body(self.st, paid.event)
            if deal.payment is not None:
                copy = {**deal.payment, "ticket": ticket, "receipt": made["receipt"]}
                _check_copy("WinnerRedeemed", copy, made)
            deal.payment = made
            deal.payments_made += 1


def sale_copy(deal: Deal, qty: int, receipt: int) -> dict[str, Any]:
    """The body pos.services.sales would record for another sale of `deal` today."""
    assert deal.sale is not None
    return {**deal.sale, "qty": qty, "amount": qty * deal.price, "receipt": receipt}


def _check_copy(kind: str, copy: dict[str, Any], made: dict[str, Any]) -> None:
    if copy != made:
        raise RuntimeError(
            f"the recipe's copy of a {kind} event no longer matches what the service records: "
            f"{copy} != {made}; update bench/redeem.py (and bump its CACHE_VERSION)"
        )


def _body(st: Station, event_id: str) -> dict[str, Any]:
    origin, seq = event_id.rsplit(":", 1)
    event = st.ledger.get(origin, int(seq))
    if event is None:
        raise RuntimeError(f"event {event_id} is not in the ledger")
    return event.body


def build_hall(root: Path, events: int, *, progress: bool) -> dict[str, Any]:
    """A training hall under `root` whose booth's ledger holds `events` events."""
    days = max(1, -(-events // EVENTS_PER_DAY))
    first = LAST_DAY - timedelta(days=days - 1)
    booth_dir = harness.training_booth(root, {"BOOTH_NOW": first.isoformat()})
    clock = FixedClock(first)
    with Station(root / "manager", clock=clock) as manager, Station(booth_dir, clock=clock) as st:
        history = History(manager, st, clock, events, progress=progress)
        if history.held() >= events:
            raise ValueError(f"{events:,} events are too few: setting up the hall takes more")
        history.build()
        held = history.held()
        if held != events:
            raise RuntimeError(f"built {held:,} events, wanted {events:,}")
        deals_taken = st.ledger.conn.execute("SELECT count(*) FROM p_deals").fetchone()[0]
        paid = st.ledger.conn.execute("SELECT count(*) FROM p_redemptions").fetchone()[0]
    return {
        "ledger_bytes": (booth_dir / LEDGER_FILE).stat().st_size,
        "days": days,
        "first_day": first.date().isoformat(),
        "deals": int(deals_taken),
        "redemptions": int(paid),
    }


def cached_hall(events: int, *, rebuild: bool) -> tuple[Path, dict[str, Any]]:
    def build(directory: Path, count: int) -> dict[str, Any]:
        return build_hall(directory, count, progress=True)

    return harness.cached_hall("redeem", CACHE_VERSION, events, build, rebuild=rebuild)


# --- the run ---------------------------------------------------------------------------------


class Redeemer:
    """Pays fresh $5.00 tickets of BENCH5 at one booth: a new ticket number each call."""

    def __init__(self, booth_dir: Path) -> None:
        self.st = Station(booth_dir, environ=ENVIRON)
        self.tickets = itertools.count(FRESH_FROM)
        self.calls = 0

    def __call__(self) -> winners.Payout:
        self.calls += 1
        code = f"{SERIAL}/{next(self.tickets):06d}/{TIER}"
        return winners.redeem(self.st, code, operator=SELLER)

    def sell(self) -> sales.Sale:
        return sales.sell(self.st, SERIAL, qty=1, operator=SELLER)

    def paid_fresh(self) -> int:
        row = self.st.ledger.conn.execute(
            "SELECT count(*) FROM p_redemptions WHERE serial = ? AND ticket >= ?",
            (SERIAL, f"{FRESH_FROM:06d}"),
        ).fetchone()
        return int(row[0])

    def close(self) -> None:
        self.st.close()


def check_first(redeemer: Redeemer) -> None:
    """One redemption before the timings: it must pay, and say so."""
    result = redeemer()
    if (result.pay, result.say) != (TIER, "PUNCH NOW"):
        raise RuntimeError(f"a fresh BENCH5 ticket did not pay: {result}")


def report(figures: Figures, *, small: int, big: int) -> dict[str, float]:
    harness.print_figures(figures, "durable redemption")
    raw_d, small_d, big_d, sell_d = figures.durable
    raw_c, small_c, big_c, sell_c = figures.in_transaction
    print("\nratios of medians (paired: median of the per-round ratios):")
    durable = harness.ratio_line(
        f"durable redeem ({big:,} events) / raw INSERT+COMMIT", big_d, raw_d, DURABLE_TARGET
    )
    print(
        f"     {big:,} / {small:,} events: durable {big_d.median / small_d.median:.2f}x "
        f"(paired {harness.paired_ratio(big_d, small_d):.2f}x), "
        f"no commit {big_c.median / small_c.median:.2f}x"
    )
    print(
        f"     no commit: redeem / raw INSERT {big_c.median / raw_c.median:.2f}x "
        f"({big_c.median / 1e3:.0f} µs of CPU of the {big_d.median / 1e3:.0f} µs durable)"
    )
    sell = sell_d.median / raw_d.median
    print(
        f"     for comparison, durable sales.sell ({big:,} events) / raw INSERT+COMMIT "
        f"{sell:.2f}x (paired {harness.paired_ratio(sell_d, raw_d):.2f}x); no commit "
        f"{sell_c.median / 1e3:.0f} µs"
    )
    return {"durable": durable, "scale": big_d.median / small_d.median, "sell": sell}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=1_000_000, help="events in the big ledger")
    parser.add_argument("--small", type=int, default=1_000, help="events in the small ledger")
    parser.add_argument("--rounds", type=int, default=1_000, help="measured rounds")
    parser.add_argument("--warmup", type=int, default=30, help="rounds run and discarded first")
    parser.add_argument(
        "--dir",
        type=Path,
        default=harness.RESULTS_DIR,
        help="where the working copies go (same disk)",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached big ledger")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.events < args.small or args.small < 100 or args.rounds < 10 or args.warmup < 0:
        parser.error("need --events >= --small >= 100, --rounds >= 10 and --warmup >= 0")
    if 2 * (args.warmup + args.rounds) + 1 > 999_999 - FRESH_FROM:
        parser.error("too many rounds for the ticket numbers of one deal")

    version = harness.print_header("Booth redemption benchmark")
    cached, manifest = cached_hall(args.events, rebuild=args.rebuild)
    harness.print_cached("big ledger", args.events, manifest)
    print(
        f"  {manifest['days']:,} days from {manifest['first_day']}, {manifest['deals']:,} deals, "
        f"{manifest['redemptions']:,} redemptions"
    )

    opened: list[Redeemer] = []
    raw: RawTable | None = None
    with harness.work_dir(args.dir, "redeem-run-") as work:
        try:
            copy_seconds = harness.copy_hall(cached / BOOTH, work / "big" / BOOTH)
            build_hall(work / "small", args.small, progress=False)
            raw = RawTable(work / "raw.db", rows=args.small)
            raw.prepare(2 * (args.warmup + args.rounds))  # one row per call of either phase
            harness.fsync_tree(work)
            print(f"work dir: {work} (big ledger copied in {copy_seconds:.1f} s)")

            big = Redeemer(work / "big" / BOOTH)
            opened.append(big)
            small = Redeemer(work / "small" / BOOTH)
            opened.append(small)
            if big.st.ledger.count() != args.events:
                raise RuntimeError(f"the copy holds {big.st.ledger.count():,} events")
            for redeemer in opened:
                check_first(redeemer)

            print(
                f"\nrounds: {args.rounds:,} measured (+{args.warmup} warm-up), one call per "
                "target per round, order rotating through every permutation"
            )
            subjects = [
                Subject(f"winners.redeem, {n:,}-event ledger", r, r.st.ledger.conn)
                for n, r in ((args.small, small), (args.events, big))
            ]
            subjects.append(
                Subject(f"sales.sell, {args.events:,}-event ledger", big.sell, big.st.ledger.conn)
            )
            figures = harness.measure(raw, subjects, rounds=args.rounds, warmup=args.warmup)
            for redeemer in opened:  # the durable calls stayed, the others were rolled back
                if redeemer.paid_fresh() != 1 + args.warmup + args.rounds:
                    raise RuntimeError(f"{redeemer.paid_fresh()} fresh tickets were paid")
            ratios = report(figures, small=args.small, big=args.events)
        finally:
            for redeemer in opened:
                redeemer.close()
            if raw is not None:
                raw.close()

    if args.json:
        harness.write_record(
            args.json,
            {
                "code": version,
                "big_ledger": manifest,
                "durable": {s.label: s.summary() for s in figures.durable},
                "in_transaction": {s.label: s.summary() for s in figures.in_transaction},
                "ratios": ratios,
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
