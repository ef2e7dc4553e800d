"""A long pull's signatures checked in a worker process (pos.ledger.signature_worker): its wire,
its verdicts against PyNaCl's own, its process's life, and a follow refusing a forged event the
same whether the worker or the pulling process checks it."""

from __future__ import annotations

import io
import os
import signal
import struct
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey

from pos.ledger import Event
from pos.ledger import signature_worker as worker_module
from pos.ledger.follower import Held, Page, Source, follow
from pos.ledger.signature_worker import SignatureWorker, WorkerFailure, answer, request, serve
from pos.services import sales
from pos.services.station import Station
from tests.sync.conftest import ENVIRON, build_hall
from tests.sync.test_remote_log_contract import open_ledger

SIGNER = SigningKey(b"\x01" * 32)
OTHER = SigningKey(b"\x02" * 32)
DIGEST = bytes(range(32))


def item(
    key: SigningKey = SIGNER, digest: bytes = DIGEST, signer: SigningKey = SIGNER
) -> tuple[bytes, bytes, bytes]:
    return bytes(key.verify_key), digest, signer.sign(digest).signature


def verdicts(*items: tuple[bytes, bytes, bytes]) -> list[int]:
    return list(answer(request(items)[4:]))


# --- the wire and the verdicts -------------------------------------------------------------------


def test_a_good_signature_verifies_and_a_wrong_key_digest_or_signature_does_not() -> None:
    forged = bytes([item()[2][0] ^ 1]) + item()[2][1:]
    assert verdicts(
        item(),
        item(key=OTHER),  # signed by another key than the one named
        (bytes(SIGNER.verify_key), bytes(32), item()[2]),  # another digest
        (bytes(SIGNER.verify_key), DIGEST, forged),
        (b"\xff" * 32, DIGEST, item()[2]),  # not a point of the curve: no crash, no
    ) == [1, 0, 0, 0, 0]


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.binary(min_size=32, max_size=32), st.booleans())
def test_the_workers_verdict_is_pynacls(seed: bytes, digest: bytes, tamper: bool) -> None:
    key = SigningKey(seed)
    signature = key.sign(digest).signature
    if tamper:
        signature = signature[:-1] + bytes([signature[-1] ^ 0x80])
    try:
        key.verify_key.verify(digest, signature)
        expected = 1
    except BadSignatureError:
        expected = 0
    assert verdicts((bytes(key.verify_key), digest, signature)) == [expected]


def test_a_request_of_the_wrong_sizes_is_refused_with_them() -> None:
    with pytest.raises(ValueError, match="not 32, 31 and 64"):
        request([(bytes(32), bytes(31), bytes(64))])


def test_the_worker_answers_each_request_in_turn_and_stops_at_the_end_of_its_input() -> None:
    source = io.BytesIO(request([item(), item(key=OTHER)]) + request([item()]))
    sink = io.BytesIO()
    serve(source, sink)
    assert sink.getvalue() == b"\x01\x00\x01"


def test_a_request_cut_short_gets_no_answer() -> None:
    sink = io.BytesIO()
    serve(io.BytesIO(request([item(), item()])[:-10]), sink)
    assert sink.getvalue() == b""


def test_a_request_of_too_many_signatures_stops_the_worker() -> None:
    with pytest.raises(SystemExit, match="a request of"):
        serve(io.BytesIO(struct.pack("<I", worker_module.MAX_ITEMS + 1)), io.BytesIO())


# --- the process ------------------------------------------------------------------------------


def test_the_worker_process_checks_and_ends_when_closed() -> None:
    with SignatureWorker.start() as worker:
        assert worker.check([item(), item(key=OTHER)] * 300) == [True, False] * 300
        assert worker.check([]) == []
        process = worker._process
    assert process.returncode == 0
    with pytest.raises(WorkerFailure, match="closed"):
        worker.check([item()])


def test_a_worker_that_died_is_a_failure_and_the_check_falls_back_to_this_process(
    tmp_path: Path,
) -> None:
    hall = build_hall(tmp_path / "hall", ["booth-1"])
    with Station(hall.stations["booth-1"], environ=ENVIRON) as booth:
        events = list(booth.ledger.events())
        with SignatureWorker.start() as worker:
            os.kill(worker.pid, signal.SIGKILL)
            worker._process.wait()
            with pytest.raises(WorkerFailure, match=r"gone|answered 0"):
                worker.check([item()])
            assert worker.broken
            check = booth.ledger.signature_check(worker)
            forged = replace(events[-1], sig=flip(events[-1].sig))
            assert check([*events, forged]) == [True] * len(events) + [False]


# --- a follow, with and without the worker ------------------------------------------------


def flip(hex_text: str) -> str:
    return ("1" if hex_text[0] == "0" else "0") + hex_text[1:]


class ListLog:
    """A log serving a list of events (forged ones too), page by page."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events

    def describe(self) -> Source:
        heads: dict[str, int] = {}
        for event in self.events:
            heads[event.origin] = max(heads.get(event.origin, 0), event.seq)
        return Source(url="list:", station="booth-1", uuid=None, heads=heads)

    def start(self) -> int:
        return 0

    def position(self, value: Any) -> int:
        return int(value)

    def page(self, after: int, limit: int, held: Mapping[str, int]) -> Page[int]:
        rows = self.events[after : after + limit]
        return Page(events=rows, bad_documents=[], after=after + len(rows), rows=len(rows))

    def resume(self, page: Page[int], held: Held) -> int:
        return page.after


@pytest.mark.parametrize("worker", [False, True], ids=["checks-here", "checks-in-worker"])
def test_a_forged_signature_is_refused_and_what_follows_it_held_back(
    tmp_path: Path, worker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    hall = build_hall(tmp_path / "hall", ["booth-1", "booth-2"])
    with Station(hall.stations["booth-1"], environ=ENVIRON) as booth:
        for _ in range(5):
            sales.sell(booth, "D-BOOTH-1", qty=1, operator="S1")
        events = [e for e in booth.ledger.events() if e.origin == "booth-1"]
    sold = [i for i, e in enumerate(events) if e.kind == "TicketsSold"]
    events[sold[2]] = replace(events[sold[2]], sig=flip(events[sold[2]].sig))
    started: list[SignatureWorker] = []
    real_start = SignatureWorker.start

    def start() -> SignatureWorker:
        started.append(real_start())
        return started[-1]

    monkeypatch.setattr(SignatureWorker, "start", start)
    follower = open_ledger(hall.stations["booth-2"])
    try:
        result = follow(follower, ListLog(events), batch=4, worker=worker)
        held = {e.seq for e in follower.events() if e.origin == "booth-1"}
    finally:
        follower.close()
    assert len(started) == (1 if worker else 0)
    assert all(w._process.returncode is not None for w in started), "the worker outlived the pull"
    forged = events[sold[2]]
    assert result.refused_events[:1] == [f"booth-1:{forged.seq}"]
    assert "signature does not verify" in result.refusals[0]
    assert held == {e.seq for e in events if e.seq < forged.seq}
