"""Request ids: a write done once, whatever fails.

A command that carries a request id claims it in the transaction of its first event (the claim
commits or rolls back with the events), and its answer is kept afterwards. The same id again
finds the claim: the command is not run a second time, and the first answer (or, when the
process died before it could answer, the events it recorded) is given back.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

#: The request id of the command running in this context (a thread, or a CLI process).
current: ContextVar[str | None] = ContextVar("booth_request_id", default=None)

MAX_LENGTH = 128


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

    def events(self) -> str:
        if self.origin is None or self.first_seq is None:
            return "no events"
        last = self.last_seq or self.first_seq
        span = f"{self.first_seq}" if last == self.first_seq else f"{self.first_seq}-{last}"
        return f"events {self.origin}:{span}"


@contextmanager
def running(request_id: str | None) -> Iterator[None]:
    """Run the block as request `request_id` (None: no id, nothing is claimed)."""
    token = current.set(request_id)
    try:
        yield
    finally:
        current.reset(token)


def claim_in_transaction(conn: sqlite3.Connection, origin: str, seq: int, at: str) -> None:
    """Inside the transaction that appends `origin:seq`: claim the running request, if any."""
    request_id = current.get()
    if request_id is None:
        return
    conn.execute(
        "INSERT INTO requests (request_id, origin, first_seq, last_seq, claimed_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (request_id) DO UPDATE SET "
        "last_seq = excluded.last_seq, origin = coalesce(origin, excluded.origin), "
        "first_seq = coalesce(first_seq, excluded.first_seq)",
        (request_id, origin, seq, seq, at),
    )


def find(conn: sqlite3.Connection, request_id: str) -> Claim | None:
    row = conn.execute(
        "SELECT origin, first_seq, last_seq, exit_code, answer FROM requests WHERE request_id = ?",
        (request_id,),
    ).fetchone()
    if row is None:
        return None
    answer = None
    if row[3] is not None:
        text = json.loads(row[4] or "{}")
        answer = Answer(int(row[3]), str(text.get("stdout", "")), str(text.get("stderr", "")))
    return Claim(request_id, row[0], row[1], row[2], answer)


def record_answer(conn: sqlite3.Connection, request_id: str, answer: Answer) -> None:
    """Keep the answer given to `request_id` (a claim made by its events, or a new row for a
    command that recorded none, such as a refusal)."""
    body = json.dumps({"stdout": answer.stdout, "stderr": answer.stderr})
    conn.execute(
        "INSERT INTO requests (request_id, exit_code, answer) VALUES (?, ?, ?) "
        "ON CONFLICT (request_id) DO UPDATE SET exit_code = excluded.exit_code, "
        "answer = excluded.answer",
        (request_id, answer.exit_code, body),
    )


def keep_answer_at(ledger_path: str, request_id: str, answer: Answer) -> None:
    """Keep an answer after the command closed its station (a command run in its own process,
    which has just released the station's lock): a short connection of its own."""
    conn = sqlite3.connect(ledger_path, isolation_level=None, timeout=10.0)
    try:
        conn.execute("BEGIN IMMEDIATE")
        record_answer(conn, request_id, answer)
        conn.execute("COMMIT")
    finally:
        conn.close()
