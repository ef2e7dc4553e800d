"""Every process a test starts ends when the test ends, pass, fail or time-out.

- `spawn` (fixture): `subprocess.Popen` in a session of its own; when the test ends, its whole
  process group is killed and reaped. Its process starts with SIGINT and SIGQUIT as a
  terminal gives them, whatever pytest was started with: a shell's background job (CI,
  `make test &`) ignores SIGINT, an ignored signal stays ignored through exec, and Python then
  never turns SIGINT into KeyboardInterrupt (`booth scan` under a test waited forever).
- `end(process)`: the same for a Popen a helper holds (its stop() falls back to it).
- The safety net (autouse, and at the end of the session): whatever process a test leaves
  running below pytest is killed, and the test fails naming it. pytest is made a child
  subreaper, so a process whose parent died (a shell's background job, pip under a killed
  install.sh) is found too: it becomes pytest's child instead of init's.

Registered by tests/conftest.py (`pytest_plugins`); tests/test_setup.py runs it on a failing
test in a pytest of its own.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

PR_SET_CHILD_SUBREAPER = 36

Process = tuple[int, int]  # (pid, start time): a pid may be used again once its process is gone

#: Processes a module or session fixture started (a head office shared by a module's tests):
#: the per-test check leaves them and what runs below them; the end of the session does not.
_OUTLIVE_THE_TEST: set[int] = set()


def outlives_the_test(process: subprocess.Popen[Any]) -> None:
    """Mark a process a module- or session-scoped fixture started and will end itself."""
    _OUTLIVE_THE_TEST.add(process.pid)


def _table() -> dict[int, tuple[int, str, int, int]]:
    """Every process: pid -> (parent pid, state, start time, process group), from /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                data = stat.read()
        except OSError:
            continue  # ended meanwhile
        # pid (comm) state ppid ... starttime (field 22); comm may hold spaces and parentheses
        fields = data[data.rindex(b")") + 2 :].split()
        found[int(entry.name)] = (
            int(fields[1]),
            fields[0].decode(),
            int(fields[19]),
            int(fields[2]),
        )
    return found


def running_below(
    outside: set[Process] | None = None, *, spare_fixtures: bool = False
) -> set[Process]:
    """The processes below pytest that still run (zombies do not), but for those `outside`
    and what runs below them (and, with `spare_fixtures`, those longer-lived fixtures started)."""
    table = _table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, *_) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: set[Process] = set()
    stack = [os.getpid()]
    while stack:
        for pid in children.get(stack.pop(), ()):
            process = (pid, table[pid][2])
            if outside and process in outside:
                continue
            if spare_fixtures and pid in _OUTLIVE_THE_TEST:
                continue
            stack.append(pid)
            if table[pid][1] not in "ZX":
                found.add(process)
    return found


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def kill(processes: set[Process]) -> list[str]:
    """SIGKILL each process (and its group, when it leads one of its own) and reap those that
    are pytest's children; returns what each was running."""
    commands = [f"pid {pid}: {_command(pid)}" for pid, _ in sorted(processes)]
    ours = os.getpgrp()
    for pid, _ in processes:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(pid) == pid != ours:
                os.killpg(pid, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
    # Reap them: pytest's children now, and the others once their killed parent is gone and
    # they are pytest's (it is their subreaper); give up after a while on any other.
    left = {pid for pid, _ in processes}
    deadline = time.monotonic() + 10
    while left and time.monotonic() < deadline:
        for pid in list(left):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    left.discard(pid)
            except ChildProcessError:
                if not os.path.exists(f"/proc/{pid}"):
                    left.discard(pid)
        time.sleep(0.01)
    return commands


def end(process: subprocess.Popen[Any]) -> None:
    """Kill `process` (its whole group when it has one of its own) unless it was reaped
    already, reap it and close its pipes."""
    if process.returncode is None:  # not reaped: its pid (and group id) is still its own
        group = None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(process.pid) == process.pid != os.getpgrp():
                group = process.pid
                os.killpg(group, signal.SIGKILL)
            else:
                process.kill()
        process.wait()
        if group is not None:
            _wait_for_group(group)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _wait_for_group(group: int, timeout: float = 10.0) -> None:
    """Until no process of `group` runs (SIGKILL takes effect a moment later); reaps those
    that became pytest's children when their parent died (it is their subreaper)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        members = {pid: row for pid, row in _table().items() if row[3] == group}
        for pid, (ppid, state, _, _) in members.items():
            if state in "ZX" and ppid == os.getpid():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        if all(state in "ZX" for _, state, _, _ in members.values()):
            return
        time.sleep(0.01)


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[Any]]]:
    """`spawn(args, **popen_options)`: a Popen in a session of its own, ended with the test."""
    started: list[subprocess.Popen[Any]] = []

    def start(args: Any, **options: Any) -> subprocess.Popen[Any]:
        process: subprocess.Popen[Any] = subprocess.Popen(
            args, start_new_session=True, preexec_fn=_terminal_signals, **options
        )
        started.append(process)
        return process

    yield start
    for process in started:
        end(process)


def _terminal_signals() -> None:
    """In the child, before exec: SIGINT and SIGQUIT back to their default dispositions."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def pytest_configure(config: pytest.Config) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _has_children() -> bool:
    """Whether pytest has any child, running or not (cheap: most tests start none)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)  # reaps nothing
    except ChildProcessError:
        return False
    return True


@pytest.fixture(autouse=True)
def _no_leftover_processes() -> Iterator[None]:
    before = running_below() if _has_children() else set()
    yield
    left = running_below(outside=before, spare_fixtures=True) if _has_children() else set()
    deadline = time.monotonic() + 1.0  # a process killed a moment ago may not be gone yet
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left &= running_below(outside=before, spare_fixtures=True)
    if left:
        killed = kill(left)
        pytest.fail(
            "the test left processes running (killed now; end them in a fixture or finalizer,"
            " e.g. the `spawn` fixture):\n  " + "\n  ".join(killed),
            pytrace=False,
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """What module and session fixtures left running is killed too, and fails the run."""
    left = running_below()
    if left:
        killed = kill(left)
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                "processes left running at the end of the session (killed now):\n  "
                + "\n  ".join(killed),
                red=True,
            )
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
