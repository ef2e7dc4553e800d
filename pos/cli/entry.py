"""The `booth` console script.

A station's running owner (its screen or `booth serve`) owns its writes: when one answers on the
station's control socket, the command line is sent to it and its answer printed here, exactly
as if the command had run here. Otherwise (nothing runs, or the owner says so) the command runs
in this process. This path imports only the standard library until it knows which.

Run here, a command's imports make tens of thousands of objects (classes, functions, the
methods dataclasses write) that live until the process ends. The cyclic collector would trace
them on each of its passes, and finalization traces them again at exit, which in a short command
costs more than its work (issue #31: 18 ms of a 132 ms `booth sell`). So the collector pauses
while the core is imported; what the imports made is then frozen (`gc.freeze`), out of every
later pass, and the collector runs again for the command, which may be a long-lived `booth serve`.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

from pos.cli import client
from pos.cli.request_ids import BadRequestId, new_request_id, split_request_id

_HALL = "--hall"
_HERE_ONLY = frozenset({"-h", "--help", "--version"})


def hall_directory(args: list[str]) -> Path:
    """The station directory the command names: --hall (before the command), BOOTH_HALL, or
    the platform's default (as pos.cli.main resolves it)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == _HALL and i + 1 < len(args):
            return Path(args[i + 1])
        if args[i].startswith(_HALL + "="):
            return Path(args[i].split("=", 1)[1])
        i += 1
    if os.environ.get("BOOTH_HALL"):
        return Path(os.environ["BOOTH_HALL"])
    from pos.cli.common_paths import default_hall_dir

    return default_hall_dir()


def main() -> None:
    argv = sys.argv[1:]
    try:
        args, request_id = split_request_id(argv)
    except BadRequestId as exc:
        sys.stderr.write(f"booth: {exc}\n")
        sys.exit(2)
    if args and not _HERE_ONLY.intersection(args):
        try:
            result = client.forward(
                hall_directory(args),
                args,
                request_id or new_request_id(),
                explicit_id=request_id is not None,
            )
        except client.RunHere:
            pass
        except client.ControlRefused as refused:
            sys.stderr.write(f"booth: {refused}\n")
            sys.exit(client.EXIT_FAILURE)
        except KeyboardInterrupt:
            sys.exit(130)
        else:
            sys.exit(client.emit(result))
    gc.disable()
    try:
        from pos.cli.main import main as run_here
    finally:
        gc.freeze()
        gc.enable()
    try:
        run_here(argv)
    finally:
        # The command's garbage is collected (and finalized) now, while the imports stay out
        # of the pass; then nothing is left for finalization to trace.
        gc.collect()
        gc.freeze()
