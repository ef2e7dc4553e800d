"""The station's service beside the UI: the worker that owns the Station, the print queue, the
scanner and (later) LAN sync. No Kivy here: the front end hands in `post`, which runs a callable
on the UI thread (Clock.schedule_once), and everything the UI hears arrives through it.

- Every command runs on the StationWorker; a command that issues a receipt is followed by the
  print queue (commit first, print after). The printer's own I/O runs on a printer thread:
  claiming a job and recording its outcome go through the worker, but a printer that is slow
  or timing out never holds the next command. A printer fault leaves the receipt queued, says
  what to do in the status bar, and selling goes on.
- The scanner delivers whole strings from its own thread; they are posted to the UI thread,
  which gives them to whichever screen is showing.
- LAN sync plugs in through `LanSyncHook` (kiosk.sync_hook.ServeSync runs `booth serve`'s
  SyncService beside the UI); by default the station works alone (`NoLanSync`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from kiosk import devices
from kiosk.local import LocalSettings
from pos.cli import owner_start
from pos.cli.control import ControlServer
from pos.cli.progress import rebuild_lines
from pos.clock import Clock
from pos.services import print_queue, receipts
from pos.services.ports import BillAcceptor, Dispenser, ReceiptPrinter, Scanner
from pos.services.station import Station
from pos.services.worker import StationWorker

if TYPE_CHECKING:
    from kiosk.cash import CashDesk

T = TypeVar("T")
log = logging.getLogger(__name__)

Post = Callable[[Callable[[], None]], None]


def _call_now(fn: Callable[[], None]) -> None:
    fn()


@dataclass(frozen=True)
class StationInfo:
    station: str
    role: str
    hall: str
    organisation: str
    location: str
    time_zone: str
    training: bool


@dataclass(frozen=True)
class DeviceState:
    """What the status bar shows. level: ok, warn, error or off."""

    printer: str = "Printer: starting"
    printer_level: str = "off"
    printer_detail: str = ""  # the printer's own words for its fault
    queued: int = 0
    scanner: str = "Scanner: starting"
    scanner_level: str = "off"
    sync: str = "LAN sync: off"
    link: str = "Hall link: checking"  # in words: "Hall link: OK" or "OFFLINE since 19:40"
    link_level: str = "off"
    clock: str = ""  # "Clock 3 min behind the manager" when more than a minute off; else ""
    upgrade: str = ""  # "Upgrade: holds 12 events from a newer Booth" when it does; else ""
    bills: str = ""  # a kiosk's bill acceptor: "Bills: ready", its fault, or none (vouchers only)
    bills_level: str = "off"


ADVICE = (
    ("paper", "out of paper: load a roll"),
    ("cover", "cover open: close it"),
    ("unplugged", "unplugged: plug it in"),
    ("no such device", "unplugged: plug it in"),
    ("access", "not allowed to open it: see the install guide"),
)


def printer_advice(error: str) -> str:
    """A printer fault as the status bar says it: the condition and what to do, briefly."""
    lowered = error.lower()
    for word, advice in ADVICE:
        if word in lowered:
            return advice
    return "off-line: switch it on"


class LanSyncHook(Protocol):
    """Where LAN sync will plug in (discovery and replication, sync/): started after the UI,
    stopped before the worker. Until it exists the station works alone."""

    def start(self, runtime: StationRuntime) -> None: ...

    def stop(self) -> None: ...

    @property
    def status(self) -> str: ...


class NoLanSync:
    status = "LAN sync: off (this station works alone)"

    def start(self, runtime: StationRuntime) -> None:
        pass

    def stop(self) -> None:
        pass


class _Auto:
    """Marker: open the device named in devices.json."""


AUTO: Any = _Auto()


class StationRuntime:
    def __init__(
        self,
        directory: Path,
        *,
        clock: Clock | None = None,
        environ: dict[str, str] | None = None,
        printer: ReceiptPrinter | _Auto | None = AUTO,
        scanner: Scanner | _Auto | None = AUTO,
        dispenser: Dispenser | _Auto | None = AUTO,
        acceptor: BillAcceptor | _Auto | None = AUTO,
        sync: LanSyncHook | None = None,
        post: Post | None = None,
        control: bool = True,
    ) -> None:
        self.directory = Path(directory)
        self._clock = clock
        self._environ = environ
        self._printer_choice = printer
        self._scanner_choice = scanner
        self._dispenser_choice = dispenser
        self._acceptor_choice = acceptor
        self.acceptor: BillAcceptor | None = None
        # the kiosk's bill acceptor on its cash thread: the front end starts it (kiosk.cash speaks
        # through the view-models), the runtime stops it first
        self.cash: CashDesk | None = None
        self.printer: ReceiptPrinter | None = None
        self.scanner: Scanner | None = None
        self.dispenser: Dispenser | None = None
        self.sync: LanSyncHook = sync or NoLanSync()
        self.post: Post = post or _call_now
        self.local = LocalSettings.load(self.directory)
        self.worker: StationWorker | None = None
        # The printer's I/O, one job at a time, off the worker (kick_drawer too: one user of
        # the printer object at a time).
        self._printing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="booth-printer")
        self._printing_pending = 0
        self.info: StationInfo | None = None
        self.state = DeviceState(sync=self.sync.status)
        self._state_lock = threading.Lock()
        self.status_listeners: list[Callable[[DeviceState], None]] = []
        self.scan_handler: Callable[[str], None] | None = None
        #: told (on the UI thread) after a command sent by the CLI or another process wrote
        self.change_listeners: list[Callable[[], None]] = []
        self._serve_control = control
        self.control: ControlServer | None = None
        #: told (on the UI thread) each step of a rebuild while the station opens: (done, total)
        self.start_up_listeners: list[Callable[[int, int], None]] = []
        self._starting: threading.Thread | None = None
        self._say_rebuild = rebuild_lines(log.warning)

    # -- start and stop -----------------------------------------------------------------------

    def start_in_background(
        self, done: Callable[[StationInfo], None], failed: Callable[[BaseException], None]
    ) -> None:
        """`start()` on a thread of its own, so that the screen draws while the station opens
        (a rebuild after an upgrade takes as long as the ledger); `done(info)` or
        `failed(error)` then runs on the UI thread."""

        def starting() -> None:
            try:
                info = self.start()
            except BaseException as error:
                self.post(partial(failed, error))
                return
            self.post(partial(done, info))

        self._starting = threading.Thread(target=starting, name="booth-start", daemon=True)
        self._starting.start()

    def _rebuilding(self, done: int, total: int) -> None:  # the worker's thread
        self._say_rebuild(done, total)
        for listener in list(self.start_up_listeners):
            self.post(partial(listener, done, total))

    def start(self) -> StationInfo:
        # Until its control socket listens, a command waits for this owner (pos/cli/owner_start).
        start_up = ExitStack()
        if self._serve_control:
            start_up.enter_context(owner_start.starting(self.directory))
        self.worker = StationWorker(
            lambda: Station(
                self.directory,
                environ=self._environ,
                clock=self._clock,
                progress=self._rebuilding,
            )
        )
        try:
            # Opening may first rebuild projections another version of Booth made: as long
            # as the ledger takes, told in the log as it goes.
            self.worker.wait_open(timeout=None)
            self.info = self.worker.call(self._open_devices)
            self._start_scanner()
            self.sync.start(self)
            self._set_state(sync=self.sync.status)
            if self._serve_control:
                self.control = ControlServer(
                    self.directory, self.worker, after_write=self._after_forwarded_write
                )
                self.control.start()
        except BaseException:
            self.stop()
            raise
        finally:
            start_up.close()
        self.print_queue()
        return self.info

    def _open_devices(self, st: Station) -> StationInfo:
        self.printer = (
            devices.open_printer(st)
            if isinstance(self._printer_choice, _Auto)
            else self._printer_choice
        )
        self.dispenser = (
            devices.open_dispenser(st)
            if isinstance(self._dispenser_choice, _Auto)
            else self._dispenser_choice
        )
        self.acceptor = (
            devices.open_acceptor(st)
            if isinstance(self._acceptor_choice, _Auto)
            else self._acceptor_choice
        )
        if self.printer is None:
            name = ""
        elif isinstance(self._printer_choice, _Auto):
            name = devices.printer_spec(st) or ""
        else:
            transport = getattr(self.printer, "transport", self.printer)
            describe = getattr(transport, "describe", None)
            name = str(describe()).removeprefix("printer ") if callable(describe) else ""
        self._set_state(
            printer=(
                (f"Printer: ready ({name})" if name else "Printer: ready")
                if self.printer
                else "Printer: none set - receipts wait"
            ),
            printer_level="ok" if self.printer else "warn",
        )
        return StationInfo(
            station=st.id,
            role=st.config.role,
            hall=st.config.hall,
            organisation=st.hall.organisation,
            location=st.hall.location,
            time_zone=st.hall.time_zone,
            training=st.hall.training,
        )

    def _start_scanner(self) -> None:
        if isinstance(self._scanner_choice, _Auto):
            spec = self.worker_call(devices.scanner_spec)
            try:
                self.scanner = devices.open_scanner(spec, self.directory)
            except Exception as exc:
                self._set_state(scanner=f"Scanner: {exc}", scanner_level="error")
                return
        else:
            self.scanner = self._scanner_choice
        if self.scanner is None:
            self._set_state(scanner="Scanner: none - type codes", scanner_level="warn")
            return
        try:
            self.scanner.start(self._scanned, self._scanner_problem)
        except Exception as exc:  # the driver's own error: device missing or refused
            self._set_state(scanner=f"Scanner: {exc}", scanner_level="error")
            self.scanner = None
            return
        kind = getattr(self.scanner, "kind", "")
        self._set_state(
            scanner=f"Scanner: ready ({kind})" if kind else "Scanner: ready", scanner_level="ok"
        )

    def _after_forwarded_write(self, _st: Station) -> None:
        # on the worker: the command has committed; its receipts print and the screens reload
        self.print_queue()
        for listener in list(self.change_listeners):
            self.post(listener)

    def stop(self) -> None:
        """The control socket, scanner, sync, then the worker (its queued work and print jobs
        finish first)."""
        starting = self._starting
        if starting is not None and starting is not threading.current_thread():
            # stopped while it opens: the open (a rebuild: one transaction) ends first
            starting.join()
        control, self.control = self.control, None
        if control is not None:
            control.stop()
        cash, self.cash = self.cash, None
        if cash is not None:
            try:
                cash.stop()
            except Exception:
                log.exception("the bill acceptor did not stop cleanly")
        scanner, self.scanner = self.scanner, None
        if scanner is not None:
            try:
                scanner.stop()
            except Exception:
                log.exception("the scanner did not stop cleanly")
        try:
            self.sync.stop()
        finally:
            # the print jobs first: they record their outcome through the worker
            self._printing.shutdown(wait=True)
            if self.worker is not None:
                self.worker.stop()

    # -- work ---------------------------------------------------------------------------------

    def run(self, fn: Callable[[Station], T], *, prints: bool = False) -> Future[T]:
        """Run a command on the worker; `prints`: it issued a receipt, so the queue prints."""
        assert self.worker is not None, "start() the runtime first"
        future = self.worker.submit(fn)
        if prints:
            self.print_queue()
        return future

    def worker_call(self, fn: Callable[[Station], T]) -> T:
        assert self.worker is not None
        return self.worker.call(fn)

    @property
    def busy(self) -> bool:
        """Work queued or running on the worker or the printer thread (tests settle on it)."""
        worker = self.worker.pending if self.worker is not None else 0
        cash = self.cash is not None and self.cash.busy
        with self._state_lock:
            return worker > 0 or self._printing_pending > 0 or cash

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Until nothing is queued or running on the worker or the printer thread (tests and
        benchmarks); False on timeout."""
        deadline = time.monotonic() + timeout
        while self.busy:
            if time.monotonic() > deadline:
                return False
            if self.worker is not None:
                self.worker.wait_idle(0.05)
            time.sleep(0.005)
        return True

    def _on_printer_thread(self, job: Callable[[], T]) -> Future[T]:
        with self._state_lock:
            self._printing_pending += 1

        def done(_future: object) -> None:
            with self._state_lock:
                self._printing_pending -= 1

        future = self._printing.submit(job)
        future.add_done_callback(done)
        return future

    def print_queue(self) -> Future[dict[str, Any]]:
        """Print what is queued, in order, on the printer thread; the status bar follows."""
        assert self.worker is not None
        return self._on_printer_thread(self._print_pending)

    def _print_pending(self) -> dict[str, Any]:
        worker, printer = self.worker, self.printer
        assert worker is not None
        printed: list[int] = []
        error: str | None = "no printer configured" if printer is None else None
        last = 0
        while printer is not None:
            job = worker.call(partial(receipts.claim_next_job, after=last))
            if job is None:
                break
            last = job.number
            error = receipts.send_job(printer, job)  # here, not on the worker
            worker.call(partial(receipts.record_print_outcome, job=job, error=error))
            if error is not None:
                break
            printed.append(job.number)
        queued = worker.call(print_queue.pending)
        self._show_printing(printed, queued, error)
        return {"printed": printed, "queued": queued, "error": error}

    def _show_printing(self, printed: list[int], queued: list[int], error: str | None) -> None:
        if self.printer is None:
            self._set_state(
                printer=f"Printer: none set - {len(queued)} receipt(s) wait",
                printer_level="warn",
                queued=len(queued),
            )
        elif error:
            self._set_state(
                printer=f"Printer: {printer_advice(error)} · {len(queued)} waiting",
                printer_detail=error,
                printer_level="error",
                queued=len(queued),
            )
        else:
            last = f"; printed #{printed[-1]}" if printed else ""
            self._set_state(
                printer=f"Printer: ready{last}", printer_detail="", printer_level="ok", queued=0
            )

    def kick_drawer(self) -> Future[str]:
        def kick() -> str:
            if self.printer is None:
                return "No printer is set, so no drawer either."
            self.printer.kick_drawer()
            return "Drawer open."

        return self._on_printer_thread(kick)

    # -- scanner ------------------------------------------------------------------------------

    def _scanned(self, text: str) -> None:  # the scanner's thread
        self.post(lambda: self.deliver_scan(text))

    def _scanner_problem(self, problem: object) -> None:  # the scanner's thread
        self.post(lambda: self._set_state(scanner=f"Scanner: {problem}", scanner_level="error"))

    def deliver_scan(self, text: str) -> None:
        """On the UI thread: the scan goes to whichever screen is showing."""
        if self.state.scanner_level == "error" and self.scanner is not None:
            self._set_state(scanner="Scanner: ready", scanner_level="ok")
        if self.scan_handler is not None:
            self.scan_handler(text)

    # -- status -------------------------------------------------------------------------------

    # -- the hall link ------------------------------------------------------------------------

    def poll_link(self) -> Future[None]:
        """Read the hall link on the worker (a read: peers' last contacts, heads) and show it."""
        assert self.worker is not None
        return self.worker.submit(self._read_link)

    def _read_link(self, st: Station) -> None:
        from pos.services import link, newer_release

        now = link.hall_link_now(st)
        clock = link.own_clock(st).text
        upgrade = newer_release.holdings(st).status_text()
        if (now.text, now.level, clock, upgrade) != (
            self.state.link,
            self.state.link_level,
            self.state.clock,
            self.state.upgrade,
        ):
            self._set_state(link=now.text, link_level=now.level, clock=clock, upgrade=upgrade)

    def set_bills(self, text: str, level: str) -> None:
        """The bill acceptor's state on the status bar (from the cash thread or the UI)."""
        if (text, level) != (self.state.bills, self.state.bills_level):
            self._set_state(bills=text, bills_level=level)

    def _set_state(self, **changes: Any) -> None:
        with self._state_lock:
            self.state = replace(self.state, **changes)
            state = self.state
        for listener in list(self.status_listeners):
            self.post(lambda listener=listener: listener(state))  # type: ignore[misc]
