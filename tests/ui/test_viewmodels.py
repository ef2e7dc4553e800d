"""The view-models, the worker and the runtime without Kivy: pure logic and real services."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hardware.printer.adapter import EscPosReceiptPrinter
from hardware.printer.fake import FakePrinter
from hardware.scanner.fake import FakeScanner
from kiosk.local import UI_FILE, LocalSettings
from kiosk.runtime import StationRuntime, printer_advice
from kiosk.viewmodels import booth, common, manager
from kiosk.viewmodels import kiosk as vm_kiosk
from pos.clock import FixedClock
from pos.errors import BadInput, NotPermitted, RuleRefused, StationBusy
from pos.services.station import Station
from pos.services.worker import StationWorker, WorkerStopped
from tests.ui.conftest import NOW


def test_view_models_worker_and_runtime_import_no_kivy() -> None:
    code = (
        "import sys\n"
        "import kiosk.viewmodels.booth, kiosk.viewmodels.kiosk, kiosk.viewmodels.manager\n"
        "import kiosk.viewmodels.bingo\n"
        "import kiosk.runtime, pos.services.worker, kiosk.app, kiosk.env\n"
        "assert not [m for m in sys.modules if m.startswith('kivy')], 'kivy imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the sale pad -------------------------------------------------------------------------------

SCREEN = booth.SellScreenVM(
    bins=(
        booth.BinVM("A1", "Lucky 7s", "drawer-1", "pull-tab", "$1.00", 100, 40, "", "", 3),
        booth.BinVM("A2", "Bells", "drawer-2", "pull-tab", "$0.50", 50, 2, "", "", 1),
    ),
    buyer_required=False,
    session_text="Session 2026-11-28 #1",
    session_open=True,
)


def test_the_quantity_pad() -> None:
    draft = booth.SaleDraft().choose("A1")
    assert draft.qty == "1"
    draft = draft.key("3")  # the first digit replaces the default 1
    assert draft.qty == "3"
    draft = draft.key("0").key("0").key("0").key("7")
    assert draft.qty == "3000", "four digits at most"
    assert draft.key("DEL").qty == "300"
    assert draft.key("C").qty == "" and draft.key("C").count == 0
    assert booth.SaleDraft(qty="0").key("0").key("5").qty == "5"
    with pytest.raises(ValueError):
        draft.key("X")
    done = draft.tender(500).done()
    assert done == booth.SaleDraft(serial="A1")


def test_total_change_and_why_sell_is_disabled() -> None:
    draft = booth.SaleDraft().choose("A1").key("3")
    view = booth.draft_view(draft, SCREEN)
    assert (view.qty_text, view.total_text, view.sell_label) == ("3", "$3.00", "SELL 3 · $3.00")
    assert view.sell_enabled and view.tendered_text == "Cash: exact"
    view = booth.draft_view(draft.tender(500), SCREEN)
    assert view.change_text == "Change $2.00" and view.change_colour == common.OK
    view = booth.draft_view(draft.tender(100), SCREEN)
    assert view.change_text == "Short $2.00" and view.change_colour == common.WARN
    assert booth.draft_view(booth.SaleDraft(), SCREEN).hint == "Tap a bin to sell from it"
    assert not booth.draft_view(booth.SaleDraft().choose("A1").key("C"), SCREEN).sell_enabled
    too_many = booth.draft_view(booth.SaleDraft().choose("A2").key("5"), SCREEN)
    assert not too_many.sell_enabled and too_many.hint == "Only 2 tickets left in this deal"
    closed = booth.SellScreenVM(SCREEN.bins, False, "No session open: a manager opens one", False)
    assert booth.draft_view(draft, closed).hint.startswith("No session open")
    asking = booth.SellScreenVM(SCREEN.bins, True, "", True)
    view = booth.draft_view(draft, asking)
    assert not view.sell_enabled and "(rule ID)" in view.hint
    assert view.buyer_label == "Buyer card or ID (required)"
    assert booth.draft_view(booth.SaleDraft("A1", buyer="C-1"), asking).sell_enabled


def test_winners_left_per_tier() -> None:
    text, left = booth.tiers_text(
        [{"amount": "250.00", "left": 2}, {"amount": "0.50", "left": 118}]
    )
    assert (text, left) == ("$250 ×2 · $0.50 ×118", 120)


# -- refusals, chart, timers, PINs --------------------------------------------------------------


def test_a_refusal_cites_its_rule_in_plain_words() -> None:
    why = common.refusal(RuleRefused("AGE", "buyer TY is under 18: no sale"))
    assert why.message == "Buyer TY is under 18: no sale"
    assert why.cited == "Rule AGE: Code of Virginia § 18.2-340.28 C"
    assert common.refusal(NotPermitted("no operator")).headline == "Not allowed"
    assert common.refusal(RuleRefused("XYZ", "odd")).cited == "Rule XYZ"
    bad = common.refusal(BadInput("qty", "is not a number"))
    assert (bad.headline, bad.message, bad.rule) == ("Please check", "Qty: is not a number", None)
    outcome = common.attempt(lambda: (_ for _ in ()).throw(RuleRefused("C2", "paid")), "NO")
    assert not outcome.ok and outcome.headline == "NO" and outcome.colour == common.ERROR


def test_the_chart_is_geometry_without_kivy() -> None:
    empty = manager.chart({})
    assert empty.bars == () and empty.empty_text == "No sales yet today"
    vm = manager.chart({18: 12350, 20: 1000})
    assert [b.label for b in vm.bars] == ["18h", "19h", "20h"]
    assert [b.value_text for b in vm.bars] == ["$123.50", "$0", "$10"]
    assert vm.bars[0].fraction == 1.0 and vm.bars[1].fraction == 0.0
    assert 0.08 < vm.bars[2].fraction < 0.09


def test_the_idle_timer() -> None:
    timer = vm_kiosk.IdleTimer(60, now=100.0)
    assert not timer.expired(159.9) and timer.remaining(130.0) == 30.0
    timer.touch(150.0)
    assert not timer.expired(200.0) and timer.expired(210.0)
    with pytest.raises(ValueError):
        vm_kiosk.IdleTimer(0, now=0.0)


def test_pins_are_kept_hashed(tmp_path: Path) -> None:
    local = LocalSettings.load(tmp_path)
    assert local.idle_timeout == 60.0 and local.badge_for_pin("1234") is None
    local.set_pin("S200", "2468")
    local.idle_timeout = 30
    local.save(tmp_path)
    assert "2468" not in (tmp_path / UI_FILE).read_text()
    again = LocalSettings.load(tmp_path)
    assert again.badge_for_pin("2468") == "S200" and again.badge_for_pin("2469") is None
    assert again.idle_timeout == 30
    with pytest.raises(BadInput):
        again.set_pin("M100", "2468")  # someone else's
    with pytest.raises(BadInput):
        again.set_pin("M100", "12")


def test_ago_and_printer_advice() -> None:
    now = datetime(2026, 1, 1, 12, tzinfo=UTC)
    assert common.ago(None, now) == "never"
    assert common.ago(now - timedelta(seconds=30), now) == "just now"
    assert common.ago(now - timedelta(minutes=5), now) == "5 min ago"
    assert common.ago(now - timedelta(hours=2, minutes=3), now) == "2 h 03 min ago"
    assert printer_advice("printer usb: out of paper before the job") == (
        "out of paper: load a roll"
    )
    assert printer_advice("printer net:x refuses the connection") == "off-line: switch it on"


# -- the worker and the runtime ------------------------------------------------------------------


def test_the_worker_runs_every_job_on_one_thread_in_order(demo_hall: Path) -> None:
    worker = StationWorker(lambda: Station(demo_hall / "booth-1"))
    try:
        assert worker.wait_open().id == "booth-1"
        seen: list[tuple[int, str]] = []
        futures = [
            worker.submit(lambda st, n=n: seen.append((n, threading.current_thread().name)))
            for n in range(20)
        ]
        for future in futures:
            future.result(5)
        assert [n for n, _ in seen] == list(range(20))
        assert len({name for _, name in seen}) == 1 and seen[0][1] != "MainThread"
        with pytest.raises(StationBusy):  # the worker holds the station's lock
            Station(demo_hall / "booth-1")
    finally:
        worker.stop()
    with pytest.raises(WorkerStopped):
        worker.submit(lambda st: None)
    Station(demo_hall / "booth-1").close()  # stop() closed the station and let go of it


def test_a_worker_whose_station_cannot_open_says_why(demo_hall: Path) -> None:
    with Station(demo_hall / "booth-1"):
        worker = StationWorker(lambda: Station(demo_hall / "booth-1"))
        try:
            with pytest.raises(StationBusy):
                worker.wait_open()
            with pytest.raises(StationBusy):
                worker.call(lambda st: st.id)
        finally:
            worker.stop()


def test_the_runtime_prints_after_commands_and_reports_faults(demo_hall: Path) -> None:
    fake, scanner, heard = FakePrinter("rt"), FakeScanner(), []
    runtime = StationRuntime(
        demo_hall / "booth-1",
        clock=FixedClock(NOW),
        printer=EscPosReceiptPrinter(fake),
        scanner=scanner,
    )
    runtime.scan_handler = heard.append
    info = runtime.start()
    try:
        assert (info.station, info.role, info.training) == ("booth-1", "booth", True)
        assert runtime.state.scanner_level == "ok"
        scanner.scan("A100001/0001/500")
        assert heard == ["A100001/0001/500"]
        fake.go_offline("paper-out")
        draft = booth.SaleDraft().choose("A100001")
        sold = runtime.run(lambda st: booth.sell(st, draft, "S200"), prints=True).result(10)
        assert runtime.wait_idle()
        assert sold.ok and sold.headline == "SOLD 1 × Lucky 7s"
        assert runtime.state.printer_level == "error" and runtime.state.queued == 1
        assert runtime.state.printer.startswith("Printer: out of paper: load a roll")
        fake.recover()
        runtime.print_queue().result(10)
        assert runtime.state.printer_level == "ok" and runtime.state.queued == 0
        assert fake.names == [f"booth-1-{sold.get('receipt'):06d}"]
    finally:
        runtime.stop()
    assert scanner.stopped == 1


# -- view-models against the demo hall ------------------------------------------------------------


def test_kiosk_identify_and_games(demo_hall: Path) -> None:
    with Station(demo_hall / "kiosk-1", clock=FixedClock(NOW)) as st:
        assert vm_kiosk.identify(st, "C-1001").player == vm_kiosk.Player("C-1001", "JD")
        young = vm_kiosk.identify(st, "C-1003").refusal
        assert young is not None and young.rule == "AGE" and "18 or older" in young.headline
        worker = vm_kiosk.identify(st, "S200").refusal
        assert worker is not None and worker.rule == "D"
        unknown = vm_kiosk.identify(st, "nobody").refusal
        assert unknown is not None and unknown.rule is None
        staff = vm_kiosk.identify(st, "M100")  # a manager's badge: the kiosk's staff actions
        assert staff.player is None and staff.refusal is None
        assert staff.manager is not None and staff.manager.badge == "M100"
        assert staff.manager.session_open
        games = vm_kiosk.games_screen(st, vm_kiosk.Player("C-1001", "JD"))
        tiles = {t.serial: t for t in games.tiles}
        assert tiles["A100003"].can_buy and tiles["A100003"].flare_text.startswith("Prizes: 1 ×")
        idle = vm_kiosk.idle_screen(st)
        assert idle.organisation == "Riverside Volunteer Fire Company" and idle.training


def test_manager_dashboard_and_exceptions(demo_hall: Path) -> None:
    with Station(demo_hall / "manager", clock=FixedClock(NOW)) as st:
        vm = manager.dashboard(st)
        assert [s.station for s in vm.stations] == ["booth-1", "kiosk-1", "manager"]
        assert vm.stations[2].last_text == "this station"
        assert vm.total_text.startswith("Gross $")
        assert [b.label for b in vm.chart.bars] == ["18h", "19h"]
        flags = manager.exceptions_screen(st)
        assert any(
            e.label == "Second try refused: ticket already paid" and e.subject == "A100001/0007"
            for e in flags
        )
        deals = {d.serial: d for d in manager.deals_screen(st)}
        assert deals["A100001"].state == "in-play" and deals["A100001"].can_close


def test_lan_sync_runs_beside_the_ui_and_stops_with_it(demo_hall: Path) -> None:
    from kiosk.sync_hook import ServeSync

    hook = ServeSync(address="127.0.0.1", port=0, discover=False)
    runtime = StationRuntime(
        demo_hall / "booth-1", clock=FixedClock(NOW), printer=None, scanner=None, sync=hook
    )
    runtime.start()
    try:
        assert runtime.state.sync.startswith("LAN sync: serving on 127.0.0.1:")
        assert runtime.worker is not None and runtime.worker.job_lock is hook.service.write_lock
        assert runtime.worker_call(lambda st: st.id) == "booth-1"  # commands run under its lock
    finally:
        runtime.stop()
    assert hook.service is None


def test_kiosk_pays_with_a_voucher(demo_hall: Path) -> None:
    from hardware.dispenser import SimulatedDispenser
    from pos.services import receipts, vouchers
    from pos.services.replicate import pull

    clock = FixedClock(NOW)
    with Station(demo_hall / "booth-1", clock=clock) as booth:
        issued = vouchers.issue_voucher(booth, "5.00", reason="cash", operator="S200")
        qr = receipts.receipt(booth, booth.id, issued.voucher).qr
        assert qr is not None
        with Station(demo_hall / "kiosk-1", clock=clock) as kiosk:
            pull(booth.ledger, kiosk.ledger)
    player = vm_kiosk.Player("C-1001", "JD")
    assert vm_kiosk.voucher_prompt("") == vm_kiosk.VOUCHER_PROMPT
    assert vm_kiosk.voucher_prompt(qr) == vm_kiosk.VOUCHER_READY
    with Station(demo_hall / "kiosk-1", clock=clock) as st:
        dispenser = SimulatedDispenser("", demo_hall / "kiosk-1")
        empty = vm_kiosk.buy_with_voucher(st, player, "A100003", 1, "  ", dispenser)
        assert not empty.ok and empty.headline == "Scan your voucher first"
        paid = vm_kiosk.buy_with_voucher(st, player, "A100003", 2, qr, dispenser)
        assert paid.ok and paid.headline == "Take your 2 tickets from the tray"
        number = paid.get("change_voucher")
        assert number is not None
        assert f"Your change: voucher #{number} for $3.00 prints with it." in paid.detail
        assert "Your voucher for $5.00 paid $2.00" in paid.detail
        again = vm_kiosk.buy_with_voucher(st, player, "A100003", 1, qr, dispenser)
        assert not again.ok and again.refusal is not None and again.refusal.rule == "PAID"
        assert again.headline == "Sorry, that voucher did not pay"
        assert again.detail == "That voucher was already used. Please ask at the booth."


def test_a_second_scan_of_a_winner_paid_here_confirms_its_punch(demo_hall: Path) -> None:
    with Station(demo_hall / "booth-1", clock=FixedClock(NOW)) as st:
        paid = booth.redeem(st, "A100001/0043/500", "S200")
        assert paid.ok and paid.shout == "PUNCH NOW" and paid.get("code") == "A100001/0043"
        punched = booth.redeem(st, "A100001/0043/500", "S200")
        assert punched.ok and punched.headline == "PUNCHED", punched.detail
        again = booth.redeem(st, "A100001/0043/500", "S200")
        assert not again.ok and again.headline == "DO NOT PAY"
        tapped = booth.confirm_punch(st, "A100001/0043/500", "S200")
        assert not tapped.ok and "already confirmed punched" in tapped.detail
