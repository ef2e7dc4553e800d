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
#: Largest message either side reads (a roster or flare sent along, an export sent back).
MAX_MESSAGE = 256 * 1024 * 1024
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


def send_message(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def read_message(stream: Any, limit: int = MAX_MESSAGE) -> dict[str, Any] | None:
    """The next message from a binary file-like stream; None at a clean end of stream.
    Raises ValueError for a message that is too long or not a JSON object."""
    line = stream.readline(limit + 1)
    if not line:
        return None
    if len(line) > limit or not line.endswith(b"\n"):
        raise ValueError("the message is too long or was cut short")
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("a message is a JSON object")
    return message
