"""The kiosk told a player "Staff have been called": staff can act on it at the kiosk. A manager's
badge scanned at idle (and the PIN, when the house signs on with one) opens the kiosk's staff
screen, which lists the kiosk's open calls (a bill jam, credit paid out after the dispenser
gave too few tickets...) with their time and amount; each is cleared there by touch, on the
record with the badge. The status bar says "Bills: jammed" from a jam until staff clear it.
Driven by touches, scans and bills fed into the simulated acceptor, against a real demo hall."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hardware.acceptor.sim import SimulatedAcceptor
from pos.services import devices, exceptions, kiosk_cash, signon
from pos.services.replicate import pull
from pos.services.station import Station
from tests.ui.driver import Driver
from tests.ui.test_kiosk import Seconds

pytestmark = pytest.mark.slow  # Kivy renders every screen

MANAGER_PIN = "4826"


def _house_pin(hall: Path, *, manager_pin: str | None) -> None:
    """The house signs on with badge and PIN (set at the manager's station, replicated)."""
    with Station(hall / "manager") as st:
        if manager_pin is not None:
            signon.set_pin(st, "M100", manager_pin, operator="M100")
        signon.set_house_setting(st, "sign-on", "badge-and-pin", operator="M100")
    with Station(hall / "manager") as source, Station(hall / "kiosk-1") as target:
        pull(source.ledger, target.ledger)


def _acceptor(ui: Driver) -> SimulatedAcceptor:
    acceptor = ui.runtime.acceptor
    assert isinstance(acceptor, SimulatedAcceptor), acceptor  # the demo kiosk's simulated acceptor
    return acceptor


def _feed(ui: Driver, cents: int) -> None:
    """A player feeds a bill into the acceptor; the kiosk deals with it."""
    _acceptor(ui).insert(cents)
    ui.settle()


def _pad(ui: Driver, digits: str) -> None:
    for key in digits:
        ui.tap(f"key-{key}")


def _ledger(ui: Driver, sql: str) -> list[Any]:
    return list(ui.runtime.worker_call(lambda st: st.ledger.conn.execute(sql).fetchall()))


def _call_seqs(ui: Driver, kind: str) -> list[int]:
    """The kiosk's calls of `kind`, oldest first (the demo's evening left a dispenser call)."""
    sql = f"SELECT seq FROM p_flags WHERE origin = 'kiosk-1' AND kind = '{kind}' ORDER BY seq"
    return [int(seq) for (seq,) in _ledger(ui, sql)]


def test_a_bill_jam_stays_on_the_bar_until_staff_clear_it_at_the_kiosk(
    demo_hall: Path, open_front: Any
) -> None:
    _house_pin(demo_hall, manager_pin=MANAGER_PIN)
    ui = open_front(demo_hall / "kiosk-1")
    assert ui.find("status-bills").text == "Bills: ready"
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    _acceptor(ui).fail_next("jam")
    _feed(ui, 500)
    assert ui.find("result-headline").text == "Sorry, your $5.00 bill is stuck in the machine."
    assert ui.find("result-detail").text == "Take your $5.00 voucher. Staff have been called."
    # the acceptor answers again ("ready"), but nobody has cleared the jam: the bar says so
    assert ui.runtime.state.bills == "Bills: ready"
    assert ui.find("status-bills").text == "Bills: jammed"
    ui.tap("result-done")
    assert ui.screen == "idle"
    assert ui.find("status-bills").text == "Bills: jammed"
    # a manager's badge: the PIN first, and nothing of the staff screen before it
    ui.scan("M100")
    assert ui.screen == "kiosk-manager"
    assert ui.find("kiosk-staff-gate-who").text == "Staff: Alex Manager"
    assert ui.find("kiosk-staff-gate-outcome-headline").text == "Enter your PIN"
    shown = set(ui.idents())
    assert "kiosk-staff-calls" not in shown and "kiosk-close" not in shown
    ui.shot("kiosk-staff-pin")
    _pad(ui, "1234")
    ui.tap("kiosk-staff-pin-ok")
    assert ui.find("kiosk-staff-gate-outcome-headline").text == "Wrong PIN"
    assert "kiosk-staff-calls" not in ui.idents()
    assert "1234" not in ui.text()  # never shown back
    _pad(ui, MANAGER_PIN)
    ui.tap("kiosk-staff-pin-ok")
    # the open call: in plain words, with its hall time and amount
    assert ui.find("kiosk-manager-who").text == "Staff: Alex Manager"
    [seq] = _call_seqs(ui, "acceptor-jam")
    [earlier] = _call_seqs(ui, "dispenser-jam")  # the demo's evening: still open
    what = ui.find(f"call-kiosk-1-{seq}-what").text
    assert what == "7:05 PM · Bill stuck in the bill acceptor · $5.00", what
    assert "Open the acceptor and clear the bill into the cash box." in ui.text()
    assert "The dispenser gave too few tickets" in ui.find(f"call-kiosk-1-{earlier}-what").text
    assert ui.find("kiosk-staff-heading").text.startswith("2 calls open at this kiosk")
    shown_text = ui.text()
    assert "Already paid" not in shown_text and "double" not in shown_text.lower()  # booth's
    assert f"kiosk-1:{seq}" not in shown_text  # no ORIGIN:SEQ
    assert ui.find("status-bills").text == "Bills: jammed"
    ui.shot("kiosk-staff-calls")
    ui.tap(f"clear-kiosk-1-{seq}")
    assert ui.find("kiosk-close-headline").text == "CLEARED"
    assert ui.find("kiosk-staff-heading").text.startswith("1 call open at this kiosk")
    assert f"clear-kiosk-1-{seq}" not in ui.idents()
    assert ui.find("status-bills").text == "Bills: ready"  # the jam is cleared
    ui.tap(f"clear-kiosk-1-{earlier}")
    assert ui.find("kiosk-staff-heading").text == "No calls open at this kiosk."
    assert "Nothing to clear." in ui.text()
    ui.shot("kiosk-staff-cleared")
    cleared = _ledger(
        ui,
        "SELECT json_extract(body, '$.by'), json_extract(body, '$.decision') FROM events "
        f"WHERE type = 'ExceptionResolved' AND json_extract(body, '$.seq') = {seq} "
        "AND json_extract(body, '$.origin') = 'kiosk-1'",
    )
    assert cleared == [("M100", "noted")]
    ui.tap("kiosk-manager-done")
    assert ui.screen == "idle"
    assert ui.find("status-bills").text == "Bills: ready"
    # the next start still knows: nothing is open
    ui.close()
    again = open_front(demo_hall / "kiosk-1")
    assert again.find("status-bills").text == "Bills: ready"


def test_a_jam_not_cleared_is_still_on_the_bar_after_a_restart(
    demo_hall: Path, open_front: Any
) -> None:
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    _acceptor(ui).fail_next("jam")
    _feed(ui, 500)
    ui.close()
    again = open_front(demo_hall / "kiosk-1")
    assert again.runtime.state.bills == "Bills: ready"
    assert again.find("status-bills").text == "Bills: jammed"


def test_a_jam_cleared_elsewhere_clears_the_bar(demo_hall: Path, open_front: Any) -> None:
    """The manager decided the jam on the Exceptions tab; it reached the kiosk by sync (here:
    recorded in the kiosk's ledger as sync would): the bar follows within a few seconds."""
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-2")
    _acceptor(ui).fail_next("jam")
    _feed(ui, 500)
    assert ui.find("status-bills").text == "Bills: jammed"
    [seq] = _call_seqs(ui, "acceptor-jam")
    ui.runtime.worker_call(
        lambda st: exceptions.resolve_exception(
            st, "kiosk-1", seq, decision="accepted", note="bill in the cash box", operator="M100"
        )
    )
    ui.until(lambda: ui.find("status-bills").text == "Bills: ready", timeout=20)


def test_credit_paid_out_after_a_dispenser_fault_is_listed(
    demo_hall: Path, open_front: Any
) -> None:
    with Station(demo_hall / "kiosk-1") as st:
        devices.set_device(st, "dispenser", "sim:jam-every=3", operator="M100")
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("C-1001")
    ui.tap("buy-A100003-5")
    _feed(ui, 500)
    assert ui.find("result-headline").text == "Sorry, the machine gave 2 of 5 tickets."
    assert ui.find("result-detail").text == "Take your $3.00 voucher. Staff have been called."
    assert ui.find("status-bills").text == "Bills: ready"  # a dispenser fault is no bill jam
    ui.tap("result-done")
    ui.scan("M100")  # the house signs on by badge alone: in at once
    assert ui.screen == "kiosk-manager"
    seq = _call_seqs(ui, "dispenser-jam")[-1]
    what = ui.find(f"call-kiosk-1-{seq}-what").text
    assert what == "7:05 PM · The dispenser gave too few tickets · $3.00", what
    assert "The player got the difference on a voucher." in ui.text()
    ui.shot("kiosk-staff-dispenser-call")
    ui.tap(f"clear-kiosk-1-{seq}")
    assert f"call-kiosk-1-{seq}-what" not in ui.idents()
    # cleared at the kiosk: the manager's list does not ask for it again
    assert _ledger(
        ui, f"SELECT resolved, resolved_by FROM p_flags WHERE origin = 'kiosk-1' AND seq = {seq}"
    ) == [(1, "M100")]


def test_a_badge_without_a_pin_is_refused_when_the_house_asks_for_one(
    demo_hall: Path, open_front: Any
) -> None:
    _house_pin(demo_hall, manager_pin=None)
    ui = open_front(demo_hall / "kiosk-1")
    ui.scan("M100")
    assert ui.screen == "kiosk-manager"
    assert "booth staff pin M100" in ui.find("kiosk-staff-gate-outcome-detail").text
    shown = set(ui.idents())
    assert "kiosk-staff-calls" not in shown and "kiosk-close" not in shown
    assert "kiosk-staff-pad" not in shown  # no PIN to give: no pad
    ui.shot("kiosk-staff-refused")
    ui.tap("kiosk-staff-cancel")
    assert ui.screen == "idle"


def test_credit_a_player_walked_away_from_is_paid_out_from_the_staff_screen(
    demo_hall: Path, open_front: Any
) -> None:
    """Credit kept for a player who walked away is owed: its call says how much, and staff pay
    it out there (a voucher prints), which clears the call; it is not cleared without paying."""
    ui = open_front(demo_hall / "kiosk-1", idle_timeout=60)
    clock = Seconds()
    ui.front.idle_watch.clock = clock
    ui.front.idle_watch.timer.touch(clock())
    ui.scan("C-1002")
    ui.tap("buy-A100003-2")
    _feed(ui, 500)
    assert ui.find("result-headline").text == "Take your 2 tickets from the tray"
    clock.now += 61  # the player walked away: $3.00 kept for them, nothing printed
    ui.until(lambda: ui.screen == "idle")
    ui.settle()
    ui.scan("M100")
    [seq] = _call_seqs(ui, "kiosk-credit-left")
    what = ui.find(f"call-kiosk-1-{seq}-what").text
    assert what == "7:05 PM · A player left credit on the kiosk · $3.00", what
    assert f"clear-kiosk-1-{seq}" not in ui.idents()  # owed money is paid, not just cleared
    assert ui.find(f"payout-kiosk-1-{seq}").text == "Pay out $3.00"
    ui.shot("kiosk-staff-credit-left")
    before = len(ui.fake_printer.jobs)
    ui.tap(f"payout-kiosk-1-{seq}")
    assert ui.find("kiosk-close-headline").text == "PAID OUT"
    assert "for $3.00 is printing" in ui.find("kiosk-close-detail").text
    paper = b"".join(job.data for job in ui.fake_printer.jobs[before:])
    assert b"VOUCHER" in paper.upper() and b"3.00" in paper
    assert f"call-kiosk-1-{seq}-what" not in ui.idents()
    assert ui.runtime.worker_call(kiosk_cash.credit_left_open) == []
    assert _ledger(
        ui, f"SELECT resolved_by FROM p_flags WHERE origin = 'kiosk-1' AND seq = {seq}"
    ) == [("M100",)]
    ui.shot("kiosk-staff-paid-out", both=False)
