"""What a failed read of the ledger means: a dying disk, or a damaged file.

SQLite cannot say which. Its unix VFS turns an EIO from the disk into SQLITE_CORRUPT, the code a
malformed page gives, so "database disk image is malformed" is all a command sees of either.
The advice differs: a damaged file is restored from a backup, but a restore onto a failing disk
buries what only this file holds. So whenever SQLite calls the file malformed, the file itself
is read end to end: an OSError there is the disk's (exit 3, "check the disk; do not restore
yet"); a file that reads whole and is still malformed is damaged.

A file found damaged is marked (`ledger.db.damaged` beside it, holding what was found), and no
write is taken on it from then on: a command that touches no bad page would otherwise go on
appending to a file whose history is already in doubt. A restore goes into an empty directory,
so the mark goes with the damaged file; a later `booth verify` that finds the file whole again
lifts it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from pos.errors import DiskFailure, LedgerDamaged, StorageFailure

_CORRUPT_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB
_CHUNK = 1 << 20

DAMAGED = (
    "the ledger file is damaged (SQLite: {error}): nothing was recorded. Stop the station, "
    "keep the damaged file aside, and restore the station from its latest backup, then let it "
    "sync with the hall (docs/backup-and-restore.md)"
)
DISK = (
    "the disk failed reading the ledger {path} ({error}): nothing was recorded; check the disk "
    "(the SD card or drive; `dmesg` shows its I/O errors) and do not restore yet: the file may "
    "hold sales no backup has. Copy it to a sound disk first (docs/backup-and-restore.md)"
)
EMPTIED = (
    "the ledger {path} is empty (0 bytes): its content was lost (a truncated file or a failed "
    "copy), so it is not taken as a new station. Keep it aside and restore the station from its "
    "latest backup (docs/backup-and-restore.md)"
)
MARKED = (
    "the ledger {path} was found damaged by `booth verify` ({finding}): nothing is written to it "
    "until the station is restored from its latest backup (docs/backup-and-restore.md)"
)


def says_malformed(exc: BaseException) -> bool:
    """Whether SQLite called the file malformed or not a database: damage, or a dying disk."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in _CORRUPT_CODES:
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def unreadable(path: Path) -> OSError | None:
    """The error reading `path` (and its write-ahead log) end to end gives, if any."""
    for file in (path, path.with_name(path.name + "-wal")):
        try:
            fd = os.open(file, os.O_RDONLY)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return exc
        try:
            offset = 0
            while chunk := os.pread(fd, _CHUNK, offset):
                offset += len(chunk)
        except OSError as exc:
            exc.filename = str(file)
            return exc
        finally:
            os.close(fd)
    return None


def disk_failure(path: Path, error: BaseException) -> DiskFailure:
    return DiskFailure(DISK.format(path=path, error=error))


def storage_error(exc: BaseException, path: Path | None) -> StorageFailure:
    """An error SQLite called malformed: the disk's when `path` does not read, else damage
    (and `path` is marked so)."""
    if path is not None:
        failed = unreadable(path)
        if failed is not None:
            return disk_failure(path, failed)
        mark(path, str(exc))
    return LedgerDamaged(DAMAGED.format(error=exc))


def check_not_emptied(path: Path) -> None:
    """Refuse a ledger of 0 bytes with no write-ahead log holding its pages: SQLite would take
    it for an empty database and Booth would migrate it into a station with no history."""
    try:
        if path.stat().st_size:
            return
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size:
            return
    except OSError:
        return  # a missing or unreadable file is met, and named, where it is opened
    raise LedgerDamaged(EMPTIED.format(path=path))


def mark_path(path: Path) -> Path:
    return path.with_name(path.name + ".damaged")


def mark(path: Path, finding: str) -> None:
    """Record that `path` was found damaged. Best effort: a reader without write access to the
    station directory leaves it to the next writer, which meets the same damage."""
    with contextlib.suppress(OSError):
        mark_path(path).write_text(finding[:2000] + "\n")


def unmark(path: Path) -> None:
    with contextlib.suppress(OSError):
        mark_path(path).unlink()


def refuse_if_marked(path: Path) -> None:
    try:
        finding = mark_path(path).read_text().strip()
    except FileNotFoundError:
        return
    except OSError as exc:
        finding = f"its mark could not be read: {exc.strerror}"
    raise LedgerDamaged(MARKED.format(path=path, finding=finding or "malformed"))
