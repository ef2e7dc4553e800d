"""Files on a USB stick: the flares and rosters found on mounted removable media, so the
manager takes one in two taps instead of typing a path.

Removable media: the mounts in /proc/mounts whose block device (or, for a partition, its disk)
says 1 in /sys/block/DISK/removable; the desktop's automount folders (/media/USER/LABEL,
/run/media/USER/LABEL) are what those mounts usually are. Both paths are parameters, so tests
(and halls with unusual mounts) choose the roots.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

KINDS = {"flare": (".json", ".toml"), "roster": (".csv",)}
MAX_DEPTH = 2  # the stick's top folder and one level below
MAX_FILES = 24


def _unescape(field: str) -> str:
    """/proc/mounts writes a space as \\040 (and tab, newline, backslash likewise)."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def _disk(device: str, sys_block: Path) -> Path | None:
    """The /sys/block entry of a device (/dev/sdb1 -> /sys/block/sdb)."""
    name = Path(device).name
    if (sys_block / name).exists():
        return sys_block / name
    for disk in sys_block.iterdir() if sys_block.is_dir() else ():
        if (disk / name).exists():  # a partition is a subfolder of its disk
            return disk
    return None


def removable_roots(
    mounts: Path = Path("/proc/mounts"), sys_block: Path = Path("/sys/block")
) -> list[Path]:
    """Mount points of removable block devices, in the order mounted."""
    try:
        lines = mounts.read_text().splitlines()
    except OSError:
        return []
    roots = []
    for line in lines:
        fields = line.split()
        if len(fields) < 2 or not fields[0].startswith("/dev/"):
            continue
        disk = _disk(fields[0], sys_block)
        try:
            removable = disk is not None and (disk / "removable").read_text().strip() == "1"
        except OSError:
            removable = False
        if removable:
            roots.append(Path(_unescape(fields[1])))
    return roots


@dataclass(frozen=True)
class Found:
    path: Path
    root: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def label(self) -> str:
        """How a button shows it: the file, and the stick's name when there are several."""
        return f"{self.path.name} ({self.root.name})"


def find(kind: str, roots: Iterable[Path]) -> list[Found]:
    """The files of `kind` (flare: .json/.toml, roster: .csv) on `roots`, newest first."""
    endings = KINDS[kind]
    found: list[tuple[float, Found]] = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            depth = len(Path(folder).relative_to(root).parts)
            dirs[:] = [] if depth + 1 >= MAX_DEPTH else sorted(d for d in dirs if d[0] != ".")
            for name in files:
                path = Path(folder) / name
                if name.startswith(".") or not name.lower().endswith(endings):
                    continue
                try:
                    if not path.is_file():
                        continue
                    mtime = path.stat().st_mtime
                except OSError:
                    continue
                found.append((mtime, Found(path, root)))
    found.sort(key=lambda pair: (-pair[0], str(pair[1].path)))
    return [f for _, f in found[:MAX_FILES]]
