"""The victim of tests/test_crash.py: opens a station and appends events until it is killed.

Run as `python -m tests.crash_child HALL_DIR ROUND` from the repository root. It prints one line
per step, flushed, so the parent knows how far it got when the SIGKILL landed:

    open                          the station is open (start-up is over)
    begin                         an append is about to start
    ack ORIGIN SEQ HASH COUNTER   that append returned: the event is committed
"""

from __future__ import annotations

import sys
from pathlib import Path

from pos.services.station import Station

BOOTH_NOW = "2026-11-28T23:00:00+00:00"


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def sale_body(round_number: int, counter: int) -> dict[str, object]:
    """About 200 bytes, shaped like a pull-tab sale."""
    return {
        "counter": counter,
        "round": round_number,
        "deal": "DEAL-000123",
        "serial": "A-1234567",
        "quantity": 5,
        "unit_cents": 100,
        "total_cents": 500,
        "seller": "S1",
        "session": "2026-11-28-evening",
        "note": "crash probe: a sale-sized event body",
    }


def main(hall_dir: Path, round_number: int) -> None:
    with Station(hall_dir, environ={"BOOTH_NOW": BOOTH_NOW}) as st:
        say("open")
        counter = 0
        while True:
            counter += 1
            say("begin")
            event = st.append("CrashProbe", sale_body(round_number, counter))
            say(f"ack {event.origin} {event.seq} {event.hash} {counter}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
