"""`booth verify`: every origin's chain and signatures, checked from the hall's public key alone."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pos.errors import IntegrityFailure
from pos.ledger import damage
from pos.ledger.events import GENESIS, Event
from pos.ledger.keys import Certificate, PublicKey
from pos.ledger.store import INTRODUCING_KINDS, Ledger

CERTIFYING_KINDS = INTRODUCING_KINDS | {"StationAdded"}


@dataclass(frozen=True)
class Problem:
    # edited, bad-signature, gap, fork, truncated, unknown-origin, bad-certificate; malformed
    # (SQLite's integrity check), projection (--deep: a table differs from a fresh rebuild)
    kind: str
    origin: str
    seq: int
    detail: str

    def __str__(self) -> str:
        if not self.origin:  # the file or a table, not an event
            return f"{self.kind}: {self.detail}"
        return f"{self.kind}: {self.origin}:{self.seq}: {self.detail}"


@dataclass
class OriginSummary:
    events: int = 0
    last_seq: int = 0


@dataclass
class Report:
    origins: dict[str, OriginSummary] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    digest: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "origins": {
                origin: {"events": s.events, "last_seq": s.last_seq}
                for origin, s in sorted(self.origins.items())
            },
            "digest": self.digest,
            "problems": [
                {"kind": p.kind, "origin": p.origin, "seq": p.seq, "detail": p.detail}
                for p in self.problems
            ],
        }


def _certified_keys(ledger: Ledger, problems: list[Problem]) -> dict[str, PublicKey]:
    """Every station key that a hall-signed certificate in the log vouches for."""
    keys: dict[str, PublicKey] = {}
    placeholders = ",".join("?" for _ in CERTIFYING_KINDS)
    rows = ledger.conn.execute(
        f"SELECT origin, seq, body FROM events WHERE type IN ({placeholders}) ORDER BY rowid",
        tuple(CERTIFYING_KINDS),
    )
    for origin, seq, body in rows:
        try:
            cert = Certificate.from_dict(json.loads(body).get("certificate"))
        except (IntegrityFailure, ValueError, AttributeError) as exc:
            problems.append(Problem("bad-certificate", origin, seq, str(exc)))
            continue
        if not cert.is_signed_by(ledger.hall_public_key):
            problems.append(
                Problem(
                    "bad-certificate",
                    origin,
                    seq,
                    f"certificate of {cert.station} is not signed by this hall",
                )
            )
            continue
        keys.setdefault(cert.station, PublicKey(cert.key))
    return keys


def _counting(
    total: int, progress: Callable[[int, int], None]
) -> Callable[[Iterable[Event]], Iterator[Event]]:
    """A wrapper of event streams that tells `progress` how many of `total` went by, in all."""
    done = 0

    def count(events: Iterable[Event]) -> Iterator[Event]:
        nonlocal done
        for event in events:
            yield event
            done += 1
            if done % PROGRESS_EVERY == 0 or done == total:
                progress(min(done, total), total)

    return count


def _check_origin(
    origin: str, events: Iterable[Event], key: PublicKey | None
) -> tuple[OriginSummary, Problem | None]:
    """The origin's intact prefix, and the first thing wrong after it (if any)."""
    summary = OriginSummary()
    prev_hash = GENESIS
    for event in events:
        expected = summary.last_seq + 1
        problem = None
        if event.seq != expected:
            problem = Problem(
                "gap",
                origin,
                expected,
                f"seq {expected} is missing (the log jumps from {expected - 1} to {event.seq})",
            )
        elif not event.hash_matches():
            problem = Problem(
                "edited", origin, event.seq, f"its content does not match its hash ({event.kind})"
            )
        elif key is None:
            problem = Problem(
                "unknown-origin", origin, event.seq, "no hall-signed certificate for this station"
            )
        elif not event.signed_by(key):
            problem = Problem(
                "bad-signature", origin, event.seq, f"the signature does not verify ({event.kind})"
            )
        elif event.prev != prev_hash:
            problem = Problem(
                "fork",
                origin,
                event.seq,
                f"it does not follow seq {event.seq - 1} (a different history)",
            )
        if problem is not None:
            return summary, problem
        summary.events += 1
        summary.last_seq = event.seq
        prev_hash = event.hash
    return summary, None


def integrity_problems(ledger: Ledger) -> list[Problem]:
    """SQLite's own check of the file (every page, index and constraint): what it says is
    wrong, as problems of kind `malformed`."""
    try:
        rows = [str(row[0]) for row in ledger.conn.execute("PRAGMA integrity_check(20)")]
    except sqlite3.DatabaseError as exc:
        rows = [str(exc)]
    if rows == ["ok"]:
        if ledger.path is not None:
            damage.unmark(ledger.path)  # whole again (a file repaired in place)
        return []
    if ledger.path is not None:
        failed = damage.unreadable(ledger.path)
        if failed is not None:  # SQLite calls an EIO "malformed" too
            raise damage.disk_failure(ledger.path, failed)
        damage.mark(ledger.path, "; ".join(rows[:3]))
    return [
        Problem(
            "malformed",
            "",
            0,
            f"SQLite finds the file damaged: {'; '.join(rows[:3])}"
            + (f" (and {len(rows) - 3} more)" if len(rows) > 3 else "")
            + ": restore the station from a backup (docs/backup-and-restore.md)",
        )
    ]


def projection_problems(ledger: Ledger) -> list[Problem]:
    """Every projection table against a fresh rebuild of the same log, in a scratch copy of
    the file: rows deleted, added or changed in a p_* table show as a `projection` problem."""
    conn = ledger.conn
    with tempfile.TemporaryDirectory(prefix="booth-verify-") as scratch:
        copy = Path(scratch) / "ledger.db"
        # The rows and the copy from one read transaction: a station writing meanwhile
        # changes neither.
        began = not conn.in_transaction
        if began:
            conn.execute("BEGIN")
        try:
            actual = ledger.projection_rows()
            target = sqlite3.connect(copy, isolation_level=None)
            try:
                conn.backup(target, pages=-1)
            finally:
                target.close()
        finally:
            if began:
                conn.execute("COMMIT")
        fresh = Ledger.open(
            copy, station=ledger.station, key=None, hall_public_key=ledger.hall_public_key
        )
        try:
            fresh.rebuild()
            expected = fresh.projection_rows()
        finally:
            fresh.close()
    problems = []
    for table in sorted(set(expected) | set(actual)):
        want, have = expected.get(table, []), actual.get(table, [])
        if want == have:
            continue
        missing = sum((_multiset(want) - _multiset(have)).values())
        extra = sum((_multiset(have) - _multiset(want)).values())
        problems.append(
            Problem(
                "projection",
                "",
                0,
                f"{table} differs from a rebuild of the log: {missing} row(s) missing, "
                f"{extra} row(s) that the log does not give (run 'booth rebuild' once the "
                "log verifies)",
            )
        )
    return problems


def _multiset(rows: list[tuple[Any, ...]]) -> Counter[str]:
    return Counter(repr(row) for row in rows)


PROGRESS_EVERY = 1000  # events between two progress calls


def verify(
    ledger: Ledger,
    *,
    deep: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Every origin's chain and signatures (after SQLite's integrity check of the file); with
    `deep`, also every projection against a fresh rebuild. `progress(done, total)`: events
    checked so far."""
    report = Report()
    report.problems.extend(integrity_problems(ledger))
    if report.problems:
        return report  # a damaged file: what the log says cannot be trusted to be read
    try:
        _verify_log(ledger, report, progress)
        if deep and report.ok:
            report.problems.extend(projection_problems(ledger))
    except sqlite3.DatabaseError as exc:
        if ledger.path is not None and damage.says_malformed(exc):
            failed = damage.unreadable(ledger.path)
            if failed is not None:
                raise damage.disk_failure(ledger.path, failed) from None
        report.problems.append(Problem("malformed", "", 0, f"SQLite could not read it: {exc}"))
    return report


def _verify_log(
    ledger: Ledger, report: Report, progress: Callable[[int, int], None] | None
) -> None:
    counted = _counting(ledger.count(), progress) if progress is not None else None
    keys = _certified_keys(ledger, report.problems)
    origins = [row[0] for row in ledger.conn.execute("SELECT DISTINCT origin FROM events")]
    recorded_heads = dict(
        ledger.conn.execute("SELECT origin, last_seq FROM origin_heads").fetchall()
    )
    digest = hashlib.sha256()
    for origin in sorted(set(origins) | set(recorded_heads)):
        events: Iterable[Event] = ledger.origin_events(origin)
        if counted is not None:
            events = counted(events)
        summary, problem = _check_origin(origin, events, keys.get(origin))
        report.origins[origin] = summary
        if problem is not None:
            report.problems.append(problem)
        recorded = recorded_heads.get(origin, 0)
        if problem is None and recorded > summary.last_seq:
            report.problems.append(
                Problem(
                    "truncated",
                    origin,
                    summary.last_seq + 1,
                    f"the log ends at seq {summary.last_seq} but seq {recorded} was recorded",
                )
            )
    for row in ledger.conn.execute(
        "SELECT kind, origin, seq, detail FROM incidents WHERE kind = 'fork' ORDER BY id"
    ):
        report.problems.append(
            Problem("fork", row[1], row[2], f"two different signed events were offered: {row[3]}")
        )
    for origin, seq, event_hash in ledger.conn.execute(
        "SELECT origin, seq, hash FROM events ORDER BY origin, seq"
    ):
        digest.update(f"{origin}:{seq}:{event_hash}\n".encode())
    report.digest = digest.hexdigest()
