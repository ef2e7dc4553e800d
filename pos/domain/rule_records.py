"""Where the record begins for each rule a release brought (issue #27): rules that arrived with a
release judge only what happened after it. Pure values and functions, standard library only.

A station says which release made it (its first event's `release`; none: 0.1.0, the one release
that wrote none) and, the first time it records an event under a later release, records
`ReleaseInstalled` before it. For rule R brought by release V, the record at station S begins:

- at S's first event, when S began under V or later;
- else right after S's first `ReleaseInstalled` whose release is V or later: every event S
  records after it was written by V or later, every event before it by an older release;
- nowhere yet, when S has recorded nothing under V or later (it still runs an older release,
  or its upgrade has not reached this station by sync).

An event of S is judged by R only where R's record at S has begun. When every station of the
hall began under V or later, R's record begins with the hall and nothing needs saying.

Only rules whose judgement of the past depends on what a release started to refuse or keep are
listed here. The deposit deadline (11VAC20-20-80) and the punch confirmation (C2) judged 0.1.0's
events too: their records begin with the hall.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The release of a station whose first event names none: 0.1.0 wrote no release anywhere.
UNRECORDED_RELEASE = "0.1.0"


def release_key(release: str) -> tuple[int, ...]:
    """ "0.2.0" -> (0, 2, 0), ordered as releases are; ValueError naming anything else."""
    parts = release.split(".")
    if not 1 <= len(parts) <= 4 or not all(p.isdigit() and len(p) <= 6 for p in parts):
        raise ValueError(f"{release[:40]!r} is not a release (digits and dots, e.g. 0.2.0)")
    return tuple(int(p) for p in parts)


def release_problem(value: object) -> str | None:
    """For an event body's check: None when `value` is a release's text."""
    if not isinstance(value, str):
        return f"is {type(value).__name__}, not a release"
    try:
        release_key(value)
    except ValueError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class RuleRecord:
    """A rule whose record began with a release: `rule` as refusals cite it, `what` it judges
    in words, `release` the release that brought it."""

    key: str
    rule: str
    what: str
    release: str


#: PAID for a bingo game's prize. 0.1.0 let a game's prize be paid in several payments (a
#: decision pool in parts adding up to it, G5; a regular game once per winner, as each came
#: up); 0.2.0 pays it once, a split being one payment. Two payments of one game under 0.1.0
#: are its rules followed, not a prize paid twice. A second payment of a ticket, seal line,
#: chest, raffle prize or voucher was refused by 0.1.0 too: found in 0.1.0's history, it is a
#: true finding and stays judged from the hall's creation.
PAID_BINGO = RuleRecord("paid-bingo", "PAID", "a bingo game's prize paid once", "0.2.0")

RULE_RECORDS: tuple[RuleRecord, ...] = (PAID_BINGO,)


@dataclass(frozen=True)
class Release:
    """A release a station recorded: at its first event (`introduced`: the release it began
    under) or by ReleaseInstalled. `when`: the hall's clock where it was recorded ("2026-12-05
    18:00"), or None for an event that carries none."""

    origin: str
    seq: int
    release: str
    introduced: bool
    hlc: str
    when: str | None


@dataclass(frozen=True)
class RecordStart:
    """Where `record` begins at `station`: after event `seq` (its ReleaseInstalled), or not yet
    (`seq` None: nothing of the station is judged by the rule)."""

    record: RuleRecord
    station: str
    seq: int | None
    release: str | None
    when: str | None


def starts(record: RuleRecord, releases: Iterable[Release]) -> tuple[RecordStart, ...]:
    """Where `record` begins at each station that did not begin under its release or later,
    by station; empty when every station did (the record begins with the hall)."""
    wanted = release_key(record.release)
    by_station: dict[str, list[Release]] = {}
    for item in releases:
        by_station.setdefault(item.origin, []).append(item)
    out = []
    for station, items in sorted(by_station.items()):
        items.sort(key=lambda r: r.seq)
        first = items[0]
        if first.introduced and release_key(first.release) >= wanted:
            continue
        later = next(
            (r for r in items if not r.introduced and release_key(r.release) >= wanted), None
        )
        if later is None:
            out.append(RecordStart(record, station, None, None, None))
        else:
            out.append(RecordStart(record, station, later.seq, later.release, later.when))
    return tuple(out)


def judged(found: Sequence[RecordStart], origin: str, seq: int) -> bool:
    """Whether event `origin:seq` is judged by the rule whose starts are `found`: its station
    is not among them (its record began with it), or the event follows the start there."""
    for start in found:
        if start.station == origin:
            return start.seq is not None and seq > start.seq
    return True


def sentence(found: Sequence[RecordStart]) -> str | None:
    """One rule's starts in words: "the record of rule PAID (a bingo game's prize paid once)
    begins 2026-12-05 18:10 at manager (Booth 0.2.0); not yet at booth-1 (...)". None when
    the record begins with the hall."""
    if not found:
        return None
    record = found[0].record
    begun = [
        f"{s.when or 'at its upgrade'} at {s.station} (Booth {s.release})"
        for s in found
        if s.seq is not None
    ]
    waiting = [s.station for s in found if s.seq is None]
    parts = [f"begins {'; '.join(begun)}"] if begun else []
    if waiting:
        parts.append(
            f"{'not yet' if begun else 'has not begun'} at {', '.join(waiting)} (nothing recorded "
            f"there under Booth {record.release} or later is held here)"
        )
    return f"the record of rule {record.rule} ({record.what}) {'; '.join(parts)}"
