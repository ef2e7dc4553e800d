"""The station owner's control socket: the `booth` command line, served.

The station's owner (its screen, or `booth serve`) holds the station's lock and owns its writes.
It listens on a UNIX socket in the station directory (mode 0660, in the directory's group; never
on the network) and runs each command line a client sends:

- a write on the owner's worker, after everything queued before it, through the same command
  code as when nothing runs, with the client's request id: the same id again returns the first
  answer and records nothing new;
- a read on a read-only connection of its own, beside the worker (WAL lets it);
- a command that must run in the caller's process (it makes a station, starts an owner, or
  listens to a scanner) is sent back to be run there.

Files the command line names are the client's, each declared an input or an output
(pos.cli.file_params): the owner first answers with the command's inputs and outputs, and the
client sends the request again with the inputs' bytes and the outputs' states. Inputs are given
to the command as private copies; what it writes (a PDF, an export) is sent back for the client
to write where it asked, over what was there. The owner never opens a client's path, so its
account lends nobody its rights, and a forwarded command never asks for input on the owner's
side (a secret comes from the client, as a file it sends along). Peer credentials are checked:
root, the owner's own user, or a member of the station directory's group.

A request is at most MAX_REQUEST bytes, and a client that sends nothing for IDLE_TIMEOUT
seconds is let go; a bad request is answered with exit 2.
"""

from __future__ import annotations

import base64
import logging
import os
import shutil
import socket
import socketserver
import sqlite3
import struct
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from pos.cli import capture
from pos.cli.capture import capturing
from pos.cli.common import Access, CliState, Owner, command_access, print_queued_receipts
from pos.cli.control_socket import (
    IDLE_TIMEOUT,
    MAX_REQUEST,
    Address,
    FrameError,
    Silent,
    receive_message,
    send_message,
    socket_path,
)
from pos.cli.file_params import SECRET_FILES, PathRole, is_path, path_role
from pos.cli.request_ids import split_request_id
from pos.clock import NOW_VARIABLE, clock_for
from pos.errors import BoothError, StorageFailure
from pos.ledger import Ledger, requests
from pos.services import money_path
from pos.services.station import LEDGER_FILE, Station
from pos.services.worker import StationWorker

log = logging.getLogger("booth.control")

_HELP = frozenset({"-h", "--help", "--version"})
_READERS = 2
#: Seconds an answer may take to be sent whole (an export of a big ledger, read by the client).
_SEND_TIMEOUT = 300.0


# -- what a command line is ---------------------------------------------------------------------


@dataclass(frozen=True)
class Resolved:
    command: click.Command
    #: its path below `booth`: "report day"
    path: str
    params: dict[str, Any]


def resolve(args: list[str]) -> Resolved:
    """The command a command line names, with its parameters (parsed leniently: nothing is
    checked or run)."""
    from pos.cli.main import cli

    ctx = cli.make_context("booth", list(args), resilient_parsing=True)
    command: click.Command = cli
    names: list[str] = []
    while isinstance(command, click.Group):
        rest = [*ctx._protected_args, *ctx.args]
        if not rest:
            break
        name, sub, rest = command.resolve_command(ctx, rest)
        if sub is None or name is None:
            break
        ctx = sub.make_context(name, rest, parent=ctx, resilient_parsing=True)
        command = sub
        names.append(name)
    return Resolved(command, " ".join(names), dict(ctx.params))


class Undeclared(Exception):
    """A path option declared neither an input nor an output (a bug: pos.cli.file_params)."""


def named_paths(resolved: Resolved) -> dict[str, PathRole]:
    """Each path the command line names (as given), and whether it is an input or an output."""
    named: dict[str, PathRole] = {}
    for param in resolved.command.params:
        if not is_path(param):
            continue
        given = resolved.params.get(param.name or "")
        values = [v for v in (given if isinstance(given, list | tuple) else [given]) if v]
        values = [str(v) for v in values if str(v) != "-"]
        if not values:
            continue
        role = path_role(resolved.path, param)
        if role is None:
            raise Undeclared(f"{resolved.path} {param.name}")
        for value in values:
            named.setdefault(value, role)
    return named


@dataclass(frozen=True)
class ClientFiles:
    """What the client sent about the files its command line names."""

    #: input (as given) -> {"data": base64} | {"missing": "yes"} | {"problem": why}
    inputs: dict[str, dict[str, str]]
    #: output (as given) -> "absent" | "file" | "empty-dir" | "dir" | "other"
    outputs: dict[str, str]


@dataclass(frozen=True)
class Request:
    argv: list[str]
    request_id: str
    env: dict[str, str]
    cwd: str
    files: ClientFiles | None


def _strings(value: object, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise TypeError(f"{what} is not an object of strings: {str(value)[:80]!r}")
    return dict(value)


def parse_request(message: dict[str, Any]) -> Request:
    """A client's request, checked; TypeError or BadRequestId naming what is wrong."""
    argv = message.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv is not a list of strings: {str(argv)[:80]!r}")
    request_id = message.get("request_id")
    if not isinstance(request_id, str):
        raise TypeError(f"request_id is not a string: {str(request_id)[:80]!r}")
    _, checked = split_request_id(["--request-id", request_id])
    assert checked is not None
    cwd = message.get("cwd") or "/"
    if not isinstance(cwd, str):
        raise TypeError(f"cwd is not a string: {str(cwd)[:80]!r}")
    files = None
    if "files" in message:
        given = message["files"]
        if not isinstance(given, dict):
            raise TypeError(f"files is not an object: {str(given)[:80]!r}")
        inputs = given.get("inputs") or {}
        if not isinstance(inputs, dict):
            raise TypeError(f"files.inputs is not an object: {str(inputs)[:80]!r}")
        files = ClientFiles(
            {str(k): _strings(v, f"input {k}") for k, v in inputs.items()},
            _strings(given.get("outputs") or {}, "files.outputs"),
        )
    return Request(argv, checked, _strings(message.get("env") or {}, "env"), cwd, files)


def with_environment_options(
    args: list[str], command: click.Command, env: dict[str, str]
) -> list[str]:
    """The client's environment as options (`--as` from BOOTH_OPERATOR...): click reads the
    environment of the process it runs in, which here is the owner's."""
    out = list(args)
    for param in command.params:
        envvar = param.envvar
        names: list[str] = (
            [str(n) for n in envvar] if isinstance(envvar, list | tuple) else [str(envvar or "")]
        )
        value = next((env[name] for name in names if name and env.get(name)), None)
        if value is None or not isinstance(param, click.Option):
            continue
        given = any(
            token == opt or token.startswith(opt + "=") for token in args for opt in param.opts
        )
        if not given:
            out += [param.opts[0], value]
    return out


class InputProblem(Exception):
    """An input the client could not send (not a regular file, too large, unreadable)."""


#: In a directory output that held files at the client's: the command sees it is not empty.
_HELD = ".booth-client-files"


@dataclass
class Sandbox:
    """The command's files, kept apart from the client's paths (see the module's text)."""

    directory: Path
    cwd: str
    #: (path given to the command, the client's path) for what the command may write
    outputs: list[tuple[Path, str]] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)

    def map_args(
        self, args: list[str], named: dict[str, PathRole], files: ClientFiles
    ) -> list[str]:
        by_path = {os.path.normpath(value): value for value in named}
        mapped: dict[str, str] = {}
        out = []
        for token in args:
            prefix, value = "", token
            if token.startswith("--") and "=" in token:
                prefix, value = token.split("=", 1)[0] + "=", token.split("=", 1)[1]
            given = by_path.get(os.path.normpath(value)) if value else None
            if given is not None:
                if given not in mapped:
                    mapped[given] = self._place(given, named[given], files)
                out.append(prefix + mapped[given])
            else:
                out.append(token)
        return out

    def _slot(self, value: str) -> Path:
        client_path = os.path.normpath(os.path.join(self.cwd, value))
        slot = self.directory / f"f{len(self.renames)}"
        slot.mkdir(mode=0o700)
        here = slot / (os.path.basename(client_path.rstrip("/")) or "file")
        self.renames[str(here)] = value  # said as the client said it
        return here

    def _place(self, value: str, role: PathRole, files: ClientFiles) -> str:
        here = self._slot(value)
        if role is PathRole.INPUT:
            sent = files.inputs.get(value, {"missing": "yes"})
            if "problem" in sent:
                raise InputProblem(f"{value}: {sent['problem']}")
            if "data" in sent:
                here.write_bytes(base64.b64decode(sent["data"]))
            return str(here)
        state = files.outputs.get(value, "absent")
        if state in ("dir", "empty-dir"):
            here.mkdir()
            if state == "dir":
                (here / _HELD).touch()
        self.outputs.append((here, os.path.normpath(os.path.join(self.cwd, value))))
        return str(here)

    def secret(self, value: str, shown: str) -> str:
        """A file holding `value` (a client's secret), said as `shown` in messages."""
        slot = self.directory / f"f{len(self.renames)}"
        slot.mkdir(mode=0o700)
        here = slot / "secret"
        fd = os.open(here, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(value)
        self.renames[str(here)] = shown
        return str(here)

    def collect(self) -> list[dict[str, Any]]:
        files: list[dict[str, Any]] = []
        for here, client_path in self.outputs:
            if here.is_file():
                files.append({"path": client_path, **self._file(here)})
            elif here.is_dir():
                inside = sorted(p for p in here.rglob("*") if p.is_file())
                made = [p for p in inside if p != here / _HELD]
                if made:
                    entries = [{"name": str(p.relative_to(here)), **self._file(p)} for p in made]
                    files.append({"path": client_path, "kind": "dir", "files": entries})
        return files

    @staticmethod
    def _file(path: Path) -> dict[str, Any]:
        return {
            "data": base64.b64encode(path.read_bytes()).decode(),
            "mode": path.stat().st_mode & 0o777,
        }

    def unmap(self, text: str) -> str:
        for here in sorted(self.renames, key=len, reverse=True):
            text = text.replace(here, self.renames[here])
        return text


@contextmanager
def sandbox(cwd: str) -> Iterator[Sandbox]:
    directory = Path(tempfile.mkdtemp(prefix="booth-command-"))
    try:
        yield Sandbox(directory, cwd)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


# -- the server ---------------------------------------------------------------------------------


def _peer(conn: socket.socket) -> tuple[int, int, int]:
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return pid, uid, gid


def _groups_of(pid: int) -> set[int]:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("Groups:"):
                    return {int(g) for g in line.split()[1:]}
    except OSError:
        pass
    return set()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = False
    request_queue_size = 64
    control: ControlServer


class _Handler(socketserver.BaseRequestHandler):
    server: _Server
    request: socket.socket

    def handle(self) -> None:
        self.server.control.handle(self.request)


class ControlServer:
    """Serves `booth` commands on the station's control socket (start/stop)."""

    def __init__(
        self,
        directory: Path,
        worker: StationWorker,
        *,
        after_write: Callable[[Station], None] | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.worker = worker
        self.after_write = after_write or print_queued_receipts
        self.path = socket_path(self.directory)
        self.group = os.stat(self.directory).st_gid
        # at most _READERS read connections, each given back (or its slot, when it could not
        # be opened) whatever the read did
        self._reader_slots = threading.BoundedSemaphore(_READERS)
        self._idle_readers: list[Ledger] = []
        self._reader_lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._station: Station | None = None

    # -- lifetime ---------------------------------------------------------------------------

    def start(self) -> None:
        forbid_prompts()
        self._station = self.worker.wait_open()
        with Address(self.path) as address:
            self._remove_stale()
            server = _Server(address.address, _Handler, bind_and_activate=False)
            server.control = self
            try:
                server.server_bind()
                os.chmod(self.path, 0o660)
                with suppress(PermissionError):  # not in the directory's group: theirs alone
                    os.chown(self.path, -1, self.group)
                server.server_activate()
            except BaseException:
                server.server_close()
                raise
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="booth-control"
        )
        self._thread.start()

    def _remove_stale(self) -> None:
        # This process holds the station's lock: a socket left here is a dead owner's.
        with suppress(FileNotFoundError):
            self.path.unlink()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            with suppress(FileNotFoundError):
                self.path.unlink()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        with self._reader_lock:
            while self._idle_readers:
                self._idle_readers.pop().close()

    # -- one connection ---------------------------------------------------------------------

    def handle(self, conn: socket.socket) -> None:
        refusal = self._refusal(conn)
        try:
            if refusal is not None:
                log.warning("control socket: %s", refusal)
                send_message(conn, {"refused": refusal})
                return
            try:
                request = receive_message(conn, limit=MAX_REQUEST, idle=IDLE_TIMEOUT)
            except Silent:
                return  # an idle client is let go
            except FrameError as exc:
                send_message(conn, _usage(f"a bad request: {exc}"))
                return
            if request is None:
                return
            conn.settimeout(None)  # the command takes the time it takes
            try:
                answer = self.answer(request)
            except Exception as exc:  # a bug: said in one line to the client, in full in the log
                log.exception("control socket: the request failed")
                answer = {"exit": 3, "stdout": "", "stderr": f"booth: the owner failed: {exc}\n"}
            conn.settimeout(_SEND_TIMEOUT)  # a client that stops reading is let go too
            send_message(conn, answer)
        except OSError:
            pass  # the client went away; a write it asked for is done and its answer kept

    def _refusal(self, conn: socket.socket) -> str | None:
        pid, uid, gid = _peer(conn)
        if uid in (0, os.geteuid()) or gid == self.group or self.group in _groups_of(pid):
            return None
        return (
            f"uid {uid} (pid {pid}) may not use station {self.directory}: only root, the "
            "station's own user and members of its group may"
        )

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        try:
            request = parse_request(message)
        except (TypeError, ValueError) as exc:  # BadRequestId is a ValueError
            return _usage(f"a malformed request: {exc}")
        args = request.argv
        if not args or _HELP.intersection(args):
            return {"run_here": True}
        try:
            resolved = resolve(args)
        except Exception:  # a usage error: said where it is run, as it would be
            return {"run_here": True}
        command = resolved.command
        access = command_access(command)
        if access is Access.LOCAL or isinstance(command, click.Group):
            return {"run_here": True}
        try:
            named = named_paths(resolved)
        except Undeclared as exc:
            return _usage(f"{exc}: a path declared neither an input nor an output")
        if named and request.files is None:
            return {
                "files": {
                    "inputs": [v for v, role in named.items() if role is PathRole.INPUT],
                    "outputs": [v for v, role in named.items() if role is PathRole.OUTPUT],
                }
            }
        fingerprint = requests.Command.of(args)
        args = with_environment_options(args, command, request.env)
        with sandbox(request.cwd) as box:
            try:
                args = box.map_args(args, named, request.files or ClientFiles({}, {}))
                args, hint = _secrets(args, resolved, request.env, box)
            except InputProblem as exc:
                return _usage(str(exc))
            except OSError as exc:
                return {"exit": 3, "stdout": "", "stderr": f"booth: {exc}\n"}
            if access is Access.READ:
                code, out, err = self._read(args, request.env, hint)
            else:
                code, out, err = self._write(
                    args, request.request_id, request.env, fingerprint, hint
                )
            return {
                "exit": code,
                "stdout": box.unmap(out),
                "stderr": box.unmap(err),
                "outputs": box.collect() if code == 0 else [],
            }

    # -- running it -------------------------------------------------------------------------

    def _on_clock(self, st: Station, env: dict[str, str]) -> Station:
        if not env.get(NOW_VARIABLE):
            return st
        return st.with_clock(clock_for(st.hall.training, env))

    def _reader(self) -> Ledger:
        self._reader_slots.acquire()
        try:
            with self._reader_lock:
                if self._idle_readers:
                    return self._idle_readers.pop()
            st = self._station
            assert st is not None
            return Ledger.open_read_only(
                self.directory / LEDGER_FILE,
                station=st.id,
                hall_public_key=st.config.hall_public_key,
            )
        except BaseException:
            self._reader_slots.release()
            raise

    def _give_back(self, ledger: Ledger) -> None:
        with self._reader_lock:
            self._idle_readers.append(ledger)
        self._reader_slots.release()

    def _read(self, args: list[str], env: dict[str, str], hint: str) -> tuple[int, str, str]:
        from pos.cli.main import execute, report_error

        assert self._station is not None
        with capturing(no_input=hint) as out:
            try:
                ledger = self._reader()
            except BoothError as error:
                code = report_error(error, "--json" in args)
            except (sqlite3.Error, OSError) as exc:
                failure = StorageFailure(f"cannot open the ledger to read it: {exc}")
                code = report_error(failure, "--json" in args)
            else:
                try:
                    try:
                        view = self._on_clock(self._station.on_ledger(ledger), env)
                    except BoothError as error:
                        code = report_error(error, "--json" in args)
                    else:
                        state = CliState(hall=self.directory, owner=Owner(view, _nothing))
                        code = execute(args, state)
                finally:
                    with suppress(sqlite3.Error):
                        ledger.roll_back_open_transaction()
                    self._give_back(ledger)
        return code, out.stdout.getvalue(), out.stderr.getvalue()

    def _write(
        self,
        args: list[str],
        request_id: str,
        env: dict[str, str],
        command: requests.Command,
        hint: str,
    ) -> tuple[int, str, str]:
        from pos.cli.main import execute, keeps_answer, replay, report_error

        def job(st: Station) -> tuple[int, str, str]:
            claim = money_path.done_before(st, request_id)
            cli_state = CliState(hall=self.directory, request_id=request_id)
            with capturing(no_input=hint) as out:
                if claim is not None:
                    code = replay(claim, "--json" in args, command)
                else:
                    try:
                        view = self._on_clock(st, env)
                    except BoothError as error:
                        code = report_error(error, "--json" in args)
                    else:
                        cli_state.owner = Owner(view, self.after_write)
                        code = execute(args, cli_state, command)
            stdout, stderr = out.stdout.getvalue(), out.stderr.getvalue()
            if claim is None and cli_state.wrote and keeps_answer(code):
                try:
                    with st.ledger.transaction():
                        requests.record_answer(
                            st.ledger.conn,
                            request_id,
                            requests.Answer(code, stdout, stderr),
                            command,
                        )
                except BoothError as error:
                    log.error("the answer to request %s was not kept: %s", request_id, error)
            return code, stdout, stderr

        return self.worker.call(job, timeout=None)


def _nothing(_st: Station) -> None:
    pass


def _usage(message: str) -> dict[str, Any]:
    return {"exit": 2, "stdout": "", "stderr": f"booth: {message}\n"}


_ASK_NOTHING = (
    "a command sent to the station's running owner cannot ask for input there: give it in a "
    "file or in the environment (see the command's --help)"
)


def _secrets(
    args: list[str], resolved: Resolved, env: dict[str, str], box: Sandbox
) -> tuple[list[str], str]:
    """The command line with the client's secrets as files (a secret the client's environment
    holds, for a file option it did not give), and what to say if the command asks anyway."""
    hint = _ASK_NOTHING
    for param in resolved.command.params:
        variable = SECRET_FILES.get((resolved.path, param.name or ""))
        if variable is None or not isinstance(param, click.Option):
            continue
        hint = (
            "a command sent to the station's running owner cannot ask for input there: set "
            f"{variable} or give {param.opts[0]}"
        )
        if resolved.params.get(param.name or "") is None and env.get(variable):
            args = [*args, param.opts[0], box.secret(env[variable], f"${variable}")]
    return args, hint


_prompts_forbidden = threading.Lock()


def forbid_prompts() -> None:
    """Make click's prompts refuse, in a command run for a client (its terminal is not here:
    a prompt would wait on the owner's stdin, or abort), and work as before elsewhere."""
    with _prompts_forbidden:
        if getattr(click.termui.visible_prompt_func, "booth_guarded", False):
            return
        click.termui.visible_prompt_func = _guarded(click.termui.visible_prompt_func)
        click.termui.hidden_prompt_func = _guarded(click.termui.hidden_prompt_func)  # type: ignore[assignment]


class InputRefused(BoothError):
    """A command run for a client asked for input on the owner's side."""

    exit_code = 2


def _guarded(prompt: Callable[[str], str]) -> Callable[[str], str]:
    def guarded(text: str) -> str:
        reason = capture.input_refused()
        if reason is not None:
            raise InputRefused(reason)
        return prompt(text)

    guarded.booth_guarded = True  # type: ignore[attr-defined]
    return guarded
