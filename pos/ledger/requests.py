"""Request ids: a write done once, whatever fails.

A command that carries a request id claims it in the transaction of its first event (the claim
commits or rolls back with the events), and its answer is kept afterwards. The same id again
finds the claim: the command is not run a second time, and the first answer (or, when the
process died before it could answer, the events it recorded) is given back. The claim keeps the
command line it was made for: the same id for another command is refused (exit 2), naming it.

Answers are kept for the newest KEEP_ANSWERS requests (days of a busy hall's writes; a client
retries for 30 seconds). Past that, a claim that recorded events keeps only its events (the id
is still done, and says so); one that recorded none (a refusal) is forgotten.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

#: The request id of the command running in this context (a thread, or a CLI process).
current: ContextVar[str | None] = ContextVar("booth_request_id", default=None)

MAX_LENGTH = 128
#: Answers kept (the newest), and how often (in answers recorded) older ones are pruned.
KEEP_ANSWERS = 20_000
PRUNE_EVERY = 500
#: The longest command line kept to name a request's command (the fingerprint covers all).
SHOWN_LENGTH = 300


@dataclass(frozen=True)
class Command:
    """The command a request id was claimed for: its line (as shown) and a digest of it."""

    line: str
    fingerprint: str

    @classmethod
    def of(cls, args: list[str]) -> Command:
        """The command line `args` (without --request-id), its leading --hall left out: the
        same command on the same station, however the station was named."""
        rest = list(args)
        while rest and rest[0].startswith("--hall"):
            rest = rest[1:] if "=" in rest[0] else rest[2:]
        rest = _without_personal_values(rest)
        line = " ".join(rest)
        digest = hashlib.sha256(json.dumps(rest).encode()).hexdigest()
        shown = line if len(line) <= SHOWN_LENGTH else line[: SHOWN_LENGTH - 3] + "..."
        return cls(shown, digest)


#: Options whose values name a person (an ID scan, a tax number, a date of birth, a PIN): a
#: claim keeps neither them nor a digest of them, which a dictionary of ID numbers would undo.
#: The same id for another buyer or winner is then not told apart; any other change is.
PERSONAL_OPTIONS = frozenset(
    {
        "--buyer",
        "--dob",
        "--guardian",
        "--id-number",
        "--licence",
        "--payee",
        "--pin",
        "--winner-address",
        "--winner-id",
        "--winner-name",
        "--winner-tin",
        "--witness",
    }
)
WITHHELD = "(withheld)"


def _without_personal_values(args: list[str]) -> list[str]:
    kept: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next:
            kept.append(WITHHELD)
            hide_next = False
            continue
        name, sep, _value = arg.partition("=")
        if name in PERSONAL_OPTIONS:
            if sep:
                kept.append(f"{name}={WITHHELD}")
            else:
                kept.append(arg)
                hide_next = True
            continue
        kept.append(arg)
    return kept


#: The command running in this context, kept with its claim.
current_command: ContextVar[Command | None] = ContextVar("booth_request_command", default=None)


@dataclass(frozen=True)
class Answer:
    exit_code: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Claim:
    request_id: str
    origin: str | None
    first_seq: int | None
    last_seq: int | None
    answer: Answer | None
    command: Command | None = None

    def other_command(self, command: Command | None) -> bool:
        """Whether `command` is another than the one this id was claimed for (unknown: no)."""
        return (
            command is not None
            and self.command is not None
            and command.fingerprint != self.command.fingerprint
        )

    def events(self) -> str:
        if self.origin is None or self.first_seq is None:
            return "no events"
        last = self.last_seq or self.first_seq
        span = f"{self.first_seq}" if last == self.first_seq else f"{self.first_seq}-{last}"
        return f"events {self.origin}:{span}"


@contextmanager
def running(request_id: str | None, command: Command | None = None) -> Iterator[None]:
    """Run the block as request `request_id` (None: no id, nothing is claimed), made for
    `command` (kept with the claim)."""
    token = current.set(request_id)
    command_token = current_command.set(command)
    try:
        yield
    finally:
        current_command.reset(command_token)
        current.reset(token)


def _body(command: Command | None, answer: Answer | None = None) -> str:
    body: dict[str, object] = {}
    if answer is not None:
        body.update(stdout=answer.stdout, stderr=answer.stderr)
    if command is not None:
        body["command"] = {"line": command.line, "fingerprint": command.fingerprint}
    return json.dumps(body)


def claim_in_transaction(conn: sqlite3.Connection, origin: str, seq: int, at: str) -> None:
    """Inside the transaction that appends `origin:seq`: claim the running request, if any."""
    request_id = current.get()
    if request_id is None:
        return
    conn.execute(
        "INSERT INTO requests (request_id, origin, first_seq, last_seq, claimed_at, answer) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO UPDATE SET "
        "last_seq = excluded.last_seq, origin = coalesce(origin, excluded.origin), "
        "first_seq = coalesce(first_seq, excluded.first_seq)",
        (request_id, origin, seq, seq, at, _body(current_command.get())),
    )


def find(conn: sqlite3.Connection, request_id: str) -> Claim | None:
    row = conn.execute(
        "SELECT origin, first_seq, last_seq, exit_code, answer FROM requests WHERE request_id = ?",
        (request_id,),
    ).fetchone()
    if row is None:
        return None
    text = json.loads(row[4] or "{}")
    answer = None
    if row[3] is not None:
        answer = Answer(int(row[3]), str(text.get("stdout", "")), str(text.get("stderr", "")))
    made_for = text.get("command")
    command = (
        Command(str(made_for["line"]), str(made_for["fingerprint"]))
        if isinstance(made_for, dict)
        else None
    )
    return Claim(request_id, row[0], row[1], row[2], answer, command)


def record_answer(
    conn: sqlite3.Connection, request_id: str, answer: Answer, command: Command | None = None
) -> None:
    """Keep the answer given to `request_id` for `command` (a claim made by its events, or a
    new row for a command that recorded none, such as a refusal); now and then, forget the
    answers older than the newest KEEP_ANSWERS."""
    row = conn.execute(
        "INSERT INTO requests (request_id, exit_code, answer) VALUES (?, ?, ?) "
        "ON CONFLICT (request_id) DO UPDATE SET exit_code = excluded.exit_code, "
        "answer = excluded.answer RETURNING rowid",
        (request_id, answer.exit_code, _body(command, answer)),
    ).fetchone()
    if row is not None and int(row[0]) % PRUNE_EVERY == 0:
        prune(conn)


def prune(conn: sqlite3.Connection, keep: int = KEEP_ANSWERS) -> None:
    """Forget the answers older than the newest `keep`: a claim that recorded events stays
    (its id is done), without its answer; one that recorded none goes."""
    edge = conn.execute(
        "SELECT rowid FROM requests WHERE exit_code IS NOT NULL ORDER BY rowid DESC "
        "LIMIT 1 OFFSET ?",
        (keep,),
    ).fetchone()
    if edge is None:
        return
    conn.execute(
        "DELETE FROM requests WHERE rowid <= ? AND exit_code IS NOT NULL AND first_seq IS NULL",
        (edge[0],),
    )
    conn.execute(
        "UPDATE requests SET exit_code = NULL, answer = NULL "
        "WHERE rowid <= ? AND exit_code IS NOT NULL",
        (edge[0],),
    )


def keep_answer_at(
    ledger_path: str, request_id: str, answer: Answer, command: Command | None = None
) -> None:
    """Keep an answer after the command closed its station (a command run in its own process,
    which has just released the station's lock): a short connection of its own."""
    conn = sqlite3.connect(ledger_path, isolation_level=None, timeout=10.0)
    try:
        conn.execute("BEGIN IMMEDIATE")
        record_answer(conn, request_id, answer, command)
        conn.execute("COMMIT")
    finally:
        conn.close()
