"""Request ids on the command line: `--request-id ID` anywhere before `--`, or a new one.

Standard library only: the client that talks to a running station imports this and nothing
heavier."""

from __future__ import annotations

import os

OPTION = "--request-id"
MAX_LENGTH = 128


class BadRequestId(ValueError):
    pass


def new_request_id() -> str:
    """128 random bits in hex, as unlikely to repeat as a random UUID (whose module would cost
    this path 2 ms: it imports platform)."""
    return os.urandom(16).hex()


def _checked(value: str) -> str:
    if not value or len(value) > MAX_LENGTH or not value.isprintable() or value.strip() != value:
        raise BadRequestId(
            f"{OPTION}: {value!r} is not a request id (1-{MAX_LENGTH} printable characters)"
        )
    return value


def split_request_id(args: list[str]) -> tuple[list[str], str | None]:
    """(the arguments without the option, the id given or None). Raises BadRequestId."""
    out: list[str] = []
    found: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.extend(args[i:])
            break
        if arg == OPTION:
            if i + 1 >= len(args):
                raise BadRequestId(f"{OPTION} needs a value")
            found = _checked(args[i + 1])
            i += 2
            continue
        if arg.startswith(OPTION + "="):
            found = _checked(arg.split("=", 1)[1])
            i += 1
            continue
        out.append(arg)
        i += 1
    return out, found
