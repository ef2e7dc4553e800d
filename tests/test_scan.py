"""`booth scan`: the scanner's strings, one by one, paid or refused, nothing acted on twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import TRAINING_NOW
from tests.halls import Hall

ROOT = Path(__file__).resolve().parent.parent


def scan_lines(hall: Hall, text: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "S1"}
    return subprocess.run(
        [sys.executable, "-m", "pos", "--hall", str(hall.directory), "scan", "--json", *extra],
        input=text,
        text=True,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )


def test_each_scan_is_paid_or_refused_and_a_garbled_one_changes_nothing(selling: Hall) -> None:
    selling("sell", "A123456", "--qty", "5")
    before = selling.count()
    lines = "A123456/0042/10000\n" * 3 + "\x1b[2~garbled\nA123456/00"
    done = scan_lines(selling, lines)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    actions = ["redeem", "punched", "refused", "bad-scan", "scanner"]
    assert [r["action"] for r in results] == actions
    assert results[0]["message"] == "PAY $100.00  --  PUNCH NOW"
    # C2: the second scan confirms the punch and pays nothing; a third is a double payment
    assert results[1]["punched"] == "A123456/0042/10000" and results[1]["by"]
    assert results[2]["rule"] == "C2" and "already paid" in results[2]["message"]
    assert "partial" in results[4]["message"].lower()
    # one redemption, its punch and one flagged double-payment attempt; nothing for the garbled
    assert selling.count() == before + 3


def test_a_kiosk_checks_instead_of_paying(selling: Hall, tmp_path: Path) -> None:
    from pos.services import hall as hall_service
    from pos.services.replicate import pull
    from pos.services.station import Station

    with Station(selling.directory, environ={"BOOTH_NOW": TRAINING_NOW}) as st:
        bundle = hall_service.add_station(st, name="kiosk-1", role="kiosk", operator="M1")
    path = tmp_path / "k.json"
    path.write_text(json.dumps(bundle))
    hall_service.join(tmp_path / "kiosk-1", path, environ={"BOOTH_NOW": TRAINING_NOW})
    with Station(tmp_path / "kiosk-1") as kiosk, Station(selling.directory) as manager:
        pull(manager.ledger, kiosk.ledger)
    done = scan_lines(Hall(tmp_path / "kiosk-1", selling.tmp), "A123456/0042/10000\n")
    result = json.loads(done.stdout.splitlines()[0])
    assert result["action"] == "check" and result["status"] == "winner"
    assert "Take this ticket to the booth" in result["message"]


def test_a_missing_scanner_is_reported_and_waited_for(
    selling: Hall, spawn: Callable[..., subprocess.Popen[str]]
) -> None:
    bad = selling("scanner", "set", "usb:zz:01")
    assert bad.exit_code == 2 and "usb:zz:01" in bad.stderr
    assert selling("scanner", "set", "serial:/dev/ttyNOPE0").exit_code == 0
    env = {**os.environ, "BOOTH_NOW": TRAINING_NOW, "BOOTH_OPERATOR": "S1"}
    process = spawn(  # ended with the test, even when it fails or times out waiting
        [sys.executable, "-m", "pos", "--hall", str(selling.directory), "scan", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert process.stdout is not None
    first = json.loads(process.stdout.readline())
    process.send_signal(signal.SIGINT)
    assert process.wait() == 0  # its end is the event (pytest-timeout bounds a hang)
    assert first["action"] == "scanner" and "/dev/ttyNOPE0" in first["message"]
