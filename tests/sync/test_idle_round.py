"""An idle pull (nothing new) is small on the wire (issue #31: under 4 KB with its TLS handshake):
the peer says its first event's hash in `GET /`, so a puller that holds that event fetches no
document to tell the instance from a twin, and the check that the peer's log did not go back
reads a revision, not a whole event. A peer that does not say the hash (a release before this
one) is still checked on its first event, fetched as before."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pos.services.station import Station
from sync import protocol, server
from sync.client import Peer, client_context
from sync.replicator import PullResult, pull
from tests.sync.conftest import ENVIRON, build_hall
from tests.sync.test_twin_station import serving


class Recording(Peer):
    """A peer that notes the path of every request and the size of every answer."""

    def __init__(self, url: str, directory: Path) -> None:
        super().__init__(url, client_context(directory), timeout=10)
        self.asked: list[str] = []

    def request(self, method: str, path: str, body: Any = None) -> Any:
        self.asked.append(path)
        return super().request(method, path, body)


@contextmanager
def pulling(directory: Path, url: str) -> Iterator[tuple[Recording, Station]]:
    with Station(directory, environ=ENVIRON) as st:
        peer = Recording(url, directory)
        try:
            yield peer, st
        finally:
            peer.close()


def _pull(directory: Path, url: str) -> tuple[PullResult, list[str]]:
    with pulling(directory, url) as (peer, st):
        return pull(st.ledger, peer), peer.asked


def test_an_idle_round_fetches_no_event_document(tmp_path: Path) -> None:
    built = build_hall(tmp_path, ["booth-1"])
    with serving(built.stations["manager"]) as url:
        first, _ = _pull(built.stations["booth-1"], url)
        assert first.refused == 0 and first.received > 0
        idle, asked = _pull(built.stations["booth-1"], url)
    assert (idle.received, idle.applied, idle.refused) == (0, 0, 0)
    first_doc = protocol.first_event_path("manager")
    assert first_doc not in asked, "the hash in GET / tells the instance held: no fetch"
    went_back = [path for path in asked if f"since={first.since - 1}&" in path]
    assert went_back and all("include_docs" not in path for path in went_back), asked
    assert idle.bytes_received < 1200, idle.bytes_received


def test_a_peer_that_does_not_say_its_first_hash_is_checked_on_its_first_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server.ReplicationHandler, "_first_hash", lambda self: None)
    built = build_hall(tmp_path, ["booth-1"])
    with serving(built.stations["manager"]) as url:
        first, asked = _pull(built.stations["booth-1"], url)
        assert first.refused == 0 and first.received > 0
        assert protocol.first_event_path("manager") in asked
        idle, asked = _pull(built.stations["booth-1"], url)
    assert (idle.received, idle.applied, idle.refused) == (0, 0, 0), "its checkpoint applies"
    assert protocol.first_event_path("manager") in asked


def test_the_root_says_the_hash_of_the_stations_own_first_event(tmp_path: Path) -> None:
    built = build_hall(tmp_path, [])
    with Station(built.stations["manager"], environ=ENVIRON, read_only=True) as st:
        held = st.ledger.get("manager", 1)
    assert held is not None
    with serving(built.stations["manager"]) as url:
        peer = Peer(url, client_context(built.stations["manager"]), timeout=10)
        try:
            info = protocol.read_root(peer.request("GET", "/"), url)
        finally:
            peer.close()
    assert info.first == held.hash
    assert protocol.read_hash("x" * 64) is None and protocol.read_hash(held.hash.upper()) is None
