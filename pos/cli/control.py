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

Files the command line names are the client's: those it sends along are given to the command
as private copies, and what the command writes (a PDF, an export) is sent back for the client
to write where it asked. The owner never opens a client's path, so its account lends nobody
its rights. Peer credentials are checked: root, the owner's own user, or a member of the station
directory's group.
"""

from __future__ import annotations

import base64
import logging
import os
import queue
import shutil
import socket
import socketserver
import struct
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from pos.cli.capture import capturing
from pos.cli.common import Access, CliState, Owner, command_access, print_queued_receipts
from pos.cli.control_socket import Address, read_message, send_message, socket_path
from pos.cli.request_ids import BadRequestId, split_request_id
from pos.clock import NOW_VARIABLE, clock_for
from pos.errors import BoothError
from pos.ledger import Ledger, requests
from pos.services import money_path
from pos.services.station import LEDGER_FILE, Station
from pos.services.worker import StationWorker

log = logging.getLogger("booth.control")

_HELP = frozenset({"-h", "--help", "--version"})
_READERS = 2


# -- what a command line is ---------------------------------------------------------------------


def resolve(args: list[str]) -> tuple[click.Command, dict[str, Any]]:
    """The command a command line names, with its parameters (parsed leniently: nothing is
    checked or run)."""
    from pos.cli.main import cli

    ctx = cli.make_context("booth", list(args), resilient_parsing=True)
    command: click.Command = cli
    while isinstance(command, click.Group):
        rest = [*ctx._protected_args, *ctx.args]
        if not rest:
            break
        name, sub, rest = command.resolve_command(ctx, rest)
        if sub is None or name is None:
            break
        ctx = sub.make_context(name, rest, parent=ctx, resilient_parsing=True)
        command = sub
    return command, dict(ctx.params)


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


@dataclass
class Sandbox:
    """The command's files, kept apart from the client's paths (see the module's text)."""

    directory: Path
    cwd: str
    #: (path given to the command, the client's path) for what the command may write
    outputs: list[tuple[Path, str]] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)

    def map_args(
        self,
        args: list[str],
        command: click.Command,
        params: dict[str, Any],
        uploads: dict[str, str],
    ) -> list[str]:
        values: set[str] = set()
        for param in command.params:
            if isinstance(param.type, click.Path | click.File):
                given = params.get(param.name or "")
                for value in given if isinstance(given, list | tuple) else [given]:
                    if value is not None and str(value) != "-":
                        values.add(os.path.normpath(str(value)))
        mapped: dict[str, str] = {}
        out = []
        for token in args:
            prefix, value = "", token
            if token.startswith("--") and "=" in token:
                prefix, value = token.split("=", 1)[0] + "=", token.split("=", 1)[1]
            if value and os.path.normpath(value) in values:
                if value not in mapped:
                    mapped[value] = self._place(value, uploads.get(value), len(mapped))
                out.append(prefix + mapped[value])
            else:
                out.append(token)
        return out

    def _place(self, value: str, upload: str | None, n: int) -> str:
        client_path = os.path.normpath(os.path.join(self.cwd, value))
        slot = self.directory / f"f{n}"
        slot.mkdir(mode=0o700)
        here = slot / (os.path.basename(client_path.rstrip("/")) or "file")
        if upload is not None:
            here.write_bytes(base64.b64decode(upload))
        else:
            self.outputs.append((here, client_path))
        self.renames[str(here)] = value  # said as the client said it
        return str(here)

    def collect(self) -> list[dict[str, Any]]:
        files: list[dict[str, Any]] = []
        for here, client_path in self.outputs:
            if here.is_file():
                files.append(self._file(here, client_path))
            elif here.is_dir():
                for path in sorted(p for p in here.rglob("*") if p.is_file()):
                    files.append(
                        self._file(path, os.path.join(client_path, str(path.relative_to(here))))
                    )
        return files

    @staticmethod
    def _file(path: Path, client_path: str) -> dict[str, Any]:
        return {
            "path": client_path,
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


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        self.server.control.handle(self.connection, self.rfile)


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
        self._readers: queue.LifoQueue[Ledger] = queue.LifoQueue()
        self._reader_count = 0
        self._reader_lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._station: Station | None = None

    # -- lifetime ---------------------------------------------------------------------------

    def start(self) -> None:
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
        while not self._readers.empty():
            self._readers.get_nowait().close()

    # -- one connection ---------------------------------------------------------------------

    def handle(self, conn: socket.socket, stream: Any) -> None:
        refusal = self._refusal(conn)
        try:
            if refusal is not None:
                log.warning("control socket: %s", refusal)
                send_message(conn, {"refused": refusal})
                return
            try:
                request = read_message(stream)
            except ValueError as exc:
                send_message(conn, {"exit": 2, "stdout": "", "stderr": f"booth: {exc}\n"})
                return
            if request is None:
                return
            send_message(conn, self.answer(request))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away; a write it asked for is done and its answer kept

    def _refusal(self, conn: socket.socket) -> str | None:
        pid, uid, gid = _peer(conn)
        if uid in (0, os.geteuid()) or gid == self.group or self.group in _groups_of(pid):
            return None
        return (
            f"uid {uid} (pid {pid}) may not use station {self.directory}: only root, the "
            "station's own user and members of its group may"
        )

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            args = [str(a) for a in request["argv"]]
            _, explicit = split_request_id(["--request-id", str(request["request_id"])])
            env = {str(k): str(v) for k, v in dict(request.get("env") or {}).items()}
            cwd = str(request.get("cwd") or "/")
            uploads = {str(k): str(v) for k, v in dict(request.get("uploads") or {}).items()}
        except (KeyError, TypeError, ValueError, BadRequestId) as exc:
            return {"exit": 2, "stdout": "", "stderr": f"booth: a malformed request: {exc}\n"}
        assert explicit is not None
        if not args or _HELP.intersection(args):
            return {"run_here": True}
        try:
            command, params = resolve(args)
        except Exception:  # a usage error: said where it is run, as it would be
            return {"run_here": True}
        access = command_access(command)
        if access is Access.LOCAL or isinstance(command, click.Group):
            return {"run_here": True}
        args = with_environment_options(args, command, env)
        with sandbox(cwd) as box:
            try:
                args = box.map_args(args, command, params, uploads)
            except OSError as exc:
                return {"exit": 3, "stdout": "", "stderr": f"booth: {exc}\n"}
            if access is Access.READ:
                code, out, err = self._read(args, env)
            else:
                code, out, err = self._write(args, explicit, env)
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
        try:
            return self._readers.get_nowait()
        except queue.Empty:
            pass
        with self._reader_lock:
            if self._reader_count >= _READERS:
                return self._readers.get()
            self._reader_count += 1
        st = self._station
        assert st is not None
        return Ledger.open_read_only(
            self.directory / LEDGER_FILE, station=st.id, hall_public_key=st.config.hall_public_key
        )

    def _read(self, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
        from pos.cli.main import execute, report_error

        assert self._station is not None
        ledger = self._reader()
        try:
            with capturing() as out:
                try:
                    view = self._on_clock(self._station.on_ledger(ledger), env)
                except BoothError as error:
                    code = report_error(error, "--json" in args)
                else:
                    code = execute(args, CliState(hall=self.directory, owner=Owner(view, _nothing)))
        finally:
            ledger.roll_back_open_transaction()
            self._readers.put(ledger)
        return code, out.stdout.getvalue(), out.stderr.getvalue()

    def _write(self, args: list[str], request_id: str, env: dict[str, str]) -> tuple[int, str, str]:
        from pos.cli.main import execute, keeps_answer, replay, report_error

        def job(st: Station) -> tuple[int, str, str]:
            claim = money_path.done_before(st, request_id)
            cli_state = CliState(hall=self.directory, request_id=request_id)
            with capturing() as out:
                if claim is not None:
                    code = replay(claim, "--json" in args)
                else:
                    try:
                        view = self._on_clock(st, env)
                    except BoothError as error:
                        code = report_error(error, "--json" in args)
                    else:
                        cli_state.owner = Owner(view, self.after_write)
                        code = execute(args, cli_state)
            stdout, stderr = out.stdout.getvalue(), out.stderr.getvalue()
            if claim is None and cli_state.wrote and keeps_answer(code):
                try:
                    with st.ledger.transaction():
                        requests.record_answer(
                            st.ledger.conn, request_id, requests.Answer(code, stdout, stderr)
                        )
                except BoothError as error:
                    log.error("the answer to request %s was not kept: %s", request_id, error)
            return code, stdout, stderr

        return self.worker.call(job, timeout=None)


def _nothing(_st: Station) -> None:
    pass
