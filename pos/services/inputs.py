"""What a command takes in: the domain's value errors turned into the core's BadInput, with
the field they name; and files named on the command line (flares, rosters, join bundles,
password and CA files, backup manifests) read as regular files of bounded size.

A file input is opened without blocking and checked before it is read: a FIFO, a device such
as /dev/zero or /dev/stdin, a directory or a socket is refused (exit 2), never read (reading
/dev/zero would never end); so is a file larger than its kind's cap.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pos.errors import BadInput

KB = 1024
MB = 1024 * KB

# The caps, each far above what a real one holds.
FLARE_MAX = 1 * MB
ROSTER_MAX = 64 * MB  # a 50,000-shift roster is about 5 MB
BUNDLE_MAX = 512 * MB  # a join bundle carries the hall's whole log
SECRET_MAX = 4 * KB  # a password file
CA_MAX = 1 * MB
MANIFEST_MAX = 16 * MB


@contextmanager
def checked_input(default_field: str = "input") -> Iterator[None]:
    try:
        yield
    except ValueError as exc:
        field = getattr(exc, "field", default_field)
        message = str(exc)
        prefix = f"{field}: "
        raise BadInput(
            field, message[len(prefix) :] if message.startswith(prefix) else message
        ) from None


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a pipe"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_input_file(path: Path, field: str, *, limit: int) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them; else BadInput naming
    `field` and what is wrong (missing, unreadable, not a regular file, too large)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise BadInput(field, f"no such file: {path}") from None
    except OSError as exc:
        raise BadInput(field, f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BadInput(field, f"{path} is {_kind(info.st_mode)}: give a regular file")
        if info.st_size > limit:
            raise BadInput(field, f"{path} is {info.st_size} bytes: at most {limit} are taken")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 * MB, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise BadInput(field, f"{path} grew past {limit} bytes while it was read")
        return b"".join(chunks)
    except OSError as exc:
        raise BadInput(field, f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_input_text(path: Path, field: str, *, limit: int, encoding: str = "utf-8") -> str:
    """`read_input_file`, decoded; text that does not decode is BadInput too."""
    data = read_input_file(path, field, limit=limit)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise BadInput(field, f"{path} is not {encoding} text: {exc}") from None
