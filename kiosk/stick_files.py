"""The files on the USB stick(s), told apart by what is in them: a deal's flare and a bingo game
program are both JSON or TOML, so the name's ending says nothing about which it is. The Deals
tab offers only flares, the Program tab only programs; a file that is neither (or cannot be
read) is offered by neither."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kiosk import usb

#: What a file on a stick may be, by its content.
FLARE, PROGRAM, OTHER = "flare", "program", "other"
READ_MAX = 256 * 1024  # a flare or a program is a few KB: anything larger is neither


@dataclass(frozen=True)
class StickFile:
    """A file found on a stick, and what it is."""

    found: usb.Found
    kind: str  # FLARE, PROGRAM or OTHER

    @property
    def path(self) -> Path:
        return self.found.path

    @property
    def root(self) -> Path:
        return self.found.root

    @property
    def name(self) -> str:
        return self.found.name

    @property
    def label(self) -> str:
        return self.found.label


def kind_of(path: Path) -> str:
    """What `path` holds: a program has a list of games (and no serial); a flare has a deal's
    serial (and no games: a flare with a mistake is still a flare, its Receive says what is
    wrong); else OTHER."""
    try:
        if path.stat().st_size > READ_MAX:
            return OTHER
        text = path.read_text("utf-8")
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, tomllib.TOMLDecodeError):
        return OTHER
    if not isinstance(data, dict):
        return OTHER
    if isinstance(data.get("games"), list) and "serial" not in data:
        return PROGRAM
    if "serial" in data and "games" not in data:
        return FLARE
    return OTHER


def find(kind: str, roots: Iterable[Path]) -> list[StickFile]:
    """The files on `roots` that hold a `kind` (FLARE or PROGRAM), newest first."""
    found = [StickFile(item, kind_of(item.path)) for item in usb.find("flare", roots)]
    return [item for item in found if item.kind == kind]
