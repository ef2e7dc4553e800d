"""The core's exceptions: one base, each class named for the condition it reports.

Every error carries the process exit code the CLI maps it to, so the shell never has to guess:
0 done, 1 refused by a rule, 2 bad usage or input, 3 hardware, network or storage failure,
4 integrity failure (a ledger or signed payload that fails verification).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pos.domain.checks import Refusal


# A message names the offending value, but a value pasted by the screenful (a 5,000-digit
# "quantity", a whole file on one line) is cut to its start and its length.
_LONG_RUN = re.compile(r"\S{200,}")


def elide_long_values(message: str) -> str:
    """`message` with every run of 200 or more non-blank characters cut to its first 60."""
    return _LONG_RUN.sub(lambda m: f"{m.group()[:60]}... ({len(m.group()):,} characters)", message)


class BoothError(Exception):
    """Base of every error the core raises on purpose."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        message = elide_long_values(message)
        super().__init__(message)
        self.message = message


class BadInput(BoothError):
    """Input that does not parse or is out of range; nothing was recorded."""

    exit_code = 2

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class RuleRefused(BoothError):
    """A rule of the hall's rulebook (or of Booth itself) refuses the command."""

    exit_code = 1

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule {rule})")
        self.rule = rule


class NotPermitted(RuleRefused):
    """The operator is missing or lacks the role the command needs."""

    def __init__(self, message: str) -> None:
        super().__init__("ROLE", message)


def refuse(refusal: Refusal | None) -> None:
    """Raise the refusal a pure check returned (pos.domain.checks); nothing when it returned
    None. A refusal for want of a role is NotPermitted, every other one RuleRefused."""
    if refusal is None:
        return
    if refusal.role:
        raise NotPermitted(refusal.message)
    raise RuleRefused(refusal.rule, refusal.message)


class NotFound(BoothError):
    """A named thing (hall, station, badge, deal) does not exist."""

    exit_code = 2


class StationBusy(BoothError):
    """Another process holds this station's single-instance lock."""

    exit_code = 3


class HardwareFailure(BoothError):
    """A printer, scanner, dispenser or drawer is missing, unplugged or failed."""

    exit_code = 3


class StorageFailure(BoothError):
    """The disk or database refused a write (full disk, read-only file system, I/O error)."""

    exit_code = 3


class LedgerDamaged(StorageFailure):
    """SQLite reports the ledger file itself as malformed (a damaged page, not a full disk):
    nothing can be written to it; the station is restored from a backup. `booth verify`
    reports it as a failed verification (exit 4)."""


class DiskFailure(StorageFailure):
    """The disk failed to read the ledger (EIO: a dying SD card or drive). Not a damaged file:
    the advice is to check the disk and keep the file, not to restore over it."""


class IntegrityFailure(BoothError):
    """A ledger, event or signed payload fails verification."""

    exit_code = 4
    event: str | None = None  # the refused event, as ORIGIN:SEQ, when one event was refused


class ForkDetected(IntegrityFailure):
    """Two different signed events claim the same (origin, seq)."""

    def __init__(self, origin: str, seq: int) -> None:
        super().__init__(f"fork: origin {origin} seq {seq} differs from the event already held")
        self.origin = origin
        self.seq = seq
        self.event = f"{origin}:{seq}"


class PluginError(BoothError):
    """A plugin (an entry point another layer registers: a command, a front end, a device
    adapter) is not installed or does not load. The message names its group and its name."""

    exit_code = 3

    def __init__(self, group: str, name: str, message: str) -> None:
        super().__init__(f"{group} {name!r}: {message}")
        self.group = group
        self.name = name


class PluginNotFound(PluginError):
    """No plugin of that name is installed in the group: a setting or option names it wrong."""

    exit_code = 2


class PluginLoadFailed(PluginError):
    """The plugin is installed but importing it failed (a broken or partial installation)."""
