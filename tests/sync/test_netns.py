"""Four stations, each in its own network namespace, joined by veth pairs to a bridge: they
find each other by zeroconf (multicast over the bridge), and keep selling and paying winners
while the LAN is cut and healed. After the last heal they hold the same ledger, every sale once,
and no ticket was paid twice.

Root only (CI runs as root): see tests/sync/netns.py for the topology and what it touches.

Then deals changing hands across a partition, in-process (a partition is who pulls from whom):
the cases where "only the holder pays" does not yet hold.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pos.errors import RuleRefused
from pos.ledger.verify import verify
from pos.services import replicate, sales, winners
from pos.services.exceptions import parse_ref, resolve_exception, review_list
from pos.services.ownership import acquire_deal, release_deal
from pos.services.reports import day_report
from pos.services.station import Station
from tests.sync import netns
from tests.sync.conftest import build_hall

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="network namespaces need root (CI runs as root)"
)

NAMES = ["manager", "booth-1", "booth-2", "booth-3"]
DEALS = {name: f"D-{name.upper()}" for name in NAMES}
MAX_PAID = 60  # of each deal's 100 $5 winners
# sync.client.Peer waits up to 30 s on a peer behind a cut (the connect as much as a read, and
# then once more) and SyncService pulls its peers one after another: a cut stops a station
# pulling even from the peers it still reaches, for longer than this test may take. Bounded
# here by the harness; drop it once the service pulls each peer on its own with a short
# connect timeout (with that change the test passes without it, in about 20 s).
PEER_TIMEOUT = ("--peer-timeout", "2")


@pytest.fixture
def lan() -> Iterator[netns.Lan]:
    netns.sweep()
    lan = netns.Lan(len(NAMES))
    try:
        yield lan
    finally:
        lan.close()
        left = [name for name in netns.namespaces() if name.startswith(lan.tag)]
        assert not left, f"namespaces left behind: {left}"


class Traffic:
    """A thread per station selling its own deal and paying its winners, and trying to pay
    tickets of the other stations' deals (which it does not hold: always refused)."""

    def __init__(self, stations: list[netns.NsStation]) -> None:
        self.stations = stations
        self.sold: list[tuple[str, int]] = []  # (station, receipt) of each sale rung
        self.paid: list[tuple[str, str, str]] = []  # (station, serial, ticket) paid
        self.refused: list[tuple[str, str, str]] = []  # (station, code, rule)
        self.wrongly_paid: list[tuple[str, str]] = []
        self._run = threading.Event()
        self._idle = [threading.Event() for _ in stations]
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, args=(i,), daemon=True)
            for i in range(len(stations))
        ]
        self.errors: list[BaseException] = []

    def _loop(self, index: int) -> None:
        station, name = self.stations[index], NAMES[index]
        rng = random.Random(index)
        tickets = 0
        try:
            while not self._stop.is_set():
                if not self._run.is_set():
                    self._idle[index].set()
                    self._run.wait(0.1)
                    continue
                self._idle[index].clear()
                receipt = station.ask(f"sell {DEALS[name]} {rng.randint(1, 3)}")["sold"]
                self.sold.append((name, receipt))
                if tickets < MAX_PAID and rng.random() < 0.4:
                    tickets += 1
                    self._redeem(index, f"{DEALS[name]}/{tickets:04d}/500", owner=True)
                    if rng.random() < 0.3:  # the same ticket again: C2, never paid twice
                        self._redeem(index, f"{DEALS[name]}/{tickets:04d}/500", owner=True)
                if self.paid and rng.random() < 0.4:  # another's winner, paid there or not
                    _, serial, ticket = rng.choice(self.paid)
                    if serial != DEALS[name]:
                        self._redeem(index, f"{serial}/{ticket}/500", owner=False)
                time.sleep(rng.uniform(0.02, 0.08))
        except BaseException as error:  # reported by stop()
            self.errors.append(error)

    def _redeem(self, index: int, code: str, *, owner: bool) -> None:
        name = NAMES[index]
        answer = self.stations[index].ask(f"redeem {code}")
        if "redeemed" in answer:
            paid = answer["redeemed"]
            self.paid.append((name, paid["serial"], paid["ticket"]))
            if not owner:
                self.wrongly_paid.append((name, code))
        else:
            self.refused.append((name, code, answer["refused"]))

    def start(self) -> None:
        self._run.set()
        for thread in self._threads:
            thread.start()

    def pause(self) -> None:
        self._run.clear()
        for idle in self._idle:
            assert idle.wait(30), "a station did not finish its command"
        self._check()

    def resume(self) -> None:
        for idle in self._idle:
            idle.clear()
        self._run.set()

    def stop(self) -> None:
        self._stop.set()
        self._run.set()
        for thread in self._threads:
            thread.join(timeout=30)
        self._check()

    def _check(self) -> None:
        if self.errors:
            raise self.errors[0]


def digests(stations: Sequence[netns.NsStation]) -> list[str]:
    return [station.ask("digest")["digest"] for station in stations]


def wait_until(what: str, check: Callable[[], bool], timeout: float) -> float:
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"{what}: not within {timeout}s")
        time.sleep(0.2)
    return time.monotonic() - started


def groups_converge(
    stations: list[netns.NsStation], *groups: Sequence[int], timeout: float = 30.0
) -> float:
    """Each group reaches one digest, and the groups' digests differ (the cut is real)."""

    def check() -> bool:
        found = [set(digests([stations[i] for i in group])) for group in groups]
        if not all(len(digest) == 1 for digest in found):
            return False
        assert len(set().union(*found)) == len(groups), "a partition let events through"
        return True

    return wait_until(f"groups {groups} converge", check, timeout)


@pytest.mark.slow  # four stations' processes in network namespaces
@needs_root
def test_four_namespaced_stations_sell_through_partitions_and_converge(
    tmp_path: Path, lan: netns.Lan
) -> None:
    timings: dict[str, float] = {}
    started = time.monotonic()
    hall = build_hall(tmp_path, NAMES[1:])
    stations = [
        lan.start(i, hall.stations[name], tmp_path / f"{name}.log", *PEER_TIMEOUT)
        for i, name in enumerate(NAMES)
    ]
    for station in stations:
        station.wait_ready()

    # Discovery: each station finds the three others by zeroconf, at their namespace address.
    def found() -> bool:
        peers = [station.ask("peers")["peers"] for station in stations]
        return all(len(known) == len(NAMES) - 1 for known in peers)

    timings["discovery"] = wait_until("zeroconf discovery", found, 20)
    for i, station in enumerate(stations):
        known = station.ask("peers")["peers"]
        assert {p["source"] for p in known} == {"zeroconf"}
        expected = {f"https://{a}:{netns.PORT}" for a in lan.addresses if a != lan.addresses[i]}
        assert {p["url"] for p in known} == expected

    traffic = Traffic(stations)
    traffic.start()
    time.sleep(1.0)  # all connected

    lan.split([0, 1], [2, 3])  # {manager, booth-1} | {booth-2, booth-3}
    time.sleep(2.0)
    traffic.pause()
    timings["split-1 groups converge"] = groups_converge(stations, [0, 1], [2, 3])
    traffic.resume()

    lan.heal()
    time.sleep(1.0)

    lan.cut(3)  # booth-3 alone, selling and paying offline
    time.sleep(2.0)
    traffic.pause()
    timings["cut-3 groups converge"] = groups_converge(stations, [0, 1, 2], [3])
    traffic.resume()

    lan.mend(3)
    lan.split([0, 2], [1, 3])  # {manager, booth-2} | {booth-1, booth-3}
    time.sleep(2.0)
    traffic.pause()
    timings["split-2 groups converge"] = groups_converge(stations, [0, 2], [1, 3])
    traffic.resume()

    lan.heal()
    time.sleep(1.0)
    traffic.stop()
    healed = time.monotonic()

    answers: list[dict[str, Any]] = []

    def converged() -> bool:
        answers[:] = [station.ask("digest") for station in stations]
        return len({a["digest"] for a in answers}) == 1

    wait_until("convergence after the last heal", converged, 40)
    timings["converge after last heal"] = time.monotonic() - healed
    assert all(answer["ok"] for answer in answers), answers

    tallies = [station.ask("tally") for station in stations]
    assert all(tally == tallies[0] for tally in tallies), "the same sales and payments everywhere"
    tally = tallies[0]

    # Every sale rung appears exactly once, and nothing else does.
    sales = [(origin, receipt) for origin, receipt, _, _ in tally["sales"]]
    assert len(sales) == len(set(sales)), "a sale is doubled"
    assert sorted(sales) == sorted(traffic.sold)
    assert all(serial == DEALS[origin] for origin, _, serial, _ in tally["sales"])

    # No ticket paid twice: one WinnerRedeemed per (serial, ticket), by the deal's holder.
    paid = Counter((serial, ticket) for _, serial, ticket, _ in tally["redemptions"])
    assert paid and max(paid.values()) == 1, [k for k, n in paid.items() if n > 1]
    assert all(serial == DEALS[origin] for origin, serial, _, _ in tally["redemptions"])
    assert sorted(paid) == sorted((serial, ticket) for _, serial, ticket in traffic.paid)
    assert not traffic.wrongly_paid, "a station paid a winner of a deal it does not hold"
    rules = Counter(rule for _, _, rule in traffic.refused)
    assert rules["C2"] > 0 and rules["OWNER"] > 0, rules  # both guards were exercised
    assert set(rules) <= {"C2", "OWNER"}, rules

    timings["total"] = time.monotonic() - started
    print(
        f"\n{len(sales)} sales, {len(paid)} winners paid, refusals {dict(rules)}; "
        + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items())
    )


# --- deals changing hands across a partition (in-process) -------------------------------------

NOW = {"BOOTH_NOW": "2026-11-28T23:00:00+00:00"}


def exchange(*stations: Station) -> None:
    """Every station pulls from every other one (twice: relayed events too)."""
    for _ in range(2):
        for source in stations:
            for target in stations:
                if source is not target:
                    replicate.pull(source.ledger, target.ledger)


def pays(st: Station, code: str) -> bool:
    try:
        winners.redeem(st, code, operator="S1")
    except RuleRefused:
        return False
    return True


def test_a_deal_released_is_no_longer_paid_by_its_former_holder(tmp_path: Path) -> None:
    hall = build_hall(tmp_path, ["booth-1", "booth-2"])
    with (
        Station(hall.stations["booth-1"], environ=NOW) as holder,
        Station(hall.stations["booth-2"], environ=NOW) as taker,
    ):
        sales.sell(holder, "D-BOOTH-1", qty="5", operator="S1")
        exchange(holder, taker)
        release_deal(holder, "D-BOOTH-1", to="booth-2", by="station:booth-2")
        replicate.pull(holder.ledger, taker.ledger)  # the taker sees the release...
        acquire_deal(taker, "D-BOOTH-1", bin_name="drawer-5", operator="S1")
        # ...and the LAN fails before the former holder sees the acquisition
        paid = [pays(st, "D-BOOTH-1/0007/500") for st in (holder, taker)]
        exchange(holder, taker)
        redeemed = holder.ledger.conn.execute(
            "SELECT count(*) FROM events WHERE type = 'WinnerRedeemed'"
        ).fetchone()[0]
    assert paid == [False, True] and redeemed == 1, f"paid at {paid}: {redeemed} payments"


def test_converged_stations_name_the_same_holder(tmp_path: Path) -> None:
    """booth-3 is cut off; a manager forces its deal to booth-1 on one side of the partition
    and to booth-2 on the other. After the heal the ledgers are equal: so must the holder be."""
    hall = build_hall(tmp_path, ["booth-1", "booth-2", "booth-3"])
    names = ["manager", "booth-1", "booth-2", "booth-3"]
    with contextlib.ExitStack() as stack:
        sts = [stack.enter_context(Station(hall.stations[n], environ=NOW)) for n in names]
        sales.sell(sts[3], "D-BOOTH-3", qty="5", operator="S1")
        exchange(*sts)
        for st in sts[1:3]:
            acquire_deal(
                st, "D-BOOTH-3", bin_name="drawer-7", operator="M1", force_reason="booth-3 silent"
            )
        exchange(*sts)
        assert len({verify(st.ledger).digest for st in sts}) == 1
        holders = {
            st.id: st.ledger.conn.execute(
                "SELECT holder FROM p_deals WHERE serial = 'D-BOOTH-3'"
            ).fetchone()[0]
            for st in sts
        }
    assert len(set(holders.values())) == 1, holders


def test_a_ticket_paid_on_both_sides_of_a_cut_is_shown_after_the_merge(tmp_path: Path) -> None:
    """booth-3 is alive behind a cut while a manager forces its deal to booth-1: both pay the
    same winner. Neither could refuse; once merged, every station shows the pair, once."""
    hall = build_hall(tmp_path, ["booth-1", "booth-3"])
    names = ["manager", "booth-1", "booth-3"]
    with contextlib.ExitStack() as stack:
        sts = [stack.enter_context(Station(hall.stations[n], environ=NOW)) for n in names]
        sales.sell(sts[2], "D-BOOTH-3", qty="5", operator="S1")
        exchange(*sts)
        acquire_deal(
            sts[1], "D-BOOTH-3", bin_name="drawer-7", operator="M1", force_reason="booth-3 silent"
        )
        assert pays(sts[1], "D-BOOTH-3/0007/500") and pays(sts[2], "D-BOOTH-3/0007/500")
        exchange(*sts)
        exchange(*sts)  # applying again changes nothing
        found = [
            st.ledger.conn.execute(
                "SELECT serial, ticket, first_origin, second_origin, amount FROM p_paid_twice"
            ).fetchall()
            for st in sts
        ]
        report = day_report(sts[0])
        review = [item for item in review_list(sts[0]) if item["kind"] == "paid-twice"]
        resolve_exception(
            sts[0], *parse_ref(review[0]["ref"]), decision="noted", note="both", operator="M1"
        )
        exchange(*sts)
        still_open = [[e for e in review_list(st) if e["kind"] == "paid-twice"] for st in sts]
    assert still_open == [[], [], []], "decided once, on the record, everywhere"
    assert [item["subject"] for item in review] == ["D-BOOTH-3/0007"], review
    assert {origin for row in found for origin in row[0][2:4]} == {"booth-1", "booth-3"}
    assert found == [found[0]] * 3 and len(found[0]) == 1, found
    assert found[0][0][:2] == ("D-BOOTH-3", "0007") and found[0][0][4] == 500
    flagged = [item for item in report["exceptions"] if item["kind"] == "paid-twice-after-sync"]
    assert len(flagged) == 1 and "D-BOOTH-3/0007 paid at" in flagged[0]["detail"], report
