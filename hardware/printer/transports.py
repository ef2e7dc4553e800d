"""Where print jobs go: python-escpos's `Usb`, `Network`, `Serial` and `File`, a directory of
job files for tests and the demo, and the in-memory fake.

Every printer has `send(job_bytes, name)` and `status()`. `send` opens the connection, asks the
printer how it is where the transport can read an answer (DLE EOT 1, 2 and 4: off-line, cover,
paper), writes the whole job, asks again, and closes: a printer switched off and on between two
jobs is simply found again. It raises PrinterOffline, PaperOut, CoverOpen or PrinterUnplugged
(all PrinterError) as python-escpos and the operating system report them; the print queue keeps
the job and tries again later. A job that failed after some of its bytes went out may have
printed in part: the queue prints it again marked REPRINT.

`status()` never raises: it returns what the transport can tell (None where it cannot).
"""

from __future__ import annotations

import errno
import logging
import os
import re
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from escpos.constants import RT_STATUS_ONLINE, RT_STATUS_PAPER
from escpos.escpos import Escpos
from escpos.exceptions import DeviceNotFoundError
from escpos.printer import File, Network

from hardware.printer.errors import (
    CONDITIONS,
    BadPrinterSpec,
    CoverOpen,
    PaperOut,
    PrinterAccessDenied,
    PrinterError,
    PrinterOffline,
    PrinterUnplugged,
    UnsupportedEscPos,
)
from hardware.printer.profiles import PrinterProfile, get_profile

# Optional drivers, in python-escpos's own style: the module imports without them, and the
# printer that needs one says what to install when it is used.
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
DEFAULT_PORT = 9100
DEFAULT_BAUD = 9600
JOB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
FAIL_FILE = ".fail"


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


def _status(**values: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"online": None, "paper": None, "cover": None, "problem": None}
    base.update(values)
    return base


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
        return _status(
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
            return _status(online=False, problem=str(exc))
        try:
            probe = self._probe(printer, force=True)
        except PrinterError as exc:
            return _status(online=False, problem=str(exc))
        finally:
            self._close(printer)
        if probe is None:
            return _status(online=True, problem=f"{self.describe()} does not report its status")
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


# -- network ------------------------------------------------------------------------------------


class NetworkPrinter(EscposPrinter):
    """A printer on the LAN (raw TCP, port 9100), through python-escpos `Network`."""

    kind = "net"

    def __init__(self, host: str, port: int = DEFAULT_PORT, **options: Any) -> None:
        options.setdefault("timeout", 5.0)
        super().__init__(**options)
        self.host = host
        self.port = port

    def describe(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"printer net:{host}:{self.port}"

    def _open(self) -> Escpos:
        printer = Network(
            self.host, self.port, timeout=self.timeout, profile=self.profile.escpos_profile
        )
        # Connected here rather than by Network.open(), which opens IPv4 sockets only and
        # leaves the socket of a refused connection unclosed; python-escpos then writes,
        # reads and closes it as its own.
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as exc:
            raise PrinterOffline(self._why_not(exc)) from exc
        printer.device = sock
        return printer

    def _why_not(self, cause: BaseException) -> str:
        if isinstance(cause, ConnectionRefusedError):
            return f"{self.describe()} refuses the connection: is it switched on and on the LAN?"
        if isinstance(cause, TimeoutError):
            return f"{self.describe()} does not answer within {self.timeout:g} s: is it on?"
        return f"{self.describe()} cannot be reached: {cause}"

    def _set_read_timeout(self, printer: Escpos, seconds: float) -> None:
        sock = printer._device
        if sock:
            sock.settimeout(seconds)

    def _query(self, printer: Escpos, request: bytes) -> int | None:
        try:
            return super()._query(printer, request)
        except OSError as exc:
            if isinstance(exc, TimeoutError):
                return None
            raise PrinterOffline(f"{self.describe()} dropped the connection: {exc}") from exc

    def _write_error(self, exc: Exception) -> PrinterError:
        if isinstance(exc, TimeoutError):
            return PrinterOffline(
                f"{self.describe()} stopped taking data for {self.timeout:g} s "
                "(paper out, cover open or off-line?)"
            )
        return PrinterOffline(f"{self.describe()} dropped the connection mid-job: {exc}")


# -- USB -----------------------------------------------------------------------------------------


class UsbPrinter(EscposPrinter):
    """A USB printer found by vendor and product id, through python-escpos `Usb` (pyusb)."""

    kind = "usb"

    def __init__(
        self,
        vendor_id: int,
        product_id: int,
        *,
        in_ep: int = 0x82,
        out_ep: int = 0x01,
        backend: Any = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        for what, value in (("vendor id", vendor_id), ("product id", product_id)):
            if not 0 <= value <= 0xFFFF:
                raise BadPrinterSpec(f"USB {what} {value!r} is not a 16-bit number")
        self.vendor_id = vendor_id
        self.product_id = product_id
        self.in_ep = in_ep
        self.out_ep = out_ep
        self.backend = backend

    def describe(self) -> str:
        return f"printer usb:{self.vendor_id:04x}:{self.product_id:04x}"

    def _open(self) -> Escpos:
        if not _DEP_USB:
            raise PrinterOffline(f"{self.describe()}: pyusb is not installed (pip install pyusb)")
        from escpos.printer import Usb

        usb_args: dict[str, Any] = {"backend": self.backend} if self.backend is not None else {}
        printer = Usb(
            self.vendor_id,
            self.product_id,
            usb_args=usb_args,
            timeout=max(1, round(self.timeout * 1000)),
            in_ep=self.in_ep,
            out_ep=self.out_ep,
            profile=self.profile.escpos_profile,
        )
        try:
            printer.open()
        except DeviceNotFoundError as exc:
            raise self._open_error(exc.__context__) from exc
        except usb.core.NoBackendError as exc:
            raise PrinterOffline(
                f"{self.describe()}: no USB backend ({exc}): install libusb-1.0 "
                "(Debian: apt install libusb-1.0-0)"
            ) from exc
        return printer

    def _open_error(self, cause: BaseException | None) -> PrinterError:
        if isinstance(cause, usb.core.USBError):
            if cause.errno == errno.EACCES:
                return PrinterAccessDenied(f"{self.describe()}: access denied {UDEV_HINT}")
            if cause.errno in GONE_ERRNOS:
                return PrinterUnplugged(f"{self.describe()} went away while opening: {cause}")
            if cause.errno == errno.EBUSY:
                return PrinterOffline(f"{self.describe()} is busy: another program holds it")
            return PrinterOffline(f"{self.describe()} cannot be opened: {cause}")
        return PrinterUnplugged(f"{self.describe()} not found: is it plugged in and switched on?")

    def _read_timeouts(self) -> tuple[type[BaseException], ...]:
        return (usb.core.USBTimeoutError,)

    def _set_read_timeout(self, printer: Escpos, seconds: float) -> None:
        device = printer._device
        if device:
            device.default_timeout = max(1, round(seconds * 1000))

    def _write_error(self, exc: Exception) -> PrinterError:
        if isinstance(exc, usb.core.USBTimeoutError):
            return PrinterOffline(
                f"{self.describe()} stopped taking data for {self.timeout:g} s "
                "(paper out, cover open or off-line?)"
            )
        if isinstance(exc, usb.core.USBError) and exc.errno in GONE_ERRNOS | {errno.EIO}:
            return PrinterUnplugged(f"{self.describe()} was unplugged mid-job ({exc})")
        return PrinterOffline(f"{self.describe()} did not take the job: {exc}")


# -- serial --------------------------------------------------------------------------------------


class SerialPrinter(EscposPrinter):
    """A printer on a serial port (RS-232 or USB CDC), through python-escpos `Serial`."""

    kind = "serial"

    def __init__(
        self, port: str, baudrate: int = DEFAULT_BAUD, *, dsrdtr: bool = True, **options: Any
    ) -> None:
        super().__init__(**options)
        self.port = port
        self.baudrate = baudrate
        self.dsrdtr = dsrdtr

    def describe(self) -> str:
        return f"printer serial:{self.port}"

    def _open(self) -> Escpos:
        if not _DEP_SERIAL:
            raise PrinterOffline(f"{self.describe()}: pyserial is not installed")
        from escpos.printer import Serial

        printer = Serial(
            self.port,
            self.baudrate,
            timeout=self.status_timeout,
            dsrdtr=self.dsrdtr,
            profile=self.profile.escpos_profile,
        )
        try:
            printer.open()
        except DeviceNotFoundError as exc:
            cause = exc.__context__
            code = getattr(cause, "errno", None)
            if code in GONE_ERRNOS:
                raise PrinterUnplugged(f"{self.describe()} not found: is it plugged in?") from exc
            if code == errno.EACCES:
                raise PrinterAccessDenied(
                    f"{self.describe()}: permission denied (group dialout?) {UDEV_HINT}"
                ) from exc
            raise PrinterOffline(f"{self.describe()} cannot be opened: {cause or exc}") from exc
        device = printer._device
        if device:
            device.write_timeout = self.timeout
        return printer

    def _read_timeouts(self) -> tuple[type[BaseException], ...]:
        return (serial.SerialTimeoutException,)

    def _set_read_timeout(self, printer: Escpos, seconds: float) -> None:
        device = printer._device
        if device:
            device.timeout = seconds

    def _write_error(self, exc: Exception) -> PrinterError:
        if isinstance(exc, serial.SerialTimeoutException):
            return PrinterOffline(
                f"{self.describe()} held the line for {self.timeout:g} s "
                "(paper out, cover open or off-line?)"
            )
        if getattr(exc, "errno", None) in GONE_ERRNOS | {errno.EIO}:
            return PrinterUnplugged(f"{self.describe()} was unplugged mid-job ({exc})")
        return PrinterOffline(f"{self.describe()} did not take the job: {exc}")


# -- a file or a device node -------------------------------------------------------------------


class _AppendingFile(File):  # type: ignore[misc]
    """python-escpos `File`, opened without truncating: a regular file gets each job appended;
    a device node (/dev/usb/lp0) is written as it is and never created when it is missing."""

    _device: Any

    def open(self, raise_not_found: bool = True) -> None:
        if self._device:
            self.close()
        path = Path(self.devfile)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            mode = None
        try:
            if mode is not None and stat.S_ISCHR(mode):
                fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
            elif mode is None and _is_device_path(path):
                raise FileNotFoundError(errno.ENOENT, "no such device node", str(path))
            else:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError:
            self.device = None
            raise
        self.device = os.fdopen(fd, "wb", buffering=0)  # errors surface at write, not at close

    def _raw(self, msg: bytes) -> None:
        """Write it all: an unbuffered write to a device may take part of it."""
        assert self.device
        view = memoryview(msg)
        while view:
            written = self.device.write(view)
            if not written:
                raise OSError(errno.EIO, "the device took no data")
            view = view[written:]

    def close(self) -> None:
        device, self._device = self._device, False
        if device:
            device.close()


def _is_device_path(path: Path) -> bool:
    return path.is_absolute() and len(path.parts) > 1 and path.parts[1] == "dev"


class FilePrinter:
    """`file:PATH`: each job's bytes appended to PATH, through python-escpos `File`. PATH may be
    a device node such as /dev/usb/lp0 (the kernel's usblp driver), which is never created."""

    kind = "file"

    def __init__(self, path: Path, profile: PrinterProfile | str | None = None) -> None:
        self.path = Path(path)
        self.profile = get_profile(profile)
        self.sent = 0

    def describe(self) -> str:
        return f"printer file:{self.path}"

    def send(self, job_bytes: bytes, name: str) -> None:
        printer = _AppendingFile(str(self.path), profile=self.profile.escpos_profile)
        try:
            printer.open()
        except OSError as exc:
            raise self._error(exc, "cannot be opened") from exc
        try:
            printer._raw(job_bytes)
        except OSError as exc:
            raise self._error(exc, f"failed during job {name}") from exc
        finally:
            try:
                printer.close()
            except OSError as exc:
                logger.debug("%s: close: %s", self.describe(), exc)
        self.sent += 1

    def _error(self, exc: OSError, what: str) -> PrinterError:
        device = self._is_device()
        code = exc.errno
        if code in GONE_ERRNOS and (device or _is_device_path(self.path)):
            return PrinterUnplugged(f"{self.describe()} {what}: no such device: is it plugged in?")
        if code == errno.ENOSPC and device:
            return PaperOut(f"{self.describe()} {what}: the printer reports out of paper")
        if code == errno.EACCES:
            return PrinterAccessDenied(f"{self.describe()} {what}: permission denied {UDEV_HINT}")
        if code == errno.ENOSPC:
            return PrinterOffline(f"{self.describe()} {what}: the disk is full")
        return PrinterOffline(f"{self.describe()} {what}: {exc.strerror or exc}")

    def _is_device(self) -> bool:
        try:
            return stat.S_ISCHR(self.path.stat().st_mode)
        except OSError:
            return False

    def status(self) -> dict[str, Any]:
        exists = self.path.exists()
        target = self.path if exists else self.path.parent
        writable = target.is_dir() if not exists else self.path.is_file() or self._is_device()
        writable = writable and os.access(target, os.W_OK)
        problem = None
        if not exists and _is_device_path(self.path):
            writable = False
            problem = f"{self.describe()}: no such device: is it plugged in?"
        elif not writable:
            problem = f"{self.describe()} is not writable"
        return _status(online=writable, writable=writable, problem=problem)


# -- a directory of jobs -----------------------------------------------------------------------


class DirPrinter:
    """`dir:DIR`: each job its own file `DIR/{name}.bin` and a picture of it, `DIR/{name}.png`,
    drawn from the bytes by escpos_image (the same drawing as png.py). For tests and the demo.

    A job name already used gets `~2`, `~3`... rather than replacing the earlier file, so a job
    printed twice shows. A file `DIR/.fail` holding a condition (offline, paper-out, cover-open,
    unplugged) makes every job fail that way until it is removed: a scripted printer fault.
    """

    kind = "dir"

    def __init__(
        self, directory: Path, profile: PrinterProfile | str | None = None, *, png: bool = True
    ) -> None:
        self.directory = Path(directory)
        self.profile = get_profile(profile)
        self.png = png
        self.sent = 0

    def describe(self) -> str:
        return f"printer dir:{self.directory}"

    def send(self, job_bytes: bytes, name: str) -> None:
        if not JOB_NAME.fullmatch(name):
            raise ValueError(f"job name {name!r} is not a plain file name")
        fault = self._fault()
        if fault is not None:
            raise fault
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            stem = self._free_stem(name)
            _write_atomically(self.directory / f"{stem}.bin", job_bytes)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise PrinterOffline(f"{self.describe()}: the disk is full") from exc
            raise PrinterOffline(f"{self.describe()} cannot take job {name}: {exc}") from exc
        self.sent += 1
        if self.png:
            self._picture(stem, job_bytes)

    def _picture(self, stem: str, job_bytes: bytes) -> None:
        from hardware.printer.escpos_image import interpret
        from hardware.printer.png import to_png

        try:
            printout = interpret(job_bytes, self.profile)
        except UnsupportedEscPos as exc:
            logger.warning("%s: no picture of %s: %s", self.describe(), stem, exc)
            return
        if not (printout.lines or printout.images or printout.qr_codes):
            return  # nothing on paper (a drawer kick)
        picture = to_png(printout.image)
        try:
            _write_atomically(self.directory / f"{stem}.png", picture)
        except OSError as exc:
            logger.warning("%s: no picture of %s: %s", self.describe(), stem, exc)

    def _free_stem(self, name: str) -> str:
        stem, copy = name, 1
        while (self.directory / f"{stem}.bin").exists():
            copy += 1
            stem = f"{name}~{copy}"
        if copy > 1:
            logger.warning("%s: job %s printed again, as %s", self.describe(), name, stem)
        return stem

    def _fault(self) -> PrinterError | None:
        try:
            condition = (self.directory / FAIL_FILE).read_text().strip().lower()
        except OSError:
            return None
        error = CONDITIONS.get(condition or "offline", PrinterOffline)
        return error(f"{self.describe()}: {condition or 'offline'} (simulated by {FAIL_FILE})")

    def jobs(self) -> list[Path]:
        """The job files, in name order."""
        return sorted(self.directory.glob("*.bin"))

    def status(self) -> dict[str, Any]:
        fault = self._fault()
        target = self.directory
        while not target.exists() and target != target.parent:
            target = target.parent
        writable = target.is_dir() and os.access(target, os.W_OK)
        problem = (
            str(fault) if fault else (None if writable else f"{self.describe()} is not writable")
        )
        return _status(
            online=writable and fault is None,
            paper="out" if isinstance(fault, PaperOut) else "ok",
            cover="open" if isinstance(fault, CoverOpen) else "closed",
            writable=writable,
            problem=problem,
        )


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


# -- settings and the booth.printers entry points ------------------------------------------------


def parse_usb(options: str) -> tuple[int, int, int | None, int | None]:
    """`VID:PID` or `VID:PID:IN:OUT` (hex, as lsusb shows; endpoints as lsusb -v shows)."""
    parts = options.split(":")
    if len(parts) not in (2, 4):
        raise BadPrinterSpec(
            f"printer usb:{options} should be usb:VID:PID (hex, as lsusb shows: usb:04b8:0e15) "
            "or usb:VID:PID:IN_EP:OUT_EP"
        )
    numbers: list[int] = []
    for what, part in zip(
        ("vendor id", "product id", "IN endpoint", "OUT endpoint"), parts, strict=False
    ):
        text = part.lower().removeprefix("0x")
        if not 1 <= len(text) <= 4 or any(c not in "0123456789abcdef" for c in text):
            raise BadPrinterSpec(f"printer usb:{options}: {what} {part!r} is not 1-4 hex digits")
        numbers.append(int(text, 16))
    if len(numbers) == 4:
        if not (numbers[2] & 0x80 and not numbers[3] & 0x80 and max(numbers[2:]) <= 0xFF):
            raise BadPrinterSpec(
                f"printer usb:{options}: endpoints {parts[2]}:{parts[3]} should be IN (0x8n) "
                "then OUT (0x0n)"
            )
        return numbers[0], numbers[1], numbers[2], numbers[3]
    return numbers[0], numbers[1], None, None


def parse_net(options: str) -> tuple[str, int]:
    """`HOST`, `HOST:PORT` or `[IPv6]:PORT`."""
    text = options.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":")
    else:
        host, _, port_text = text.partition(":")
    if not host or not re.fullmatch(r"[A-Za-z0-9._:%-]+", host):
        raise BadPrinterSpec(
            f"printer net:{options} should name a host, e.g. net:192.168.1.50:9100"
        )
    if not port_text:
        return host, DEFAULT_PORT
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise BadPrinterSpec(f"printer net:{options}: port {port_text!r} is not 1-65535")
    return host, int(port_text)


def parse_serial(options: str) -> tuple[str, int]:
    """`/dev/ttyUSB0` or `/dev/ttyUSB0@19200`."""
    port, at, baud_text = options.rpartition("@")
    if not at:
        port, baud_text = options, ""
    if not port:
        raise BadPrinterSpec(
            f"printer serial:{options} should name a port, e.g. serial:/dev/ttyUSB0@9600"
        )
    if not baud_text:
        return port, DEFAULT_BAUD
    rates = sorted(serial.Serial.BAUDRATES) if _DEP_SERIAL else [DEFAULT_BAUD]
    if not baud_text.isdigit() or int(baud_text) not in rates:
        raise BadPrinterSpec(
            f"printer serial:{options}: baud rate {baud_text!r} is not one of "
            f"{', '.join(str(b) for b in rates if b >= 1200)}"
        )
    return port, int(baud_text)


def _path(options: str, station_dir: Path, what: str) -> Path:
    if not options.strip():
        raise BadPrinterSpec(f"printer {what}: needs a path, e.g. {what}:receipts")
    path = Path(options).expanduser()
    return path if path.is_absolute() else Path(station_dir) / path


def usb_printer(options: str, station_dir: Path) -> UsbPrinter:
    """Entry point `booth.printers` `usb`: `usb:VID:PID[:IN_EP:OUT_EP]`."""
    vendor_id, product_id, in_ep, out_ep = parse_usb(options)
    if in_ep is None or out_ep is None:
        return UsbPrinter(vendor_id, product_id)
    return UsbPrinter(vendor_id, product_id, in_ep=in_ep, out_ep=out_ep)


def net_printer(options: str, station_dir: Path) -> NetworkPrinter:
    """Entry point `booth.printers` `net`: `net:HOST[:PORT]` (port 9100 by default)."""
    host, port = parse_net(options)
    return NetworkPrinter(host, port)


def serial_printer(options: str, station_dir: Path) -> SerialPrinter:
    """Entry point `booth.printers` `serial`: `serial:DEV[@baud]`."""
    port, baudrate = parse_serial(options)
    return SerialPrinter(port, baudrate)


def file_printer(options: str, station_dir: Path) -> FilePrinter:
    """Entry point `booth.printers` `file`: `file:PATH` (relative to the station directory)."""
    return FilePrinter(_path(options, station_dir, "file"))


def dir_printer(options: str, station_dir: Path) -> DirPrinter:
    """Entry point `booth.printers` `dir`: `dir:DIR` (relative to the station directory)."""
    return DirPrinter(_path(options, station_dir, "dir"))


PrinterFactory = Callable[[str, Path], Printer]
