"""Paths on the command line, declared for what they are: a file the command reads (an input)
or one it writes (an output).

A command forwarded to the station's running owner depends on it: the client sends along its
inputs and nothing else, and the files the owner's run writes come back and are written by the
client, over whatever was at that path (whole or not at all). Every path option of every
command is one or the other; an undeclared one is refused on the owner's side
(tests/live/test_owner_outputs.py checks that none is left).
"""

from __future__ import annotations

import enum
from typing import Any

import click


class PathRole(enum.Enum):
    INPUT = "input"
    OUTPUT = "output"


class InputPath(click.Path):
    """A file (or directory) the command reads."""

    role = PathRole.INPUT


class OutputPath(click.Path):
    """A file (or, with file_okay=False, a directory) the command writes."""

    role = PathRole.OUTPUT


#: Path options of commands in other packages, declared here until their own modules use
#: InputPath and OutputPath: (the command's path, the parameter's name).
DECLARED_ELSEWHERE: dict[tuple[str, str], PathRole] = {
    ("sync upstream set", "password_file"): PathRole.INPUT,
    ("sync upstream set", "ca_file"): PathRole.INPUT,
}

#: A secret a command reads from a file or, failing that, from the caller's environment.
#: Forwarded, the client's variable is given to the command as that file (never on argv, and
#: never from the owner's own environment): (command path, parameter) -> variable.
SECRET_FILES: dict[tuple[str, str], str] = {
    ("sync upstream set", "password_file"): "BOOTH_UPSTREAM_PASSWORD",
}


def is_path(param: click.Parameter) -> bool:
    return isinstance(param, click.Option | click.Argument) and isinstance(
        param.type, click.Path | click.File
    )


def path_role(command_path: str, param: click.Parameter) -> PathRole | None:
    """What the path parameter `param` of the command `command_path` ("report day") is; None
    when it is not declared."""
    kind: Any = param.type
    if isinstance(kind, InputPath | OutputPath):
        return kind.role
    if isinstance(kind, click.File):
        return PathRole.OUTPUT if any(c in kind.mode for c in "wax") else PathRole.INPUT
    return DECLARED_ELSEWHERE.get((command_path, param.name or ""))
