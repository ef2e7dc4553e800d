"""Exceptions the manager decides, accepted, rejected or noted, on the record (ExceptionResolved),
with a note, once. Each is named by the event behind it (ORIGIN:SEQ):

- flags a station raised (double payment, probable counterfeit, device not returned): the flag;
- a ticket two stations paid while cut apart (`p_paid_twice`): the second payment;
- any other prize two stations paid while cut apart (a bingo game's, the chest, a raffle
  prize, a voucher: `p_prize_repeats`): the second payment;
- a purchase rule D would have refused had the station known (found after sync): the purchase;
- a near match to a worker that was refused until a manager decides: the refusal;
- an event another station's key signed that this station refused as evidence of a stolen or
  misused key (a body that does not fit its kind, a bad signature or hash, a certificate the
  hall did not sign): the refused event, which is not stored (its incident holds it).
- a fork this station refused (two instances of one station, e.g. a join bundle used twice):
  the event key both claim.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pos.domain.money import format_money
from pos.domain.rule_records import PAID_BINGO, judged
from pos.errors import BadInput, NotFound
from pos.ledger import incidents
from pos.ledger.projections import prizes as prizes_read
from pos.ledger.projections import roster as roster_read
from pos.ledger.projections import winners as winners_read
from pos.services import books_deposits, newer_release, rule_records
from pos.services.station import Station

DECISIONS = ("accepted", "rejected", "noted")
# Incidents a manager must see: what a peer sent that only a forged or misused key makes.
EVIDENCE_INCIDENTS = ("bad-body", "bad-signature", "bad-hash", "bad-certificate")


def parse_ref(text: str) -> tuple[str, int]:
    """`ORIGIN:SEQ`, the exception's event, as the exceptions list shows it."""
    origin, sep, seq = text.strip().rpartition(":")
    if not sep or not origin or not seq.isdigit() or int(seq) < 1:
        raise BadInput("exception", f"{text[:60]!r} is not ORIGIN:SEQ (e.g. booth-1:42)")
    return origin, int(seq)


def _item(
    origin: str,
    seq: int,
    kind: str,
    subject: str,
    detail: str,
    hlc: str,
    *,
    serial: str | None = None,
    ticket: str | None = None,
    person: str | None = None,
) -> dict[str, Any]:
    """`person`: the player or buyer the exception concerns, by their code, when it names one
    (its subject and detail then name them too: the phone shows neither)."""
    return {
        "exception": f"{origin}:{seq}",
        "origin": origin,
        "seq": int(seq),
        "kind": kind,
        "serial": serial,
        "ticket": ticket,
        "subject": subject,
        "detail": detail,
        "hlc": hlc,
        "resolved": False,
        "decision": None,
        "note": None,
        "resolved_by": None,
        "person": person,
    }


def _all_exceptions(st: Station) -> Iterator[dict[str, Any]]:
    """Every exception on file here, decided or not, newest first within each kind."""
    conn = st.ledger.conn
    for origin, seq, kind, serial, ticket, detail, hlc, player in winners_read.flags(conn):
        subject = f"{serial}/{ticket}" if ticket else (serial or "")
        yield _item(
            origin, seq, kind, subject, detail, hlc, serial=serial, ticket=ticket, person=player
        )
    for origin, seq, serial, ticket, detail, hlc in winners_read.paid_twice(conn):
        subject = f"{serial}/{ticket}"
        yield _item(origin, seq, "paid-twice", subject, detail, hlc, serial=serial, ticket=ticket)
    paid_bingo = rule_records.starts(st, PAID_BINGO)
    for again in prizes_read.repeats(conn):
        if again.prize.startswith("bingo:") and not judged(paid_bingo, again.origin, again.seq):
            continue  # paid in parts, as the release it was paid under allowed
        detail = (
            f"paid again ({format_money(again.amount)}) after {again.first_origin}:"
            f"{again.first_seq} paid it: two stations paid it while cut apart"
        )
        subject = prizes_read.described(again.prize)
        yield _item(again.origin, again.seq, "prize-paid-twice", subject, detail, again.hlc)
    for origin, seq, badge, serial, day, reason in roster_read.late_purchases(conn):
        subject = f"{badge} bought {serial}"
        yield _item(
            origin, seq, "late-event", subject, f"{reason} ({day})", day, serial=serial,
            person=badge,
        )  # fmt: skip
    for origin, seq, rule, buyer, serial, reason, day in roster_read.near_matches(conn):
        subject = f"{buyer} for {serial}"
        yield _item(
            origin, seq, "near-match", subject, f"{reason} (rule {rule})", day, serial=serial,
            person=buyer,
        )  # fmt: skip
    for origin, seq, incident, kind, detail, at in st.ledger.refused_events(EVIDENCE_INCIDENTS):
        subject = f"{kind} {origin}:{seq} refused"
        yield _item(origin, seq, f"refused-{incident}", subject, detail, at)
    for origin, seq, detail, recorded in incidents.forks(conn):
        subject, why = _fork_words(origin, seq, detail, here=st.id)
        yield _item(origin, seq, "fork", subject, why, recorded)
    for origin, seq, detail, recorded in incidents.stamps_ahead(conn):
        yield _item(origin, seq, "clock-ahead", f"{origin}'s clock runs ahead", detail, recorded)
    for origin, seq, kind, subject, detail, when in books_deposits.exceptions(st):
        yield _item(origin, seq, kind, subject, detail, when)
    yield from _newer_release(st)


def _newer_release(st: Station) -> Iterator[dict[str, Any]]:
    """What this station holds from a newer Booth: one item per origin and kind of event, and
    one per setting; each names what to do (upgrade this station)."""
    held = newer_release.holdings(st)
    if held.empty:
        return
    for events in held.events:
        subject = f"{events.count:,} {events.kind} event(s) from {events.origin}"
        detail = f"{held.summary()}: it keeps them but cannot read them"
        yield _item(events.origin, events.first_seq, "newer-release", subject, detail, "")
    for setting in held.settings:
        governs = f"; it governs {', '.join(setting.governs)}" if setting.governs else ""
        subject = f"setting {setting.describe()}"
        detail = f"{held.summary()}: this station cannot apply it{governs}"
        yield _item(setting.origin, setting.seq, "newer-release", subject, detail, setting.hlc)


def _fork_words(origin: str, seq: int, detail: str, *, here: str) -> tuple[str, str]:
    """What a fork refused here means. At a station's first event: two instances of it (a copy
    of its join bundle or card). Later: two histories after one point, most often a station
    restored from an older backup that recorded before it had caught up."""
    offered = f"a second, different event {origin}:{seq} was offered and refused ({detail})"
    if seq == 1:
        return f"two instances of station {origin}", (
            f"{offered}: a copy of its join bundle or of its card runs as a second station; "
            "find it and take it out of service"
        )
    who = "this station" if origin == here else f"station {origin}"
    return f"two histories of {who} ({origin})", (
        f"{offered}: {who} recorded two different events under one number, most often after "
        "it was restored from an older backup and recorded before it had caught up with the "
        "hall (or a copy of its card ran beside it); see docs/inspectors-guide.md, 'A station "
        "restored from an older backup'"
    )


def _decisions(st: Station) -> dict[tuple[str, int], tuple[str, str, str]]:
    return winners_read.decisions(st.ledger.conn)


def open_exceptions(st: Station) -> list[dict[str, Any]]:
    """The exceptions no manager has decided yet: flags newest first, then the ones found
    after sync, then near matches."""
    decided = _decisions(st)
    return [e for e in _all_exceptions(st) if (e["origin"], e["seq"]) not in decided]


def record_notes(st: Station) -> list[str]:
    """Where the record of each rule a later release brought begins, where it does not begin
    with the hall: the list says nothing of what happened before (pos.domain.rule_records)."""
    return rule_records.sentences(st)


def review_list(st: Station) -> list[dict[str, Any]]:
    """What the manager's screen lists: every open exception, each with the `ref` to decide."""
    return [{**e, "ref": e["exception"]} for e in open_exceptions(st)]


def resolve_exception(
    st: Station,
    origin: str,
    seq: int,
    *,
    decision: str,
    note: str,
    operator: str | None,
) -> dict[str, Any]:
    """A manager decides an exception once: accepted, rejected or noted, with a note."""
    by = st.operator(operator, "manager")
    if decision not in DECISIONS:
        raise BadInput("decision", f"{decision!r}: say {', '.join(DECISIONS)}")
    note = note.strip()
    if not note:
        raise BadInput("note", "say why: the note goes on the record with the decision")
    with st.ledger.transaction():
        found = next(
            (e for e in _all_exceptions(st) if (e["origin"], e["seq"]) == (origin, seq)), None
        )
        if found is None:
            raise NotFound(f"no exception {origin}:{seq} is on file at this station")
        earlier = _decisions(st).get((origin, seq))
        if earlier is not None:
            raise BadInput(
                "exception",
                f"exception {origin}:{seq} was already decided ({earlier[0]} by {earlier[2]}): "
                "a decision stands once recorded",
            )
        st.append(
            "ExceptionResolved",
            {"origin": origin, "seq": seq, "decision": decision, "note": note, "by": by.badge},
        )
    return {**found, "resolved": True, "decision": decision, "note": note, "resolved_by": by.badge}
