"""The head-office upstream against pouchdb-server (express-pouchdb, PouchDB 7 in memory) behind
Node's HTTPS server and HTTP basic auth: tests/sync/pouch/upstream.js. Its certificate is
issued for 127.0.0.1 by a private CA made here, so the station must be given that CA.

Needs node and `npm ci` in tests/sync/pouch (.ci/run).
"""

from __future__ import annotations

import json
import socket
import sqlite3
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pos.ledger import Event, Ledger
from pos.services import sales
from pos.services.station import LEDGER_FILE, Station
from sync import docs
from sync.service import SyncService
from sync.upstream import SETTINGS_FILE, checkpoint_id, load_settings
from sync.upstream_pull import UpstreamPullResult, pull
from tests.conftest import Result, run_booth
from tests.sync.conftest import ENVIRON, build_hall, free_port
from tests.sync.head_office import PASSWORD, USER, HeadOffice, require_node

pytestmark = pytest.mark.slow  # a CouchDB head office in Node


@pytest.fixture(autouse=True)
def _needs_node() -> None:
    require_node()


# --- a hall, its booth station and the CLI -----------------------------------------------------


class Done(Result):
    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclass
class Booth:
    directory: Path

    def __call__(self, *args: str, password: str | None = PASSWORD) -> Done:
        env = {**ENVIRON, "BOOTH_OPERATOR": "M1"}
        if password is not None:
            env["BOOTH_UPSTREAM_PASSWORD"] = password
        result = run_booth("--hall", str(self.directory), *args, env=env)
        return Done(result.exit_code, result.stdout, result.stderr)

    def sell(self, count: int, deal: str = "D-BOOTH-1") -> None:
        with Station(self.directory, environ=ENVIRON) as st:
            for _ in range(count):
                sales.sell(st, deal, qty=1, operator="S1")

    def events(self) -> dict[str, Event]:
        ledger = self._ledger()
        try:
            return {docs.doc_id(e.origin, e.seq): e for e in ledger.events()}
        finally:
            ledger.conn.close()

    def pushed_checkpoint(self) -> Any:
        ledger = self._ledger()
        try:
            return ledger.conn.execute(
                "SELECT doc FROM sync_local WHERE id LIKE 'booth-push:%'"
            ).fetchone()
        finally:
            ledger.conn.close()

    def hashes(self) -> dict[str, str]:
        return {key: event.hash for key, event in self.events().items()}

    def incidents(self) -> list[dict[str, Any]]:
        ledger = self._ledger()
        try:
            return ledger.incidents()
        finally:
            ledger.conn.close()

    def set_upstream(self, url: str, tls: dict[str, Path]) -> None:
        result = self("sync", "upstream", "set", url, "--user", USER, "--ca-file", str(tls["ca"]))
        assert result.ok, result.stderr

    def _ledger(self) -> Ledger:
        conn = sqlite3.connect(f"file:{self.directory / LEDGER_FILE}?mode=ro", uri=True)
        return Ledger(conn, station="booth-1", key=None, hall_public_key="")


@pytest.fixture
def booth(tmp_path: Path) -> Booth:
    """booth-1 of a small hall: its own sales and, relayed, the manager's events."""
    built = build_hall(tmp_path, ["booth-1"])
    station = Booth(built.stations["booth-1"])
    station.sell(12)
    relay_manager_sales(built.stations["manager"], station)
    return station


def relay_manager_sales(manager_directory: Path, station: Booth) -> None:
    """Five sales at the manager, carried to `station` (which held the rest already)."""
    with (
        Station(station.directory, environ=ENVIRON) as st,
        Station(manager_directory, environ=ENVIRON) as manager,
    ):
        for _ in range(5):
            sales.sell(manager, "D-MANAGER", qty=1, operator="S1")
        applied, refused = st.ledger.apply_batch(list(manager.ledger.events()))
        assert applied >= 5 and not refused


def expected_revs(events: dict[str, Event]) -> dict[str, str]:
    return {key: docs.rev_of(event.hash) for key, event in events.items()}


# --- the tests ---------------------------------------------------------------------------------


def test_push_copies_every_event_once_then_only_new_ones(
    booth: Booth, office: HeadOffice, tls: dict[str, Path]
) -> None:
    url = f"{office.base}/hall-push"
    result = booth("sync", "upstream", "set", url, "--user", USER, "--ca-file", str(tls["ca"]))
    assert result.exit_code == 0, result.stderr
    settings = booth.directory / SETTINGS_FILE
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert json.loads(settings.read_text())["password"] == PASSWORD

    held = booth.events()
    origins = {event.origin for event in held.values()}
    assert origins == {"manager", "booth-1"}, "booth-1 relays the manager's events too"
    first = booth("sync", "upstream", "push", "--json")
    assert first.exit_code == 0, first.stderr
    assert first.json["created"] is True
    assert first.json["examined"] == first.json["written"] == len(held)
    assert first.json["bytes_sent"] > 1000
    assert office.revs("hall-push") == expected_revs(held)

    # every document upstream is the event itself: it decodes, its hash and signature hold
    with Station(booth.directory, environ=ENVIRON) as st:
        stored = office.get("/hall-push/_all_docs?include_docs=true")["rows"]
        assert len(stored) == len(held)
        for row in stored:
            event = docs.from_doc(row["doc"])
            assert event == held[row["id"]]
            key = st.ledger.public_key(event.origin)
            assert key is not None and event.hash_matches() and event.signed_by(key)

    # the checkpoint upstream, at this station's last event
    hall_id = json.loads((booth.directory / "station.json").read_text())["hall"]
    remote = office.get(f"/hall-push/_local/{checkpoint_id('booth-1', hall_id)}")
    assert remote["since"] == first.json["since"] and remote["station"] == "booth-1"

    # a second push examines nothing and writes nothing
    bulk = office.requests().get("POST /hall-push/_bulk_docs", 0)
    second = booth("sync", "upstream", "push", "--json")
    assert second.exit_code == 0, second.stderr
    assert (second.json["examined"], second.json["written"]) == (0, 0)
    assert second.json["since"] == first.json["since"] and second.json["created"] is False
    assert office.requests().get("POST /hall-push/_bulk_docs", 0) == bulk

    # new sales: only they are sent
    booth.sell(3)
    third = booth("sync", "upstream", "push", "--json")
    assert third.exit_code == 0, third.stderr
    assert third.json["examined"] == third.json["written"] == 3
    assert office.revs("hall-push") == expected_revs(booth.events())

    status = booth("sync", "upstream", "status", "--json")
    assert status.exit_code == 0, status.stderr
    assert PASSWORD not in status.stdout
    assert status.json["upstream"] == {"url": url, "user": USER, "ca": "private"}
    assert status.json["last_push"]["since"] == third.json["since"]
    assert status.json["last_push"]["written"] == 3
    assert status.json["events_here_up_to"] == third.json["since"]
    human = booth("sync", "upstream", "status")
    assert url in human.stdout and USER in human.stdout and PASSWORD not in human.stdout


def test_a_checkpoint_of_another_url_costs_a_recheck_not_a_copy(
    booth: Booth, office: HeadOffice, tls: dict[str, Path]
) -> None:
    """The checkpoint here belongs to the URL it was made for: after a change of URL the push
    starts over, and `_revs_diff` keeps what the head office holds from being sent again."""
    url = f"{office.base}/hall-recheck"
    assert booth("sync", "upstream", "set", url, "--user", USER, "--ca-file", str(tls["ca"])).ok
    assert booth("sync", "upstream", "push").exit_code == 0
    # point it at a new database: everything is sent there; back to the first: nothing is
    other = f"{office.base}/hall-recheck-2"
    assert booth("sync", "upstream", "set", other, "--user", USER, "--ca-file", str(tls["ca"])).ok
    moved = booth("sync", "upstream", "push", "--json")
    assert moved.json["written"] == len(booth.events())
    assert booth("sync", "upstream", "set", url, "--user", USER, "--ca-file", str(tls["ca"])).ok
    back = booth("sync", "upstream", "push", "--json")
    assert back.exit_code == 0, back.stderr
    assert back.json["examined"] == len(booth.events()) and back.json["written"] == 0


def test_a_wrong_password_is_refused_naming_the_user_and_nothing_moves(
    booth: Booth, office: HeadOffice, tls: dict[str, Path], tmp_path: Path
) -> None:
    url = f"{office.base}/hall-refused"
    wrong = tmp_path / "wrong-password"
    wrong.write_text("not the password\n")
    result = booth(
        *("sync", "upstream", "set", url, "--user", USER),
        *("--password-file", str(wrong), "--ca-file", str(tls["ca"])),
        password=None,
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads((booth.directory / SETTINGS_FILE).read_text())["password"] == (
        "not the password"
    )
    pushed = booth("sync", "upstream", "push", "--json")
    assert pushed.exit_code == 3, pushed.stdout + pushed.stderr
    assert f"refused the credentials for {USER} at {url}" in pushed.stderr
    assert pushed.json["exit"] == 3
    assert "hall-refused" not in office.databases()
    assert booth.pushed_checkpoint() is None
    status = booth("sync", "upstream", "status", "--json")
    assert status.json["last_push"] is None and "not the password" not in status.stdout


def test_the_head_office_certificate_must_verify(
    booth: Booth, office: HeadOffice, tls: dict[str, Path]
) -> None:
    url = f"{office.base}/hall-untrusted"
    assert booth("sync", "upstream", "set", url, "--user", USER).exit_code == 0
    pushed = booth("sync", "upstream", "push")
    assert pushed.exit_code == 3, pushed.stderr
    assert f"certificate at {url} does not verify" in pushed.stderr
    assert "--ca-file" in pushed.stderr
    assert "hall-untrusted" not in office.databases()
    assert booth.pushed_checkpoint() is None

    # the right CA but another name than the certificate's: refused too (check_hostname)
    by_name = url.replace("127.0.0.1", "localhost")
    assert booth("sync", "upstream", "set", by_name, "--user", USER, "--ca-file", str(tls["ca"])).ok
    pushed = booth("sync", "upstream", "push")
    assert pushed.exit_code == 3 and "does not verify" in pushed.stderr, pushed.stderr
    assert "localhost" in pushed.stderr


def test_bad_settings_are_refused_and_nothing_is_written(
    booth: Booth, tls: dict[str, Path], tmp_path: Path
) -> None:
    settings = booth.directory / SETTINGS_FILE
    for url in ("http://127.0.0.1:5984/hall", "https://127.0.0.1:6984", "ftp://x/hall"):
        result = booth("sync", "upstream", "set", url, "--user", USER)
        assert result.exit_code == 2, (url, result.stderr)
        assert repr(url) in result.stderr
    refused = booth("sync", "upstream", "set", "https://u:p@127.0.0.1/hall", "--user", USER)
    assert refused.exit_code == 2 and "credentials" in refused.stderr
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("hello")
    bad_ca = booth(
        "sync", "upstream", "set", "https://127.0.0.1/h", "--user", USER, "--ca-file", str(not_pem)
    )
    assert bad_ca.exit_code == 2 and str(not_pem) in bad_ca.stderr
    empty_file = tmp_path / "empty-password"
    empty_file.write_text("\n")
    empty = booth(
        *("sync", "upstream", "set", "https://127.0.0.1/h", "--user", USER),
        *("--password-file", str(empty_file)),
        password=None,
    )
    assert empty.exit_code == 2 and "password is empty" in empty.stderr
    assert not settings.exists()

    no_manager = run_booth(
        *("--hall", str(booth.directory), "sync", "upstream", "set", "https://127.0.0.1/h"),
        *("--user", USER, "--as", "S1"),
        env={**ENVIRON, "BOOTH_UPSTREAM_PASSWORD": PASSWORD},
    )
    assert no_manager.exit_code == 1, no_manager.stderr
    assert not settings.exists()

    unset = booth("sync", "upstream", "push")
    assert unset.exit_code == 2 and "no upstream set" in unset.stderr
    assert booth("sync", "upstream", "status", "--json").json["upstream"] is None


def test_an_unreachable_head_office_is_a_network_failure(
    booth: Booth, tls: dict[str, Path]
) -> None:
    url = f"https://127.0.0.1:{free_port()}/hall"
    assert booth("sync", "upstream", "set", url, "--user", USER).exit_code == 0
    pushed = booth("sync", "upstream", "push")
    assert pushed.exit_code == 3
    assert f"the head office at {url} cannot be reached" in pushed.stderr
    assert booth.pushed_checkpoint() is None

    removed = booth("sync", "upstream", "remove")
    assert removed.exit_code == 0 and "removed" in removed.stdout
    assert not (booth.directory / SETTINGS_FILE).exists()
    assert booth("sync", "upstream", "remove").stdout.strip() == "No upstream was set."


def test_booth_serve_pushes_to_the_upstream_and_stops_cleanly(
    booth: Booth, office: HeadOffice, tls: dict[str, Path]
) -> None:
    url = f"{office.base}/hall-served"
    assert booth("sync", "upstream", "set", url, "--user", USER, "--ca-file", str(tls["ca"])).ok
    with Station(booth.directory, environ=ENVIRON) as st:
        service = SyncService(st, port=0, discover=False, interval=600, upstream_interval=0.2)
        service.start()
        try:
            held = booth.events()
            deadline = time.monotonic() + 30
            while "hall-served" not in office.databases() or office.revs("hall-served") != (
                expected_revs(held)
            ):
                assert time.monotonic() < deadline, "booth serve did not push"
                time.sleep(0.1)
            # a sale while it serves reaches the head office at the next round
            sales.sell(st, "D-BOOTH-1", qty=1, operator="S1")
            held = booth.events()
            while office.revs("hall-served") != expected_revs(held):
                assert time.monotonic() < deadline, "the new sale was not pushed"
                time.sleep(0.1)
        finally:
            service.stop()
    assert not [t for t in service._threads if t.is_alive()]


def test_booth_serve_stops_at_once_while_the_head_office_hangs(booth: Booth) -> None:
    """A push waiting on a silent head office (TCP accepted, no TLS answer) must not hold up
    the service's stop: stop() aborts the request in flight."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"https://127.0.0.1:{silent.getsockname()[1]}/hall"
        assert booth("sync", "upstream", "set", url, "--user", USER).ok
        with Station(booth.directory, environ=ENVIRON) as st:
            service = SyncService(st, port=0, discover=False, interval=600, upstream_interval=60)
            service.start()
            time.sleep(1.0)  # the push is in its TLS handshake, waiting
            started = time.monotonic()
            service.stop()
            assert time.monotonic() - started < 3.0
    assert not [t for t in service._threads if t.is_alive()]
    assert booth.pushed_checkpoint() is None


# --- pulling: restoring a station from the head office ------------------------------------------


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Booth, Booth]:
    """booth-1 (A) and booth-2 (B) of one hall, both joined before A sold: A sells and takes
    the manager's later sales; B never syncs with either."""
    built = build_hall(tmp_path, ["booth-1", "booth-2"])
    a, b = Booth(built.stations["booth-1"]), Booth(built.stations["booth-2"])
    a.sell(12)
    relay_manager_sales(built.stations["manager"], a)
    return a, b


def pull_in_process(station: Booth, *, batch: int) -> UpstreamPullResult:
    settings = load_settings(station.directory)
    assert settings is not None
    with Station(station.directory, environ=ENVIRON) as st:
        return pull(st.ledger, settings, batch=batch)


def writes(counts: dict[str, int]) -> dict[str, int]:
    return {key: n for key, n in counts.items() if not key.startswith("GET ")}


def test_a_station_takes_in_from_the_head_office_every_event_it_lacks(
    pair: tuple[Booth, Booth], office: HeadOffice, tls: dict[str, Path]
) -> None:
    a, b = pair
    url = f"{office.base}/hall-restore"
    a.set_upstream(url, tls)
    b.set_upstream(url, tls)
    assert a("sync", "upstream", "push").ok
    lacking = a.hashes().keys() - b.hashes().keys()
    assert {key.split(":")[0] for key in lacking} == {"booth-1", "manager"}
    assert b.hashes().keys() - a.hashes().keys(), "B holds events of its own"

    # small reads: B holds the start of the manager's chain, so a read jumps past it
    before = office.requests()
    first = pull_in_process(b, batch=5)
    assert (first.applied, first.refused, first.refusals) == (len(lacking), 0, [])
    assert first.examined == len(lacking)
    assert a.hashes().items() <= b.hashes().items()
    assert writes(office.requests()) == writes(before), "a pull never writes upstream"
    assert b("verify").ok

    # B pushes its own events, A pulls them: both hold the same events
    assert b("sync", "upstream", "push").ok
    a_lacks = b.hashes().keys() - a.hashes().keys()
    pulled = a("sync", "upstream", "pull", "--json")
    assert pulled.exit_code == 0, pulled.stderr
    assert (pulled.json["applied"], pulled.json["refused"]) == (len(a_lacks), 0)
    digests = [station("verify", "--json").json for station in (a, b)]
    assert all(report["ok"] for report in digests)
    assert digests[0]["digest"] == digests[1]["digest"]
    assert a.hashes() == b.hashes()

    # nothing new: nothing applied, and the reads jump from origin to origin instead of
    # reading every event again (with 3 rows a read, that would take over 10 reads)
    held = len(b.hashes())
    assert held > 10 * 3
    gets = office.requests().get("GET /hall-restore/_all_docs", 0)
    again = pull_in_process(b, batch=3)
    assert (again.applied, again.examined, again.refused) == (0, 0, 0)
    assert again.requests <= 4, again
    assert office.requests().get("GET /hall-restore/_all_docs", 0) == gets + again.requests
    by_cli = b("sync", "upstream", "pull", "--json")
    assert by_cli.exit_code == 0, by_cli.stderr
    assert (by_cli.json["applied"], by_cli.json["requests"]) == (0, 1)
    assert len(b.hashes()) == held


def test_a_forged_or_foreign_document_is_refused_and_the_rest_lands(
    pair: tuple[Booth, Booth], office: HeadOffice, tls: dict[str, Path]
) -> None:
    """Upstream: A's events with booth-1:5's body changed (its old hash and signature kept), a
    document that is not an event and a design document. B takes in the manager's events and
    booth-1's up to 4; nothing of booth-1 from 5 on; the forgery is an incident."""
    a, b = pair
    documents = [docs.to_doc(event, revisions=True) for event in a.events().values()]
    forged = next(doc for doc in documents if doc["_id"] == docs.doc_id("booth-1", 5))
    forged["body"] = {**forged["body"], "forged": True}
    documents += [
        {"_id": "notes", "_rev": "1-abc", "text": "not an event"},
        {"_id": "_design/reports", "_rev": "1-abc", "views": {}},
    ]
    office.plant("hall-forged", documents)
    b.set_upstream(f"{office.base}/hall-forged", tls)
    before = b.hashes()

    pulled = b("sync", "upstream", "pull", "--json")
    assert pulled.exit_code == 4, pulled.stdout + pulled.stderr
    assert "2 document(s) from the head office refused" in pulled.stderr
    assert pulled.json["refused"] == 2
    refusals = "\n".join(pulled.json["refusals"])
    assert "booth-1:5" in refusals and "hash does not match" in refusals
    assert "'notes' is not an event" in refusals

    held = b.hashes()
    wanted = {key: e.hash for key, e in a.events().items() if not key.startswith("booth-1:")}
    wanted.update(
        {
            docs.doc_id("booth-1", seq): a.hashes()[docs.doc_id("booth-1", seq)]
            for seq in range(1, 5)
        }
    )
    assert held == {**before, **wanted}
    assert [(i["kind"], i["origin"], i["seq"]) for i in b.incidents()] == [
        ("bad-hash", "booth-1", 5)
    ]
    assert b("verify").ok


def test_events_of_another_hall_are_refused_once_per_station_not_crashed_on(
    pair: tuple[Booth, Booth], office: HeadOffice, tls: dict[str, Path], tmp_path: Path
) -> None:
    """Another hall's booth-9 in the database: its certificate is not signed by this hall. It is
    refused once, however many reads its events span (the reads jump past it)."""
    a, b = pair
    other = build_hall(tmp_path / "other-hall", ["booth-9"])
    foreign = Booth(other.stations["booth-9"])
    foreign.sell(8, deal="D-BOOTH-9")
    foreign_events = [e for e in foreign.events().values() if e.origin == "booth-9"]
    assert len(foreign_events) >= 9
    office.plant(
        "hall-mixed",
        [docs.to_doc(e, revisions=True) for e in [*a.events().values(), *foreign_events]],
    )
    b.set_upstream(f"{office.base}/hall-mixed", tls)
    lacking = a.hashes().keys() - b.hashes().keys()

    result = pull_in_process(b, batch=3)
    assert (result.applied, result.refused) == (len(lacking), 1), result
    assert "booth-9:1" in result.refusals[0]
    assert "not signed by this hall" in result.refusals[0]
    assert not [key for key in b.hashes() if key.startswith("booth-9:")]
    assert [(i["kind"], i["origin"]) for i in b.incidents()] == [("bad-certificate", "booth-9")]
    assert a.hashes().items() <= b.hashes().items()


def test_a_pull_with_a_wrong_password_is_refused_and_takes_in_nothing(
    pair: tuple[Booth, Booth], office: HeadOffice, tls: dict[str, Path], tmp_path: Path
) -> None:
    a, b = pair
    url = f"{office.base}/hall-pull-refused"
    a.set_upstream(url, tls)
    assert a("sync", "upstream", "push").ok
    wrong = tmp_path / "wrong-password"
    wrong.write_text("not the password\n")
    result = b(
        *("sync", "upstream", "set", url, "--user", USER),
        *("--password-file", str(wrong), "--ca-file", str(tls["ca"])),
        password=None,
    )
    assert result.ok, result.stderr
    before = b.hashes()
    pulled = b("sync", "upstream", "pull", "--json")
    assert pulled.exit_code == 3, pulled.stdout + pulled.stderr
    assert f"refused the credentials for {USER} at {url}" in pulled.stderr
    assert pulled.json["exit"] == 3
    assert b.hashes() == before and not b.incidents()

    # the right password but no such database: a failure, and the pull does not create it
    missing = f"{office.base}/hall-never-pushed"
    b.set_upstream(missing, tls)
    pulled = b("sync", "upstream", "pull")
    assert pulled.exit_code == 3, pulled.stdout + pulled.stderr
    assert f"has no database at {missing}" in pulled.stderr
    assert "hall-never-pushed" not in office.databases()
