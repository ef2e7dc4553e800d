"""A recording fake printer for tests of what prints (the print queue, the CLI): no device.

`FakePrinter` keeps every job it printed, in order, and can be told to fail: the next N jobs
with a given error (`fail_next`), or every job until `recover()` (`go_offline`), optionally
after taking part of the job, as a printer that runs out of paper mid-receipt does. Its bytes
go through python-escpos's `Dummy`, so `.output` is what a real printer would have received.

`dummy[:NAME]` (entry point `booth.printers` `dummy`) returns the fake called NAME, the same
object every time in this process, so a test can open the printer through the settings like
the services do and then look at it with `dummy_printer_named(NAME)`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escpos.printer import Dummy

from hardware.printer.errors import CONDITIONS, CoverOpen, PaperOut, PrinterError
from hardware.printer.profiles import PrinterProfile, get_profile


@dataclass(frozen=True)
class Job:
    name: str
    data: bytes


@dataclass
class _Failure:
    error: PrinterError | type[PrinterError] | str
    remaining: int | None  # None: until recover()
    after_bytes: int | None  # take this much of the job first (a job cut short)


class FakePrinter:
    """Records jobs; fails on demand. Thread-safe: the queue may print from its own thread."""

    kind = "dummy"

    def __init__(self, name: str = "default", profile: PrinterProfile | str | None = None):
        self.name = name
        self.profile = get_profile(profile)
        self.jobs: list[Job] = []
        self.partial: list[Job] = []  # what jobs that failed part-way put on paper
        self.attempts: list[str] = []  # every send, by job name, failed or not
        self.errors: list[PrinterError] = []
        self._failures: list[_Failure] = []
        self._dummy = Dummy(profile=self.profile.escpos_profile)
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"printer dummy:{self.name}"

    # -- test controls ---------------------------------------------------------------------

    def fail_next(
        self,
        count: int = 1,
        error: PrinterError | type[PrinterError] | str = "offline",
        *,
        after_bytes: int | None = None,
    ) -> None:
        """Make the next `count` jobs raise `error` (a PrinterError, its class, or a condition:
        offline, paper-out, cover-open, unplugged); `after_bytes`: print that much of each
        job first. Failures queue up behind one another."""
        if count < 1:
            raise ValueError(f"fail_next({count}): count must be at least 1")
        with self._lock:
            self._failures.append(_Failure(error, count, after_bytes))

    def go_offline(
        self, error: PrinterError | type[PrinterError] | str = "offline", **options: Any
    ) -> None:
        """Fail every job with `error` until `recover()`."""
        with self._lock:
            self._failures.append(_Failure(error, None, options.get("after_bytes")))

    def recover(self) -> None:
        """Forget every failure still to come: the printer works again."""
        with self._lock:
            self._failures.clear()

    def clear(self) -> None:
        with self._lock:
            self.jobs.clear()
            self.partial.clear()
            self.attempts.clear()
            self.errors.clear()
            self._failures.clear()
            self._dummy.clear()

    # -- the printer ---------------------------------------------------------------------

    def send(self, job_bytes: bytes, name: str) -> None:
        with self._lock:
            self.attempts.append(name)
            failure = self._failures[0] if self._failures else None
            if failure is None:
                self._dummy._raw(bytes(job_bytes))
                self.jobs.append(Job(name, bytes(job_bytes)))
                return
            if failure.remaining is not None:
                failure.remaining -= 1
                if failure.remaining <= 0:
                    self._failures.pop(0)
            if failure.after_bytes:
                part = bytes(job_bytes[: failure.after_bytes])
                self._dummy._raw(part)
                self.partial.append(Job(name, part))
            error = self._error(failure.error, name)
            self.errors.append(error)
        raise error

    def status(self) -> dict[str, Any]:
        with self._lock:
            failure = self._failures[0] if self._failures else None
        if failure is None:
            return {"online": True, "paper": "ok", "cover": "closed", "problem": None}
        error = self._error(failure.error, "status")
        return {
            "online": False,
            "paper": "out" if isinstance(error, PaperOut) else "ok",
            "cover": "open" if isinstance(error, CoverOpen) else "closed",
            "problem": str(error),
        }

    @property
    def output(self) -> bytes:
        """Every byte this printer received, jobs and parts of jobs, in order."""
        with self._lock:
            return bytes(self._dummy.output)

    @property
    def names(self) -> list[str]:
        """The names of the jobs printed whole, in order."""
        with self._lock:
            return [job.name for job in self.jobs]

    def _error(self, error: PrinterError | type[PrinterError] | str, job: str) -> PrinterError:
        if isinstance(error, PrinterError):
            return error
        if isinstance(error, str):
            if error not in CONDITIONS:
                known = ", ".join(CONDITIONS)
                raise ValueError(f"unknown printer condition {error!r} (known: {known})")
            kind, what = CONDITIONS[error], error
        else:
            kind, what = error, kind_name(error)
        return kind(f"{self.describe()}: {what} (simulated) during {job}")


def kind_name(error: type[PrinterError]) -> str:
    for name, kind in CONDITIONS.items():
        if kind is error:
            return name
    return error.__name__


FailingPrinter = FakePrinter
RecordingPrinter = FakePrinter

_NAMED: dict[str, FakePrinter] = {}
_NAMED_LOCK = threading.Lock()


def dummy_printer(options: str, station_dir: Path) -> FakePrinter:
    """Entry point `booth.printers` `dummy`: `dummy` or `dummy:NAME`, one fake per NAME."""
    name = options.strip() or "default"
    with _NAMED_LOCK:
        printer = _NAMED.get(name)
        if printer is None:
            printer = _NAMED[name] = FakePrinter(name)
        return printer


def dummy_printer_named(name: str = "default") -> FakePrinter:
    """The fake `dummy:NAME` opens (made now if not yet)."""
    return dummy_printer(name, Path("."))


def forget_dummy_printers() -> None:
    """Drop every named fake (between tests)."""
    with _NAMED_LOCK:
        _NAMED.clear()
