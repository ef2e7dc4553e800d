"""The station's control socket: where it is and how a message crosses it.

Standard library only, shared by the owner's server and the command-line client (which must
start fast). One JSON object a line each way: the client's request, the owner's answer.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

SOCKET_NAME = "control.sock"
#: Files named on the command line that a client sends along (a flare, a roster): at most this
#: much in all.
MAX_UPLOAD = 64 * 1024 * 1024
#: Largest request the owner reads: the uploads (base64) and the command line. The owner stops
#: reading a larger one there, so a client cannot make it hold more.
MAX_REQUEST = MAX_UPLOAD * 4 // 3 + 1024 * 1024
#: Largest answer a client reads (the files a command wrote: an export, a PDF).
MAX_ANSWER = 512 * 1024 * 1024
#: Seconds the owner waits for the next byte of a request before it lets the client go.
IDLE_TIMEOUT = 15.0
_CHUNK = 1024 * 1024
#: sun_path holds 108 bytes with its terminating NUL.
_MAX_PATH = 107


def socket_path(directory: Path) -> Path:
    return directory / SOCKET_NAME


class Address:
    """A UNIX socket address that works however deep the station directory is: a long path is
    reached through /proc/self/fd and an open descriptor of the directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._dir_fd: int | None = None
        raw = os.fsencode(path)
        if len(raw) <= _MAX_PATH:
            self.address: str | bytes = raw
        else:
            self._dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            self.address = f"/proc/self/fd/{self._dir_fd}/{path.name}"

    def close(self) -> None:
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None

    def __enter__(self) -> Address:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class FrameError(ValueError):
    """A message too long, cut short, not JSON, nested too deeply, or not a JSON object."""


class Silent(TimeoutError):
    """Nothing at all came within the time allowed."""


def send_message(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def receive_message(
    sock: socket.socket, *, limit: int, idle: float | None
) -> dict[str, Any] | None:
    """The next message on `sock`; None when the peer closed before sending any of it. Reads
    at most `limit` bytes and waits at most `idle` seconds for each part. Raises FrameError for
    a bad message (too long: nothing past `limit` is read), Silent when nothing came at all."""
    sock.settimeout(idle)
    buffer = bytearray()
    while True:
        try:
            chunk = sock.recv(min(_CHUNK, limit + 1 - len(buffer)))
        except TimeoutError:
            if not buffer:
                raise Silent(f"nothing came for {idle} seconds") from None
            raise FrameError(f"the message stopped coming for {idle} seconds") from None
        if not chunk:
            if not buffer:
                return None
            raise FrameError(f"the message was cut short after {len(buffer):,} bytes")
        end = chunk.find(b"\n")
        if end >= 0:
            buffer += chunk[:end]
            if len(buffer) > limit:
                raise FrameError(f"the message is larger than {limit:,} bytes")
            break
        buffer += chunk
        if len(buffer) > limit:
            raise FrameError(f"the message is larger than {limit:,} bytes")
    return parse_message(bytes(buffer))


def parse_message(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except RecursionError:
        raise FrameError("the message is nested too deeply") from None
    except ValueError as exc:
        raise FrameError(f"the message is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise FrameError(f"a message is a JSON object, not {type(message).__name__}")
    return message
