"""`booth serve`: the replication server, discovery and the replicator, beside each other.

The replicator pulls from every known peer (found by zeroconf or listed) every `interval`
seconds and at once when a peer appears; a peer that fails is retried with backoff, and one that
returns resyncs from its checkpoint by itself. With a head-office upstream set (upstream.json), a
thread of its own pushes to it every `upstream_interval` seconds, backing off while it fails.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pos.backoff import Backoff
from pos.clock import Clock, SystemClock
from pos.errors import BoothError
from pos.ledger import Ledger
from pos.ledger.keys import StationKey
from pos.services.station import LEDGER_FILE, STATION_KEY_FILE, Station
from sync.client import Peer, client_context
from sync.discovery import Discovery, Found
from sync.replicator import pull, record_contact
from sync.server import ReplicationServer, require_tls
from sync.upstream import Upstream, UpstreamSettings, load_settings, push

log = logging.getLogger("booth.sync")
PEER_BACKOFF = Backoff(base=1.0, cap=60.0)  # a peer that fails: retried within 2, 4 ... 60 s
UPSTREAM_BACKOFF_LIMIT = 900.0  # seconds between tries while the head office keeps failing


def upstream_backoff(interval: float) -> Backoff:
    """The head office, while it fails: within 2, 4 ... times the interval, up to 15 minutes."""
    return Backoff(base=interval, cap=max(interval, UPSTREAM_BACKOFF_LIMIT))


@dataclass
class PeerState:
    url: str
    source: str
    failures: int = 0
    next_try: float = 0.0
    station: str | None = None


_RUNNING: dict[Path, SyncService] = {}
_RUNNING_LOCK = threading.Lock()


def running_for(directory: Path) -> SyncService | None:
    """The sync service running in this process for the station in `directory`, if any: a
    command run by the station's owner asks it for what only it knows (pulls in flight)."""
    with _RUNNING_LOCK:
        return _RUNNING.get(Path(directory).resolve())


@dataclass
class SyncService:
    station: Station
    port: int = 8701
    address: str = "127.0.0.1"
    static_peers: list[str] = field(default_factory=list)
    interval: float = 5.0
    discover: bool = True
    upstream_interval: float = 60.0
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    clock: Clock = field(default_factory=SystemClock)  # stamps checkpoints and peer contacts
    rng: random.Random = field(default_factory=random.Random)  # the backoffs' jitter

    def __post_init__(self) -> None:
        self.peers: dict[str, PeerState] = {
            url: PeerState(url, "static") for url in self.static_peers
        }
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self.server: ReplicationServer | None = None
        self.ledger: Ledger | None = None
        self.discovery: Discovery | None = None
        self.upstream: Upstream | None = None
        require_tls(self.station.directory)  # a missing file named, before ssl's error
        self.context = client_context(self.station.directory)
        self.in_flight: dict[str, Future[dict[str, Any]]] = {}

    def start(self) -> None:
        st = self.station
        with _RUNNING_LOCK:
            _RUNNING[st.directory.resolve()] = self
        # Its own connection: the station's (used by the UI or the CLI) is not shared across
        # threads; SQLite serialises the writers of the two connections.
        self.ledger = Ledger.open(
            st.directory / LEDGER_FILE,
            station=st.id,
            key=StationKey.from_hex((st.directory / STATION_KEY_FILE).read_text()),
            hall_public_key=st.config.hall_public_key,
        )
        self.server = ReplicationServer(
            (self.address, self.port),
            station_dir=st.directory,
            ledger=self.ledger,
            write_lock=self.write_lock,
            station_view=st.on_ledger(self.ledger),
            hall=st.config.hall,
            station=st.id,
            clock=st.clock,  # the station's own: a training hall's BOOTH_NOW too
        )
        self.port = self.server.server_address[1]
        self._spawn("booth-sync-server", self.server.serve_forever)
        self._spawn("booth-replicator", self._replicate_forever)
        upstream = load_settings(st.directory)
        if upstream is not None:
            self.upstream = Upstream(upstream)
            self._spawn("booth-upstream", lambda: self._push_forever(upstream))
        if self.discover:
            self.discovery = Discovery(
                hall=st.config.hall,
                station=st.id,
                role=st.config.role,
                port=self.port,
                address=self.address,
                on_found=self._found,
            )
            self.discovery.start()

    def _spawn(self, name: str, target: Any) -> None:
        thread = threading.Thread(target=target, name=name)
        thread.start()
        self._threads.append(thread)

    def _found(self, found: Found) -> None:
        state = self.peers.setdefault(found.url, PeerState(found.url, "zeroconf"))
        state.station, state.next_try = found.station, 0.0
        self._wake.set()

    def sync_round(self, only: str | None = None) -> list[dict[str, Any]]:
        """One pull from every known peer that is due (or the one named)."""
        now = time.monotonic()
        due = [
            state
            for state in list(self.peers.values())
            if (state.url == only if only is not None else state.next_try <= now)
        ]
        if len(due) <= 1:
            return [self._pull_one(state) for state in due]
        # side by side: a peer behind a cut LAN must not hold up the ones that answer
        with ThreadPoolExecutor(len(due), thread_name_prefix="booth-pull") as pool:
            return list(pool.map(self._pull_one, due))

    def _pull_one(self, state: PeerState) -> dict[str, Any]:
        peer = Peer(state.url, self.context)
        assert self.ledger is not None, "start() first"
        try:
            result = pull(
                self.ledger, peer, lock=self.write_lock, clock=self.clock, wall=self.station.clock
            )
        except BoothError as error:
            state.failures += 1
            delay = PEER_BACKOFF.next_delay(state.failures, self.rng)
            state.next_try = time.monotonic() + delay
            with self.write_lock:
                record_contact(
                    self.ledger,
                    state.url,
                    station=state.station,
                    error=error.message,
                    pulled=0,
                    source=state.source,
                    clock=self.clock,
                )
            return {"peer": state.url, "error": error.message}
        finally:
            peer.close()
        state.failures, state.next_try, state.station = 0, 0.0, result.station
        with self.write_lock:
            record_contact(
                self.ledger,
                state.url,
                station=result.station,
                error=None,
                pulled=result.applied,
                source=state.source,
                heads=result.heads,
                clock=self.clock,
                release=result.release,
                clock_offset_ms=result.clock_offset_ms,
            )
        if result.caught_up is False:
            log.info("restored from a backup, still catching up after %s", state.url)
        return {
            "peer": state.url,
            "station": result.station,
            "applied": result.applied,
            "received": result.received,
            "refused": result.refused,
            "restarted": result.restarted,
            "caught_up": result.caught_up,
            "release": result.release,
            "clock_offset_ms": result.clock_offset_ms,
        }

    def set_static_peers(self, urls: list[str]) -> None:
        """The listed peers changed (`booth sync peer add/remove` on the running station): pull
        from the new ones now, forget the removed ones (those zeroconf found stay)."""
        for url in urls:
            self.peers.setdefault(url, PeerState(url, "static"))
        for url, peer in list(self.peers.items()):
            if peer.source == "static" and url not in urls:
                del self.peers[url]
        self._wake.set()

    def live_state(self) -> dict[str, Any]:
        """What only the running service knows: each peer's pulls in flight, failures in a row
        and the wait before its next pull."""
        now = time.monotonic()
        return {
            "serving": f"https://{self.address}:{self.port}",
            "peers": [
                {
                    "url": peer.url,
                    "source": peer.source,
                    "station": peer.station,
                    "pulling": peer.url in self.in_flight,
                    "failures": peer.failures,
                    "next_pull_in": round(max(0.0, peer.next_try - now), 1),
                }
                for peer in sorted(self.peers.values(), key=lambda p: p.url)
            ],
        }

    def _replicate_forever(self) -> None:
        # Each due peer's pull runs on its own; the loop never waits on a slow or silent peer.
        in_flight = self.in_flight
        with ThreadPoolExecutor(16, thread_name_prefix="booth-pull") as pool:
            while not self._stop.is_set():
                now = time.monotonic()
                for url, future in list(in_flight.items()):
                    if future.done():
                        del in_flight[url]
                        if future.exception() is not None:
                            log.error("pull from %s failed", url, exc_info=future.exception())
                for state in list(self.peers.values()):
                    if state.url not in in_flight and state.next_try <= now:
                        in_flight[state.url] = pool.submit(self._pull_one, state)
                self._wake.wait(self.interval)
                self._wake.clear()

    def _push_forever(self, settings: UpstreamSettings) -> None:
        # Its own connection: a push reads whole batches while the replicator applies others.
        st = self.station
        ledger = Ledger.open(
            st.directory / LEDGER_FILE,
            station=st.id,
            key=None,
            hall_public_key=st.config.hall_public_key,
        )
        failures = 0
        backoff = upstream_backoff(self.upstream_interval)
        try:
            while not self._stop.is_set():
                try:
                    result = push(
                        ledger,
                        settings,
                        hall=st.config.hall,
                        stopping=self._stop.is_set,
                        upstream=self.upstream,
                        clock=self.clock,
                    )
                    failures = 0
                    if result.written:
                        log.info("pushed %d new events to %s", result.written, settings.url)
                except BoothError as error:
                    if self._stop.is_set():
                        break  # aborted by stop()
                    failures += 1
                    log.warning("upstream push failed (%d in a row): %s", failures, error.message)
                except Exception:
                    failures += 1
                    log.exception("upstream push failed (%d in a row)", failures)
                # every interval; while it fails, backing off (with jitter)
                delay = backoff.next_delay(failures, self.rng) if failures else None
                self._stop.wait(self.upstream_interval if delay is None else delay)
        finally:
            ledger.close()

    def stop(self) -> None:
        with _RUNNING_LOCK:
            if _RUNNING.get(self.station.directory.resolve()) is self:
                del _RUNNING[self.station.directory.resolve()]
        self._stop.set()
        self._wake.set()
        if self.upstream is not None:
            self.upstream.abort()
        if self.discovery is not None:
            self.discovery.stop()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        for thread in self._threads:
            thread.join(timeout=10)
        if self.ledger is not None:
            self.ledger.close()
