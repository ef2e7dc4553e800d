"""The `booth` command as a client of its station's running owner (the station's screen or
`booth serve`), which owns the station's writes.

Standard library only, and nothing else of Booth's is imported on this path: a command against
a live station costs a process start and one exchange on the station's control socket. When no
owner answers (no socket, or a stale one), or the owner says the command runs here, the caller
runs the command itself (`pos.cli.main`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pos.cli import owner_start
from pos.cli.control_socket import (
    MAX_ANSWER,
    MAX_UPLOAD,
    Address,
    FrameError,
    Silent,
    receive_message,
    send_message,
    socket_path,
)

#: Environment a forwarded command takes with it (the operator, a training hall's clock...).
FORWARDED_ENV_PREFIX = "BOOTH_"
#: How long a client keeps trying when its answer was lost (the owner restarting, say).
RETRY_FOR = 30.0
#: How long a client waits for its answer (a write waits its turn on the owner's worker; an
#: inspector's export of a big ledger takes minutes).
ANSWER_TIMEOUT = 900.0

EXIT_FAILURE = 3


class RunHere(Exception):
    """No owner is running, or it asked for the command to be run in this process."""


class ControlRefused(Exception):
    """The owner is running but this client may not use it, or it did not answer (exit 3)."""


@dataclass(frozen=True)
class Result:
    exit_code: int
    stdout: str
    stderr: str
    outputs: list[dict[str, Any]]


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def _input(path: str, room: int) -> dict[str, str]:
    """A file the command reads, as sent along: its bytes, or why it is not sent ("missing":
    the command says so, as it would here)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return {"missing": "yes"}
    except OSError as exc:
        return {"problem": exc.strerror or str(exc)}
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        return {"problem": f"is {kind}, not a regular file"}
    try:
        with open(path, "rb") as handle:
            data = handle.read(room + 1)
    except OSError as exc:
        return {"problem": exc.strerror or str(exc)}
    if len(data) > room:
        return {"problem": f"is larger than the {MAX_UPLOAD:,} bytes a command may send along"}
    import base64  # this and the file writers' imports: only a command carrying files needs them

    return {"data": base64.b64encode(data).decode()}


def _target(path: str) -> str:
    """What is at an output's path now (the owner's run sees the same)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "absent"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        try:
            return "dir" if os.listdir(path) else "empty-dir"
        except OSError:
            return "dir"
    return "other"


def client_files(wanted: dict[str, list[str]], cwd: str) -> dict[str, Any]:
    """The files the owner asked about: each input's bytes, each output's state."""
    inputs: dict[str, dict[str, str]] = {}
    room = MAX_UPLOAD
    for value in wanted.get("inputs", []):
        sent = _input(os.path.join(cwd, value), room)
        room -= len(sent.get("data", "")) * 3 // 4
        inputs[value] = sent
    outputs = {value: _target(os.path.join(cwd, value)) for value in wanted.get("outputs", [])}
    return {"inputs": inputs, "outputs": outputs}


def _connect(directory: Path, timeout: float) -> socket.socket:
    path = socket_path(directory)
    try:
        os.stat(path)
    except FileNotFoundError:
        raise RunHere("no owner") from None
    except PermissionError:
        raise ControlRefused(
            f"station {directory} may not be reached by this account ({path}: permission "
            "denied): run booth as the station's user or a member of its group"
        ) from None
    except OSError:
        raise RunHere("no owner") from None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
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
        _connect(directory, 10.0).close()
    except (RunHere, ControlRefused):
        return False
    return True


def _exchange(directory: Path, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """The owner's answer, or None when the connection was lost before it came."""
    sock = _connect(directory, timeout)
    try:
        # when the owner stopped reading (a refusal, a frame too large), its answer is waiting
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            send_message(sock, request)
        return receive_message(sock, limit=MAX_ANSWER, idle=timeout)
    except (Silent, TimeoutError):
        raise ControlRefused(
            f"station {directory}'s owner did not answer within {timeout:g} seconds "
            f"(request {request['request_id']}): run the command again with --request-id "
            f"{request['request_id']}"
        ) from None
    except (ConnectionError, FrameError):
        return None
    finally:
        sock.close()


def forward(
    directory: Path,
    args: list[str],
    request_id: str,
    *,
    explicit_id: bool,
    timeout: float = ANSWER_TIMEOUT,
) -> Result:
    """Run `args` on the station's owner. Raises RunHere or ControlRefused."""
    cwd = os.getcwd()
    request: dict[str, Any] = {
        "argv": args,
        "request_id": request_id,
        "explicit_id": explicit_id,
        "cwd": cwd,
        "env": {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV_PREFIX)},
    }
    deadline = time.monotonic() + RETRY_FOR
    waited = False
    while True:
        try:
            answer = _exchange(directory, request, timeout)
        except RunHere:
            if waited:
                raise
            # No socket yet: an owner starting (rebuilding an upgraded ledger, say) holds the
            # station; the command waits for it rather than run beside it.
            started = owner_start.wait_started(directory, owner_start.START_WAIT)
            if started is None:
                raise ControlRefused(
                    f"station {directory}'s owner has been starting for "
                    f"{owner_start.START_WAIT:g} seconds and does not answer yet (see its log: "
                    f"a rebuild after an upgrade says how far it is): run the command again "
                    f"with --request-id {request_id} once it answers"
                ) from None
            if not started:
                raise
            waited = True
            continue
        if answer is not None and "files" in answer and "files" not in request:
            # The owner named the command's inputs and outputs: the same request again, with
            # the inputs' bytes and the outputs' states.
            request["files"] = client_files(dict(answer["files"]), cwd)
            continue
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


def _write_file(path: str, data: bytes, mode: int) -> None:
    """`data` at `path`, whole or not at all: a temporary file beside it replaces it once
    complete. A path that is not a regular file (/dev/stdout, a pipe) is written directly."""
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "wb") as handle:
            handle.write(data)
        return
    import tempfile

    directory, name = os.path.split(path)
    fd, partial = tempfile.mkstemp(prefix=f".{name}.", suffix=".partial", dir=directory or ".")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(partial, mode)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def _write_directory(path: str, files: list[dict[str, Any]]) -> None:
    """The files of a directory output, whole or not at all: all of them are written into a
    new directory beside `path` first; it then becomes `path` (when `path` is missing or
    empty), or its files replace theirs in `path`."""
    import base64
    import shutil
    import tempfile

    parent, name = os.path.split(os.path.normpath(path))
    partial = tempfile.mkdtemp(prefix=f".{name}.", suffix=".partial", dir=parent or ".")
    try:
        for entry in files:
            relative = os.path.normpath(str(entry["name"]))
            if relative.startswith("..") or os.path.isabs(relative):
                raise OSError(errno.EINVAL, f"{relative}: outside the directory")
            target = os.path.join(partial, relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _write_file(target, base64.b64decode(entry["data"]), int(entry["mode"]))
        try:
            os.rename(partial, path)  # over an empty directory too
            return
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
        for root, _dirs, names in os.walk(partial):
            here = os.path.join(path, os.path.relpath(root, partial))
            os.makedirs(here, exist_ok=True)
            for file in names:
                os.replace(os.path.join(root, file), os.path.join(here, file))
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def write_outputs(outputs: list[dict[str, Any]]) -> str | None:
    """Write the files the command made (a PDF, an export) where the caller asked; an error
    message when one cannot be written."""
    for output in outputs:
        path = str(output["path"])
        try:
            if output.get("kind") == "dir":
                _write_directory(path, list(output["files"]))
            else:
                import base64

                _write_file(path, base64.b64decode(output["data"]), int(output["mode"]))
        except OSError as exc:
            return f"cannot write {path}: {exc.strerror or exc}"
    return None


def emit(result: Result) -> int:
    problem = write_outputs(result.outputs)
    if problem is not None:  # what it said it did is not where it was asked for
        sys.stderr.write(result.stderr)
        sys.stderr.write(f"booth: {problem}\n")
        return EXIT_FAILURE
    sys.stdout.write(result.stdout)
    sys.stdout.flush()
    sys.stderr.write(result.stderr)
    return result.exit_code
