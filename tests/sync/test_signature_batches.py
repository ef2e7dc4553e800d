"""A pulled page's signatures are checked on a thread pool in chunks (pos.ledger.store's
SignatureCheck, issue #31 measured it: bench/verify.py); the refusal is the same as checking one
event after another on the applying thread: the first bad event in order is named, the events
before it are kept, nothing of its origin after it is applied."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from pos.ledger import Event
from pos.services.station import Station
from tests.sync.conftest import ENVIRON, build_hall

EVENTS = 400  # a page of several check chunks (128 events each)


def _sale(receipt: int) -> dict[str, object]:
    return {
        "serial": "A123456",
        "qty": 3,
        "price": 100,
        "amount": 300,
        "seller": "S1",
        "receipt": receipt,
        "bin": "drawer-1",
        "session": "2026-11-28/1",
        "buyer": None,
    }


def _flip(sig: str) -> str:
    return ("1" if sig[0] == "0" else "0") + sig[1:]


def test_a_forged_signature_inside_a_checked_batch_is_refused_as_one_by_one(
    tmp_path: Path,
) -> None:
    built = build_hall(tmp_path, ["booth-1"])
    with Station(built.stations["manager"], environ=ENVIRON) as manager:
        held = manager.ledger.count()
        with manager.ledger.transaction():
            for receipt in range(1, EVENTS + 1):
                manager.append("TicketsSold", _sale(receipt))
        batch = list(manager.ledger.events())[held:]
    middle = EVENTS // 2 + 7  # inside the second chunk of the pool's, not at its edge
    forged = replace(batch[middle], sig=_flip(batch[middle].sig))
    page: list[Event] = [*batch[:middle], forged, *batch[middle + 1 :]]

    outcomes = []
    for check in ("pool", "one by one"):
        target = tmp_path / f"target-{check.replace(' ', '-')}"
        shutil.copytree(built.stations["booth-1"], target)
        with Station(target, environ=ENVIRON) as st:
            before = st.ledger.count()
            if check == "pool":
                authentic = st.ledger.signature_check()(page)
                assert authentic.count(False) == 1 and not authentic[middle]
            else:
                authentic = [False] * len(page)  # every event checked on this thread
            applied, refusals = st.ledger.apply_batch(page, authentic=authentic)
            held_after = st.ledger.count() - before
            last = st.ledger.head(forged.origin)[0]
        outcomes.append((applied, held_after, last, [r.message for r in refusals]))

    pool, one_by_one = outcomes
    assert pool == one_by_one
    applied, held_after, last, messages = pool
    assert applied == held_after == middle, "the events before the forged one are kept"
    assert last == forged.seq - 1, "nothing of its origin after it"
    assert len(messages) == 1 and f"{forged.origin}:{forged.seq}" in messages[0]
    assert "its signature does not verify" in messages[0]
