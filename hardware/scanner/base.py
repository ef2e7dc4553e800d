"""The scanner port: whole decoded strings to one callback, from a background thread.

Every driver (pyusb HID, evdev wedge, serial, stdin) delivers each complete scan as one string to
`on_scan` and every trouble (unplugged, partial or unreadable scan, device missing) as one plain
sentence to `on_error`, both called from the scanner's own thread. A partial or unreadable scan is
reported through `on_error` and never delivered. `stop()` ends the thread and joins it.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar, runtime_checkable

from pos.backoff import Retrying as Backoff  # the scanner's name for pos.backoff's retry rule

logger = logging.getLogger(__name__)

H = TypeVar("H")

ScanCallback = Callable[[str], None]
ErrorCallback = Callable[[str], None]

#: How long `stop()` waits for the scanner thread before giving up on it.
STOP_TIMEOUT = 5.0


class ScannerError(Exception):
    """Anything a scanner can report: its message names the offending value."""


class BadScannerSpec(ScannerError, ValueError):
    """A scanner setting such as `usb:0c2e:0b61` that does not parse."""


class ScannerUnavailable(ScannerError):
    """The library or the permission the driver needs is missing."""


class ScannerNotFound(ScannerError):
    """No such device is connected (or it has no usable interface)."""


class ScannerUnplugged(ScannerError):
    """The device went away while it was being read."""


class PartialScan(ScannerError):
    """A scan that did not end (no Enter/CR before an unplug, a pause or the end of input)."""


class UnreadableScan(ScannerError):
    """Input that cannot be decoded into text: the scan it belonged to is discarded."""


class BadReport(UnreadableScan):
    """A USB HID keyboard report that is not a well-formed boot report (the codec's error)."""


class UnknownKey(UnreadableScan):
    """A key with no meaning in a scan (function keys, Ctrl/Alt combinations...)."""


@runtime_checkable
class Scanner(Protocol):
    """What the rest of Booth sees of a barcode scanner."""

    def start(self, on_scan: ScanCallback, on_error: ErrorCallback) -> None:
        """Begin listening on a background thread; deliver whole scans to `on_scan`."""
        ...

    def stop(self) -> None:
        """Stop listening, release the device and join the background thread."""
        ...


class ThreadedScanner(ABC):
    """A scanner read by one non-daemon thread that `stop()` joins.

    Subclasses implement `_run()`, which returns once `self._stopping` is set: every driver
    blocks at most a short read timeout (0.1 s by default) between two looks at it.
    """

    #: Short name used in thread names and messages ("usb", "serial"...).
    kind = "scanner"

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._on_scan: ScanCallback = _ignore
        self._on_error: ErrorCallback = _ignore

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, on_scan: ScanCallback, on_error: ErrorCallback) -> None:
        if self._thread is not None:
            if self._thread.is_alive():
                raise RuntimeError(f"{self.describe()} is already started")
            self._thread.join()
        self._on_scan = on_scan
        self._on_error = on_error
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._main, name=f"booth-scanner-{self.kind}", daemon=False
        )
        self._thread.start()

    def stop(self) -> None:
        thread = self._thread
        if thread is None:
            return
        self._stopping.set()
        if thread is threading.current_thread():
            return  # stop() from inside a callback: the thread ends when it returns
        thread.join(STOP_TIMEOUT)
        if thread.is_alive():
            raise ScannerError(f"{self.describe()} did not stop within {STOP_TIMEOUT} s")
        self._thread = None

    def describe(self) -> str:
        """How messages name this scanner, e.g. `scanner usb:0c2e:0b61`."""
        return f"scanner {self.kind}"

    @abstractmethod
    def _run(self) -> None:
        """Read until `self._stopping` is set."""

    def _main(self) -> None:
        try:
            self._run()
        except Exception as exc:  # a bug or an unexpected library error: say so, don't vanish
            logger.exception("%s failed", self.describe())
            self._report(f"{self.describe()} stopped: {type(exc).__name__}: {exc}")

    def _deliver(self, text: str) -> None:
        try:
            self._on_scan(text)
        except Exception:
            logger.exception("the scan handler failed on %r", text)

    def _report(self, error: ScannerError | str) -> None:
        try:
            self._on_error(str(error))
        except Exception:
            logger.exception("the error handler failed on %r", str(error))

    def _wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking at once on stop(); True if stopping."""
        return self._stopping.wait(seconds)


class ReconnectingScanner(ThreadedScanner, Generic[H]):
    """A scanner that opens a device, reads it until stopped or lost, and when it is missing or
    lost looks for it again with a doubling delay, saying once what keeps it away."""

    def __init__(self, *, retry_initial: float, retry_max: float) -> None:
        super().__init__()
        self._backoff = Backoff(retry_initial, retry_max)
        self._last_problem: str | None = None

    @abstractmethod
    def _open(self) -> H:
        """Open and claim the device; raise a ScannerError saying why it cannot be."""

    @abstractmethod
    def _read(self, handle: H) -> ScannerError | None:
        """Read until stopping (return None) or until the device is lost (return the error)."""

    @abstractmethod
    def _close(self, handle: H) -> None:
        """Release the device; must not raise when the device is already gone."""

    def _gone_message(self) -> str:
        """What `_open` says when the device is missing (not repeated after an unplug)."""
        return f"{self.describe()} not found: is it plugged in?"

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                handle = self._open()
            except Exception as exc:
                self._say_once(exc)
                if self._wait(self._backoff.next()):
                    return
                continue
            self._backoff.reset()
            self._last_problem = None
            failed = False
            try:
                lost = self._read(handle)
            except Exception as exc:  # a library surprise: report it, then start over
                logger.exception("%s: reading failed", self.describe())
                lost = ScannerError(f"{self.describe()} failed ({type(exc).__name__}: {exc})")
                failed = True
            finally:
                try:
                    self._close(handle)
                except Exception:
                    logger.exception("%s: closing failed", self.describe())
            if lost is not None:
                self._report(lost)
                self._last_problem = self._gone_message()
            if failed and self._wait(self._backoff.next()):
                return

    def _say_once(self, problem: Exception) -> None:
        """Report what keeps the device away once per outage, not at every retry."""
        if isinstance(problem, ScannerError):
            message = str(problem)
        else:  # not one of ours: a library surprise
            message = f"{self.describe()} cannot be opened ({type(problem).__name__}: {problem})"
        if message != self._last_problem:
            if not isinstance(problem, ScannerError):
                logger.error("%s", message, exc_info=problem)
            self._last_problem = message
            self._report(message)


class LineAssembler:
    """Bytes to lines ending CR, LF or CRLF (an empty line is no scan), decoded as UTF-8."""

    def __init__(self, max_length: int = 4096) -> None:
        self.max_length = max_length
        self._buffer = bytearray()
        self._overflow = False

    @property
    def pending(self) -> bytes:
        return bytes(self._buffer)

    def reset(self) -> bytes:
        """Discard and return the unterminated rest."""
        rest = bytes(self._buffer)
        self._buffer.clear()
        self._overflow = False
        return rest

    def feed(self, data: bytes) -> list[str | UnreadableScan]:
        """Return each completed line, or an UnreadableScan for one that does not decode."""
        out: list[str | UnreadableScan] = []
        for byte in data:
            if byte in (0x0D, 0x0A):
                if self._buffer:
                    out.append(_decode_line(bytes(self._buffer)))
                    self._buffer.clear()
                self._overflow = False
            elif self._overflow:
                continue  # the rest of an over-long line: dropped up to its end
            elif len(self._buffer) >= self.max_length:
                out.append(
                    UnreadableScan(
                        f"scan longer than {self.max_length} bytes without CR or LF discarded: "
                        f"{bytes(self._buffer[:40])!r}..."
                    )
                )
                self._buffer.clear()
                self._overflow = True
            else:
                self._buffer.append(byte)
        return out


def _decode_line(line: bytes) -> str | UnreadableScan:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return UnreadableScan(f"scan {line!r} is not UTF-8 text: discarded")


def _ignore(_: str) -> None:
    pass
