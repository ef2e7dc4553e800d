"""Makes this fixture with the code of release 0.1.0 (commit 1a902f2), never with today's.

    mkdir /tmp/rel-prev && git archive 1a902f2 | tar -x -C /tmp/rel-prev
    cd /tmp/rel-prev && PYTHONPATH=/tmp/rel-prev /work/main/.venv/bin/python \
        /work/main/tests/data/release-0.1.0/make_fixture.py /tmp/fixture-out

It runs that release's `booth demo` (a training hall: manager, booth-1, kiosk-1, an hour of
selling on 2026-11-28), then that release's CLI for the rest of the night: two winners paid
and punched at booth-1, the stations' close markers, the manager's close of the session and
its deposit, a second night (2026-11-29) closed with no deposit recorded, and a backup of the
manager. It writes figures.json: what that release printed for each station.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pos
from pos.clock import FixedClock
from pos.services import demo

NIGHT_1 = "2026-11-29T00:30:00+00:00"  # 19:30 in the hall, 2026-11-28
NIGHT_2 = "2026-11-29T23:00:00+00:00"  # 18:00 in the hall, 2026-11-29
NIGHT_2_END = "2026-11-30T01:00:00+00:00"
LATER = "2026-12-05T16:00:00+00:00"  # when the figures are printed


def booth(station: Path, now: str, *args: str) -> str:
    env = {**os.environ, "BOOTH_NOW": now}
    done = subprocess.run(
        [sys.executable, "-m", "pos", "--hall", str(station), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"booth {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def converge(hall: Path, now: str) -> None:
    from datetime import datetime

    with demo._stations(hall, FixedClock(datetime.fromisoformat(now))) as stations:
        demo._converge(stations)


def main(out: Path) -> None:
    assert pos.__version__ == "0.1.0", f"run with release 0.1.0's code, not {pos.__version__}"
    hall = out / "hall"
    demo.run_demo(hall)
    manager, booth_1, kiosk_1 = hall / "manager", hall / "booth-1", hall / "kiosk-1"
    booth(booth_1, NIGHT_1, "redeem", "A100001/0042/500", "--punched", "--as", "S200")
    booth(booth_1, NIGHT_1, "redeem", "A100002/0007/200", "--as", "S200")
    booth(booth_1, NIGHT_1, "punch", "A100002/0007/200", "--as", "S200")
    booth(booth_1, NIGHT_1, "session", "close", "--as", "S200")
    booth(kiosk_1, NIGHT_1, "session", "close", "--as", "M100")
    converge(hall, NIGHT_1)
    booth(manager, NIGHT_1, "session", "close", "--as", "M100")
    booth(
        manager, NIGHT_1, "deposit", "record", "--bag", "B-1", "--session", "2026-11-28/1",
        "--cash", "128.50", "--taken-by", "M100", "--on", "2026-11-29", "--as", "M100",
    )  # fmt: skip
    booth(manager, NIGHT_2, "session", "open", "--as", "M100")
    converge(hall, NIGHT_2)
    booth(booth_1, NIGHT_2, "sell", "A100001", "--qty", "4", "--as", "S200")
    booth(booth_1, NIGHT_2_END, "session", "close", "--as", "S200")
    booth(kiosk_1, NIGHT_2_END, "session", "close", "--as", "M100")
    converge(hall, NIGHT_2_END)
    booth(manager, NIGHT_2_END, "session", "close", "--as", "M100")
    converge(hall, NIGHT_2_END)
    (out / "backups").mkdir()
    booth(manager, LATER, "backup", str(out / "backups"))
    figures: dict[str, object] = {"release": pos.__version__, "stations": {}}
    for station in (manager, booth_1, kiosk_1):
        verified = json.loads(booth(station, LATER, "verify", "--json"))
        figures["stations"][station.name] = {  # type: ignore[index]
            "verify": {"digest": verified["digest"], "origins": verified["origins"]},
            "report_day": {
                day: json.loads(booth(station, LATER, "report", "day", "--date", day, "--json"))
                for day in ("2026-11-28", "2026-11-29")
            },
            "deal_show": json.loads(booth(station, LATER, "deal", "show", "A100001", "--json")),
        }
    (out / "figures.json").write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
