"""The contract of a remote log (pos.ledger.follower.RemoteLog), one suite for every adapter: a
LAN peer (`PeerLog`, a real ReplicationServer on 127.0.0.1, mutual TLS), the head office
(`HeadOfficeLog`, the pouchdb-server of tests/sync/head_office.py, HTTPS and basic auth) and
another ledger open here (`LedgerLog`, pos.services.replicate's pull).

Both serve the same events: those of booth-1, which sold and took in the manager's later sales.
booth-2 follows them: it lacks booth-1's events and the manager's later ones, and holds events
of its own the source lacks.
"""

from __future__ import annotations

import json
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pos.errors import BoothError
from pos.ledger import Event, Ledger
from pos.ledger import heads as origin_heads
from pos.ledger.follower import Held, Page, RemoteLog, Source, follow
from pos.ledger.verify import verify
from pos.services import sales
from pos.services.replicate import LedgerLog
from pos.services.station import LEDGER_FILE, Station, StationConfig
from sync import docs
from sync.client import Peer, client_context
from sync.errors import SyncError
from sync.replicator import PeerLog
from sync.server import ReplicationServer
from sync.upstream import Upstream, make_settings
from sync.upstream_pull import HeadOfficeLog
from tests.sync.conftest import ENVIRON, Hall, build_hall, free_port
from tests.sync.head_office import PASSWORD, USER, HeadOffice

ADAPTERS = ["lan-peer", "head-office", "local-ledger"]
Key = tuple[str, int, str]  # origin, seq, hash


# --- the hall: a source with events the follower lacks -----------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Hall:
    hall = build_hall(tmp_path_factory.mktemp("hall"), ["booth-1", "booth-2"])
    with (
        Station(hall.stations["booth-1"], environ=ENVIRON) as booth,
        Station(hall.stations["manager"], environ=ENVIRON) as manager,
        Station(hall.stations["booth-2"], environ=ENVIRON) as other,
    ):
        for _ in range(6):
            sales.sell(booth, "D-BOOTH-1", qty=1, operator="S1")
        for _ in range(4):
            sales.sell(manager, "D-MANAGER", qty=1, operator="S1")
        sales.sell(other, "D-BOOTH-2", qty=1, operator="S1")
        _, refused = booth.ledger.apply_batch(list(manager.ledger.events()))
        assert not refused
    return hall


@pytest.fixture
def hall(template: Hall, tmp_path: Path) -> Hall:
    root = tmp_path / "hall"
    shutil.copytree(template.root, root)
    return Hall(
        root, {n: root / p.relative_to(template.root) for n, p in template.stations.items()}
    )


def open_ledger(directory: Path) -> Ledger:
    config = StationConfig.load(directory)
    return Ledger.open(
        directory / LEDGER_FILE,
        station=config.station,
        key=None,
        hall_public_key=config.hall_public_key,
    )


def keys(events: list[Event]) -> set[Key]:
    return {(e.origin, e.seq, e.hash) for e in events}


@dataclass
class Setup:
    """A remote log serving the source's events, the follower's ledger, and how to reach an
    unreachable one of the same kind."""

    log: RemoteLog[Any]
    follower: Ledger
    source_events: set[Key]
    source_heads: dict[str, int]
    unreachable: Callable[[], RemoteLog[Any]]
    fresh: Callable[[], RemoteLog[Any]]  # another client of the same log

    @property
    def lacking(self) -> set[Key]:
        return self.source_events - keys(list(self.follower.events()))


def closed_port() -> int:
    return free_port()  # bound and released: nothing listens there


@pytest.fixture(params=ADAPTERS)
def setup(request: pytest.FixtureRequest, hall: Hall) -> Iterator[Setup]:
    source = open_ledger(hall.stations["booth-1"])
    follower = open_ledger(hall.stations["booth-2"])
    events = list(source.events())
    heads = origin_heads.high_water_marks(source.conn)
    closing: list[Callable[[], None]] = [follower.close, source.close]
    try:
        if request.param == "lan-peer":
            config = StationConfig.load(hall.stations["booth-1"])
            server = ReplicationServer(
                ("127.0.0.1", 0),
                station_dir=hall.stations["booth-1"],
                ledger=source,
                write_lock=threading.Lock(),
                hall=config.hall,
                station=config.station,
            )
            thread = threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
            )
            thread.start()

            def stop() -> None:
                server.shutdown()
                server.server_close()
                thread.join(timeout=5)

            closing.insert(0, stop)
            context = client_context(hall.stations["booth-2"])
            url = f"https://127.0.0.1:{server.server_address[1]}"

            def peer_log(at: str = url) -> RemoteLog[Any]:
                peer = Peer(at, context, timeout=5)
                closing.insert(0, peer.close)
                return PeerLog(peer)

            yield Setup(
                peer_log(),
                follower,
                keys(events),
                heads,
                unreachable=lambda: peer_log(f"https://127.0.0.1:{closed_port()}"),
                fresh=peer_log,
            )
        elif request.param == "local-ledger":

            def ledger_log() -> RemoteLog[Any]:
                return LedgerLog(source)

            def closed_ledger() -> RemoteLog[Any]:
                gone = open_ledger(hall.stations["booth-1"])
                gone.close()
                return LedgerLog(gone)

            yield Setup(
                ledger_log(),
                follower,
                keys(events),
                heads,
                unreachable=closed_ledger,
                fresh=ledger_log,
            )
        else:
            office: HeadOffice = request.getfixturevalue("office")
            tls: dict[str, Path] = request.getfixturevalue("tls")
            database = f"contract-{uuid.uuid4().hex[:12]}"
            office.plant(database, [docs.to_doc(e, revisions=True) for e in events])
            ca = tls["ca"].read_text()

            def office_log(base: str = office.base) -> RemoteLog[Any]:
                upstream = Upstream(make_settings(f"{base}/{database}", USER, PASSWORD, ca))
                closing.insert(0, upstream.close)
                return HeadOfficeLog(upstream)

            yield Setup(
                office_log(),
                follower,
                keys(events),
                heads,
                unreachable=lambda: office_log(f"https://127.0.0.1:{closed_port()}"),
                fresh=office_log,
            )
    finally:
        for close in closing:
            close()


def walk(log: RemoteLog[Any], held: Mapping[str, int], limit: int) -> list[Page[Any]]:
    """Every page from the start, resuming where each says, applying nothing."""
    pages: list[Page[Any]] = []
    position = log.start()
    while True:
        page = log.page(position, limit, held)
        pages.append(page)
        assert page.rows <= limit
        if page.rows < limit:
            return pages
        assert len(pages) < 1000, "the log never ends"
        position = page.after


# --- the contract ------------------------------------------------------------------------------


def test_a_log_says_who_it_is_the_same_each_time(setup: Setup) -> None:
    first, second = setup.log.describe(), setup.fresh().describe()
    assert isinstance(first, Source)
    assert first == second
    assert first.heads is None or first.heads == setup.source_heads


@pytest.mark.parametrize("limit", [1, 4, 1000])
def test_pages_hold_every_event_the_follower_lacks_each_origin_in_chain_order(
    setup: Setup, limit: int
) -> None:
    held = origin_heads.high_water_marks(setup.follower.conn)
    pages = walk(setup.log, held, limit)
    served = [event for page in pages for event in page.events]
    assert len(served) == len(keys(served)), "no event twice"
    assert keys(served) <= setup.source_events
    assert setup.lacking <= keys(served)
    for origin in {e.origin for e in served}:
        seqs = [e.seq for e in served if e.origin == origin]
        assert seqs == sorted(seqs)
    assert all(page.bad_documents == [] for page in pages)
    if limit < len(setup.lacking):
        assert len(pages) > 1
    # a position survives a checkpoint document (JSON), and past the end there is nothing
    end = pages[-1].after
    assert setup.log.position(json.loads(json.dumps(end))) == end
    assert setup.log.page(end, limit, held).rows == 0


def test_resuming_after_a_page_that_applied_whole_is_where_it_said(setup: Setup) -> None:
    held = origin_heads.high_water_marks(setup.follower.conn)
    page = setup.log.page(setup.log.start(), 3, held)
    assert page.rows == 3
    assert setup.follower.apply_batch(page.events)[1] == []
    now_held: Held = lambda origin: origin_heads.last_seq(setup.follower.conn, origin)  # noqa: E731
    assert setup.log.resume(page, now_held) == page.after


# A long pull checks signatures in a worker process (pos.ledger.signature_worker), a short one
# in its own: both keep the contract.
CHECKS = pytest.mark.parametrize("worker", [False, True], ids=["checks-here", "checks-in-worker"])


@CHECKS
@pytest.mark.parametrize("batch", [2, 1000])
def test_following_takes_in_every_event_lacking_and_a_second_time_nothing(
    setup: Setup, batch: int, worker: bool
) -> None:
    lacking = setup.lacking
    assert len(lacking) > 10
    first = follow(setup.follower, setup.log, batch=batch, worker=worker)
    assert (first.applied, first.refused, first.refusals) == (len(lacking), 0, [])
    assert setup.lacking == set()
    assert verify(setup.follower).ok
    again = follow(setup.follower, setup.fresh(), batch=batch, worker=worker)
    assert (again.applied, again.refused) == (0, 0)


class Interrupted(SyncError):
    pass


class Failing:
    """A log that breaks after `pages` pages (a cable pulled mid-pull)."""

    def __init__(self, log: RemoteLog[Any], pages: int) -> None:
        self.log, self.left = log, pages

    def describe(self) -> Source:
        return self.log.describe()

    def start(self) -> Any:
        return self.log.start()

    def position(self, value: Any) -> Any:
        return self.log.position(value)

    def page(self, after: Any, limit: int, held: Mapping[str, int]) -> Page[Any]:
        if self.left == 0:
            raise Interrupted("the cable was pulled")
        self.left -= 1
        return self.log.page(after, limit, held)

    def resume(self, page: Page[Any], held: Held) -> Any:
        return self.log.resume(page, held)


@CHECKS
def test_an_interrupted_follow_keeps_what_it_applied_and_the_next_one_finishes(
    setup: Setup, worker: bool
) -> None:
    lacking = setup.lacking
    pages = walk(setup.fresh(), origin_heads.high_water_marks(setup.follower.conn), 3)
    before_the_cut = keys([event for page in pages[:-1] for event in page.events]) & lacking
    assert before_the_cut and before_the_cut != lacking
    with pytest.raises(Interrupted):  # the last page never comes
        follow(setup.follower, Failing(setup.log, pages=len(pages) - 1), batch=3, worker=worker)
    assert lacking - setup.lacking == before_the_cut, "the pages before the cut are kept"
    second = follow(setup.follower, setup.fresh(), batch=3)
    assert (second.applied, second.refused) == (len(lacking - before_the_cut), 0)
    assert setup.lacking == set()


def test_an_unreachable_log_is_a_network_failure_and_stores_nothing(setup: Setup) -> None:
    """(A ledger that cannot be read is a storage failure: the same exit code.)"""
    before = keys(list(setup.follower.events()))
    with pytest.raises(BoothError) as failure:
        follow(setup.follower, setup.unreachable(), batch=10)
    assert failure.value.exit_code == 3
    assert keys(list(setup.follower.events())) == before
