"""The `booth` command as a client of its station's running owner (the station's screen or
`booth serve`), which owns the station's writes.

Standard library only, and nothing else of Booth's is imported on this path: a command against
a live station costs a process start and one exchange on the station's control socket. When no
owner answers (no socket, or a stale one), or the owner says the command runs here, the caller
runs the command itself (`pos.cli.main`).
"""

from __future__ import annotations

import base64
import errno
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pos.cli.control_socket import Address, read_message, send_message, socket_path
from pos.errors import StorageFailure
from pos.services.outputs import replacing

#: Environment a forwarded command takes with it (the operator, a training hall's clock...).
FORWARDED_ENV_PREFIX = "BOOTH_"
#: Files named on the command line that are sent along (a flare, a roster), at most this much.
MAX_UPLOAD = 64 * 1024 * 1024
#: How long a client keeps trying when its answer was lost (the owner restarting, say).
RETRY_FOR = 30.0

EXIT_FAILURE = 3


class RunHere(Exception):
    """No owner is running, or it asked for the command to be run in this process."""


class ControlRefused(Exception):
    """The owner is running but this client may not use it (exit 3)."""


@dataclass(frozen=True)
class Result:
    exit_code: int
    stdout: str
    stderr: str
    outputs: list[dict[str, Any]]


def _uploads(args: list[str], cwd: str) -> dict[str, str]:
    files: dict[str, str] = {}
    total = 0
    for token in args:
        value = token.split("=", 1)[1] if token.startswith("--") and "=" in token else token
        if not value or value.startswith("-") or value in files:
            continue
        path = os.path.join(cwd, value)
        try:
            if not os.path.isfile(path):
                continue
            size = os.path.getsize(path)
            if total + size > MAX_UPLOAD:
                continue
            with open(path, "rb") as handle:
                files[value] = base64.b64encode(handle.read()).decode()
            total += size
        except OSError:
            continue  # the command says so, as it would here
    return files


def _connect(directory: Path) -> socket.socket:
    path = socket_path(directory)
    if not os.path.exists(path):
        raise RunHere("no owner")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with Address(path) as address:
        try:
            sock.connect(address.address)
        except OSError as exc:
            sock.close()
            if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
                raise RunHere("stale socket") from None
            if exc.errno in (errno.EACCES, errno.EPERM):
                raise ControlRefused(
                    f"station {directory} is running and this account may not use it "
                    f"({path}: permission denied): run booth as the station's user or a "
                    "member of its group"
                ) from None
            raise ControlRefused(f"cannot reach station {directory}'s owner: {exc}") from None
    return sock


def owner_answers(directory: Path) -> bool:
    """Whether the station's owner (its screen or `booth serve`) runs and answers here."""
    try:
        _connect(directory).close()
    except (RunHere, ControlRefused):
        return False
    return True


def _exchange(directory: Path, request: dict[str, Any]) -> dict[str, Any] | None:
    """The owner's answer, or None when the connection was lost before it came."""
    sock = _connect(directory)
    try:
        send_message(sock, request)
        with sock.makefile("rb") as stream:
            return read_message(stream)
    except (ConnectionError, ValueError):
        return None
    finally:
        sock.close()


def forward(directory: Path, args: list[str], request_id: str, *, explicit_id: bool) -> Result:
    """Run `args` on the station's owner. Raises RunHere or ControlRefused."""
    cwd = os.getcwd()
    request = {
        "argv": args,
        "request_id": request_id,
        "explicit_id": explicit_id,
        "cwd": cwd,
        "env": {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV_PREFIX)},
        "uploads": _uploads(args, cwd),
    }
    deadline = time.monotonic() + RETRY_FOR
    while True:
        answer = _exchange(directory, request)
        if answer is not None:
            break
        # The answer was lost (the owner stopped mid-command?): the same request id again
        # returns the first answer, or runs it once if it never ran.
        if time.monotonic() > deadline:
            raise ControlRefused(
                f"station {directory}'s owner closed the connection before answering "
                f"(request {request_id}): run the command again with --request-id {request_id}"
            )
        time.sleep(0.5)
    if answer.get("run_here"):
        raise RunHere("the owner asked for it")
    if "refused" in answer:
        raise ControlRefused(str(answer["refused"]))
    return Result(
        int(answer.get("exit", EXIT_FAILURE)),
        str(answer.get("stdout", "")),
        str(answer.get("stderr", "")),
        list(answer.get("outputs", [])),
    )


def write_outputs(outputs: list[dict[str, Any]]) -> str | None:
    """Write the files the command made (a PDF, an export) where the caller asked; an error
    message when one cannot be written."""
    for output in outputs:
        path = str(output["path"])
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with replacing(path) as partial:
                flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                with os.fdopen(os.open(partial, flags, int(output["mode"])), "wb") as handle:
                    handle.write(base64.b64decode(output["data"]))
        except OSError as exc:
            return f"cannot write {path}: {exc.strerror}"
        except StorageFailure as failure:
            return failure.message
    return None


def emit(result: Result) -> int:
    problem = write_outputs(result.outputs)
    sys.stdout.write(result.stdout)
    sys.stdout.flush()
    sys.stderr.write(result.stderr)
    if problem is not None:
        sys.stderr.write(f"booth: {problem}\n")
        return EXIT_FAILURE
    return result.exit_code
