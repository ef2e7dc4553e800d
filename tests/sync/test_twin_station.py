"""A join bundle makes one station, once per hall (issue #16, item 6): a copy of a bundle taken
before use makes a twin; the hall finds it at the first contact, refuses it, keeps its pull
checkpoints per instance, lists the fork as an exception, and `booth sync now` exits 4."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pos.ledger import Ledger
from pos.ledger.keys import StationKey
from pos.services import exceptions, hall
from pos.services.station import LEDGER_FILE, STATION_KEY_FILE, Station, StationConfig
from sync.client import Peer, client_context
from sync.replicator import pull
from sync.server import ReplicationServer
from tests.conftest import run_booth
from tests.sync.conftest import ENVIRON, build_hall


@contextmanager
def serving(directory: Path) -> Iterator[str]:
    """The station in `directory` serving replication on 127.0.0.1, as `booth serve` does."""
    config = StationConfig.load(directory)
    ledger = Ledger.open(
        directory / LEDGER_FILE,
        station=config.station,
        key=StationKey.from_hex((directory / STATION_KEY_FILE).read_text()),
        hall_public_key=config.hall_public_key,
    )
    server = ReplicationServer(
        ("127.0.0.1", 0),
        station_dir=directory,
        ledger=ledger,
        write_lock=threading.Lock(),
        hall=config.hall,
        station=config.station,
    )
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        ledger.close()


def _pull(directory: Path, url: str) -> tuple[int, int]:
    with Station(directory, environ=ENVIRON) as st:
        peer = Peer(url, client_context(directory), timeout=10)
        try:
            result = pull(st.ledger, peer)
        finally:
            peer.close()
    return result.applied, result.refused


def test_a_copied_bundle_makes_a_twin_that_the_hall_refuses_at_first_contact(
    tmp_path: Path,
) -> None:
    built = build_hall(tmp_path, [])
    manager = built.stations["manager"]
    with Station(manager, environ=ENVIRON) as st:
        bundle = hall.add_station(st, name="booth-3", role="booth", operator="M1")
    original, copy = tmp_path / "booth-3.join.json", tmp_path / "copy.join.json"
    original.write_text(json.dumps(bundle))
    shutil.copy(original, copy)  # taken before use
    first, twin = tmp_path / "booth-3", tmp_path / "booth-3-twin"
    hall.join(first, original, environ=ENVIRON)
    hall.join(twin, copy, environ=ENVIRON)  # the same training clock: no help from time

    with serving(first) as url:
        applied, refused = _pull(manager, url)
    assert applied >= 1 and refused == 0, "the first instance is the station"

    with serving(twin) as url:
        applied, refused = _pull(manager, url)
        assert (applied, refused) == (0, 1), "refused at the first contact: nothing pulled"
        with Station(manager, environ=ENVIRON, read_only=True) as st:
            listed = [e for e in exceptions.review_list(st) if e["kind"] == "fork"]
        assert [(e["origin"], e["seq"]) for e in listed] == [("booth-3", 1)]
        assert "two instances of station booth-3" in listed[0]["subject"]
        now = run_booth(
            "--hall", str(manager), "sync", "now", "--peer", url, "--json",
            env={**ENVIRON, "BOOTH_OPERATOR": "M1"},
        )  # fmt: skip
        assert now.exit_code == 4, (now.stdout, now.stderr)
        assert "refused" in now.stderr, "every later contact says so too"
        assert "second instance of station booth-3" in now.json[0]["refusals"][0]

    with Station(manager, environ=ENVIRON, read_only=True) as st:
        joined = [e for e in st.ledger.origin_events("booth-3") if e.kind == "StationJoined"]
    assert len(joined) == 1, "only the first instance's events are held"
    instance = joined[0].body["instance"]
    assert isinstance(instance, str) and len(instance) == 32
