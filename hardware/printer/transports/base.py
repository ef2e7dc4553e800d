"""What every printer transport shares: the `Printer` protocol the print queue sees, job names,
the status dictionary, and `EscposPrinter`, the base of the printers python-escpos talks to
(usb, net, serial), which asks the printer how it is (DLE EOT) before and after each job.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from escpos.constants import RT_STATUS_ONLINE, RT_STATUS_PAPER
from escpos.escpos import Escpos

from hardware.printer.errors import (
    BadPrinterSpec,
    CoverOpen,
    PaperOut,
    PrinterError,
    PrinterOffline,
    PrinterUnplugged,
)
from hardware.printer.profiles import PrinterProfile, get_profile

# Optional drivers, in python-escpos's own style: the module imports without them (their
# errors are then never raised); usb.py and serial.py say what to install when one is used.
try:
    import usb.core

    _DEP_USB = True
except ImportError:  # pragma: no cover - pyusb is a dependency of Booth
    _DEP_USB = False
try:
    import serial

    _DEP_SERIAL = True
except ImportError:  # pragma: no cover - pyserial is a dependency of Booth
    _DEP_SERIAL = False

logger = logging.getLogger(__name__)

RT_STATUS_OFFLINE_CAUSE = b"\x10\x04\x02"  # DLE EOT 2 (python-escpos has 1 and 4 only)
UDEV_HINT = "(is packaging/udev/60-booth-hardware.rules installed and the user in group booth?)"
GONE_ERRNOS = {errno.ENODEV, errno.ENOENT, errno.ENXIO, errno.ESHUTDOWN}


@runtime_checkable
class Printer(Protocol):
    """What the print queue sees of a receipt printer."""

    def send(self, job_bytes: bytes, name: str) -> None:
        """Print one job (`name`: see job_name()); raises a PrinterError when it cannot."""
        ...

    def status(self) -> dict[str, Any]:
        """online/paper/cover (None where unknown), problem (a sentence or None), ...; never
        raises."""
        ...


def job_name(station: str, number: int, reprint: int = 0) -> str:
    """`{station}-{number:06d}`, `-reprint-N` for the Nth reprint: how the dir: printer names
    a job's files and how logs name a job."""
    name = f"{station}-{number:06d}"
    return f"{name}-reprint-{reprint}" if reprint else name


def status_report(**values: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"online": None, "paper": None, "cover": None, "problem": None}
    base.update(values)
    return base


SPOOL_ENV = "BOOTH_PRINTER_SPOOL"
PATH_MAX = 4095  # bytes, as Linux counts them
NAME_MAX = 255
# Device nodes a receipt printer may be: the kernel's printer class (usblp, parport lp) and the
# serial class (RS-232, USB CDC-ACM and USB serial adapters, the Pi's UART), also by their
# stable names under /dev/serial/.
PRINTER_NODES = re.compile(r"/dev/(usb/lp[0-9]+|lp[0-9]+)")
SERIAL_NODES = re.compile(
    r"/dev/(ttyS[0-9]+|ttyUSB[0-9]+|ttyACM[0-9]+|ttyAMA[0-9]+|serial[0-9]+"
    r"|serial/by-(id|path)/[^/]+)"
)


def checked_length(options: str, what: str) -> None:
    encoded = options.encode("utf-8", "surrogateescape")
    if len(encoded) > PATH_MAX or any(len(part) > NAME_MAX for part in encoded.split(b"/")):
        raise BadPrinterSpec(
            f"printer {what}:{options[:40]}...: the path is too long "
            f"(at most {PATH_MAX} bytes, {NAME_MAX} a name)"
        )
    if "\0" in options:
        raise BadPrinterSpec(f"printer {what}: the path holds a NUL byte")
    control = next((c for c in options if _is_control(c)), None)
    if control is not None:
        # A file name with a terminal escape in it rewrites the screen of whoever lists it.
        raise BadPrinterSpec(
            f"printer {what}:{options.encode('unicode_escape').decode('ascii')}: the path holds "
            f"a control character ({control.encode('unicode_escape').decode('ascii')})"
        )


def _is_control(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or 0x7F <= code < 0xA0


def spool_roots(station_dir: Path | None) -> list[Path]:
    """Where `file:` and `dir:` printers may write: the station directory, and the spool
    directories the station's environment names in BOOTH_PRINTER_SPOOL (colon-separated)."""
    roots = [Path(station_dir)] if station_dir is not None else []
    spools = [Path(p) for p in os.environ.get(SPOOL_ENV, "").split(os.pathsep) if p.strip()]
    roots += [spool for spool in spools if spool.is_absolute()]
    return [Path(os.path.realpath(root)) for root in roots]


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def device_class(path: Path) -> str | None:
    """ "printer" or "serial" when `path` (resolved) names a device node of that class."""
    text = os.path.realpath(path)
    if PRINTER_NODES.fullmatch(text) or PRINTER_NODES.fullmatch(str(path)):
        return "printer"
    if SERIAL_NODES.fullmatch(text) or SERIAL_NODES.fullmatch(str(path)):
        return "serial"
    return None


def allowed_device(path: Path, what: str, classes: tuple[str, ...]) -> Path:
    """`path` if it names a device node of one of `classes` (it may be unplugged: missing);
    else BadPrinterSpec."""
    found = device_class(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if found in classes and (mode is None or stat.S_ISCHR(mode)):
        return path
    kinds = " or ".join(f"a {c} device" for c in classes)
    raise BadPrinterSpec(f"printer {what}:{path}: not {kinds} (e.g. /dev/usb/lp0, /dev/ttyUSB0)")


def station_path(options: str, station_dir: Path, what: str) -> Path:
    """A `file:` or `dir:` setting's path: relative paths are in the station directory. It
    must lie (symbolic links resolved) under the station directory or a spool directory
    (BOOTH_PRINTER_SPOOL); `file:` may also name a printer or serial device node. Anything
    else is BadPrinterSpec: a printer setting is not a way to write anywhere the station's
    user may (`dir:/` wrote each job into /, `file:/etc/passwd` was taken)."""
    if not options.strip():
        raise BadPrinterSpec(f"printer {what}: needs a path, e.g. {what}:receipts")
    checked_length(options, what)
    path = Path(options).expanduser()
    path = path if path.is_absolute() else Path(station_dir) / path
    checked_length(str(path), what)
    resolved = Path(os.path.realpath(path))
    if what == "file" and (path.parts[1:2] == ("dev",) or resolved.parts[1:2] == ("dev",)):
        return allowed_device(path, what, ("printer", "serial"))
    roots = spool_roots(station_dir)
    if not _under(resolved, roots):
        where = " or ".join(str(r) for r in roots) or "the station directory"
        raise BadPrinterSpec(
            f"printer {what}:{options}: not under {where} (a spool directory elsewhere is "
            f"named in {SPOOL_ENV} in the station's environment)"
        )
    return path


# -- the real-time status of ESC/POS printers --------------------------------------------------


class _Probe:
    """DLE EOT answers: the printer (1), the off-line cause (2), the paper sensor (4)."""

    def __init__(self, printer_byte: int, cause_byte: int | None, paper_byte: int | None):
        self.offline = bool(printer_byte & 0x08)
        self.cover_open = cause_byte is not None and bool(cause_byte & 0x04)
        self.paper_stop = cause_byte is not None and bool(cause_byte & 0x20)
        self.paper_out = paper_byte is not None and paper_byte & 0x60 == 0x60
        self.paper_low = paper_byte is not None and paper_byte & 0x0C == 0x0C

    @property
    def paper(self) -> str | None:
        if self.paper_out or self.paper_stop:
            return "out"
        return "near-end" if self.paper_low else "ok"

    def error(self, who: str, when: str) -> PrinterError | None:
        if self.cover_open:
            return CoverOpen(f"{who}: the cover is open {when}: close it")
        if self.paper_out or self.paper_stop:
            return PaperOut(f"{who}: out of paper {when}: load a new roll")
        if self.offline:
            return PrinterOffline(f"{who} is off-line {when} (feed button held or an error)")
        return None

    def as_status(self) -> dict[str, Any]:
        return status_report(
            online=not self.offline,
            paper=self.paper,
            cover="open" if self.cover_open else "closed",
        )


class EscposPrinter:
    """A printer python-escpos talks to (Usb, Network, Serial): subclasses open the connection
    and say how their library reports trouble."""

    kind = "escpos"
    #: Whether the transport can read the printer's answers (DLE EOT).
    can_read = True

    def __init__(
        self,
        profile: PrinterProfile | str | None = None,
        *,
        timeout: float = 10.0,
        status_timeout: float = 0.5,
        check_status: bool = True,
    ) -> None:
        self.profile = get_profile(profile)
        self.timeout = timeout
        self.status_timeout = status_timeout
        self.check_status = check_status
        self._answers: bool | None = None  # None: not known yet whether it answers DLE EOT
        self.sent = 0

    def describe(self) -> str:
        return f"printer {self.kind}"

    # -- for subclasses ------------------------------------------------------------------

    def _open(self) -> Escpos:
        """The connected python-escpos printer; raises a PrinterError saying why not."""
        raise NotImplementedError

    def _write_error(self, exc: Exception) -> PrinterError:
        return PrinterOffline(f"{self.describe()} did not take the job: {exc}")

    def _read_timeouts(self) -> tuple[type[BaseException], ...]:
        return (TimeoutError,)

    def _set_read_timeout(self, printer: Escpos, seconds: float) -> None:
        pass

    # -- the job ---------------------------------------------------------------------------

    def send(self, job_bytes: bytes, name: str) -> None:
        printer = self._open()
        try:
            self._check(printer, "before the job")
            try:
                printer._raw(job_bytes)
            except (OSError, ValueError) as exc:
                raise self._refined(printer, self._write_error(exc)) from exc
            except Exception as exc:  # pyusb/pyserial errors that are not OSError
                if _is_transport_error(exc):
                    raise self._refined(printer, self._write_error(exc)) from exc
                raise
            self.sent += 1
            self._check(printer, f"after job {name}; it may be cut short")
        finally:
            self._close(printer)
        logger.info("%s: printed %s (%d bytes)", self.describe(), name, len(job_bytes))

    def status(self) -> dict[str, Any]:
        try:
            printer = self._open()
        except PrinterError as exc:
            return status_report(online=False, problem=str(exc))
        try:
            probe = self._probe(printer, force=True)
        except PrinterError as exc:
            return status_report(online=False, problem=str(exc))
        finally:
            self._close(printer)
        if probe is None:
            problem = f"{self.describe()} does not report its status"
            return status_report(online=True, problem=problem)
        result = probe.as_status()
        error = probe.error(self.describe(), "now")
        result["problem"] = str(error) if error else None
        return result

    def _check(self, printer: Escpos, when: str) -> None:
        if not self.check_status:
            return
        probe = self._probe(printer)
        error = probe.error(self.describe(), when) if probe else None
        if error is not None:
            raise error

    def _refined(self, printer: Escpos, error: PrinterError) -> PrinterError:
        """A write that failed: the printer's own status names the cause when it can."""
        if not self.check_status or isinstance(error, PrinterUnplugged):
            return error
        try:
            probe = self._probe(printer)
        except PrinterError:
            return error
        better = probe.error(self.describe(), "mid-job") if probe else None
        return better if better is not None else error

    def _probe(self, printer: Escpos, *, force: bool = False) -> _Probe | None:
        """Ask DLE EOT 1, 2, 4. None when the printer does not answer (many cheap ones never
        do: after one silence it is not asked again before jobs)."""
        if not self.can_read or (self._answers is False and not force):
            return None
        self._set_read_timeout(printer, self.status_timeout)
        try:
            first = self._query(printer, RT_STATUS_ONLINE)
            if first is None:
                if self._answers is None:
                    logger.info("%s does not answer status requests", self.describe())
                self._answers = False
                return None
            self._answers = True
            cause = self._query(printer, RT_STATUS_OFFLINE_CAUSE)
            paper = self._query(printer, RT_STATUS_PAPER)
            return _Probe(first, cause, paper)
        finally:
            self._set_read_timeout(printer, self.timeout)

    def _query(self, printer: Escpos, request: bytes) -> int | None:
        try:
            answer = bytes(printer.query_status(request))
        except self._read_timeouts():
            return None
        except NotImplementedError:
            return None
        except Exception as exc:
            if _is_transport_error(exc):
                raise self._write_error(exc) from exc
            raise
        if not answer or answer[-1] & 0x93 != 0x12:  # fixed bits: 1 and 4 set, 0 and 7 clear
            return None
        return answer[-1]

    def _close(self, printer: Escpos) -> None:
        try:
            printer.close()
        except Exception as exc:  # closing a connection that is already gone
            logger.debug("%s: close: %s", self.describe(), exc)


def _is_transport_error(exc: BaseException) -> bool:
    if _DEP_USB and isinstance(exc, usb.core.USBError):
        return True
    return _DEP_SERIAL and isinstance(exc, serial.SerialException)


PrinterFactory = Callable[[str, Path], Printer]
