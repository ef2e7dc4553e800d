"""Exceptions the manager decides: a flagged double payment, probable counterfeit or device not
returned is accepted, rejected or noted, on the record (ExceptionResolved), with a note."""

from __future__ import annotations

from typing import Any

from pos.errors import BadInput, NotFound
from pos.services.station import Station

DECISIONS = ("accepted", "rejected", "noted")


def parse_ref(text: str) -> tuple[str, int]:
    """`ORIGIN:SEQ`, the flag's event, as the exceptions list shows it."""
    origin, sep, seq = text.strip().rpartition(":")
    if not sep or not origin or not seq.isdigit() or int(seq) < 1:
        raise BadInput("exception", f"{text[:60]!r} is not ORIGIN:SEQ (e.g. booth-1:42)")
    return origin, int(seq)


def _row(flag: tuple[Any, ...]) -> dict[str, Any]:
    origin, seq, kind, serial, ticket, detail, hlc, resolved, decision, note, by = flag
    return {
        "exception": f"{origin}:{seq}",
        "origin": origin,
        "seq": int(seq),
        "kind": kind,
        "serial": serial,
        "ticket": ticket,
        "detail": detail,
        "hlc": hlc,
        "resolved": bool(resolved),
        "decision": decision,
        "note": note,
        "resolved_by": by,
    }


_COLUMNS = "origin, seq, kind, serial, ticket, detail, hlc, resolved, decision, note, resolved_by"


def open_exceptions(st: Station) -> list[dict[str, Any]]:
    """The flagged exceptions no manager has decided yet, newest first."""
    return [
        _row(flag)
        for flag in st.ledger.conn.execute(
            f"SELECT {_COLUMNS} FROM p_flags WHERE resolved = 0 ORDER BY hlc DESC"
        )
    ]


def resolve_exception(
    st: Station,
    origin: str,
    seq: int,
    *,
    decision: str,
    note: str,
    operator: str | None,
) -> dict[str, Any]:
    """A manager decides a flagged exception once: accepted, rejected or noted, with a note."""
    by = st.operator(operator, "manager")
    if decision not in DECISIONS:
        raise BadInput("decision", f"{decision!r}: say {', '.join(DECISIONS)}")
    note = note.strip()
    if not note:
        raise BadInput("note", "say why: the note goes on the record with the decision")
    with st.ledger.transaction():
        flag = st.ledger.conn.execute(
            f"SELECT {_COLUMNS} FROM p_flags WHERE origin = ? AND seq = ?", (origin, seq)
        ).fetchone()
        if flag is None:
            raise NotFound(f"no exception {origin}:{seq} is on file at this station")
        if flag[7]:
            raise BadInput(
                "exception",
                f"exception {origin}:{seq} was already decided ({flag[8]} by {flag[10]}): "
                "a decision stands once recorded",
            )
        st.append(
            "ExceptionResolved",
            {"origin": origin, "seq": seq, "decision": decision, "note": note, "by": by.badge},
        )
        row = st.ledger.conn.execute(
            f"SELECT {_COLUMNS} FROM p_flags WHERE origin = ? AND seq = ?", (origin, seq)
        ).fetchone()
    return _row(row)


def review_list(st: Station) -> list[dict[str, Any]]:
    """What the manager must look at: flags not yet decided (double payments, probable
    counterfeits, devices not returned; each with its `ref`, ORIGIN:SEQ, to decide), purchases
    rule D would have refused had the station known (late events), and near matches to workers
    that were refused."""
    found: list[dict[str, Any]] = []
    for flag in open_exceptions(st):  # decided flags leave the list
        serial, ticket = flag["serial"], flag["ticket"]
        what = f"{serial}/{ticket}" if ticket else (serial or "")
        found.append(
            {
                "kind": flag["kind"],
                "subject": what,
                "detail": flag["detail"],
                "hlc": flag["hlc"],
                "ref": flag["exception"],
            }
        )
    for serial, ticket, detail, stamp in st.ledger.conn.execute(
        "SELECT serial, ticket, detail, hlc FROM p_paid_twice ORDER BY hlc DESC"
    ):
        found.append(
            {
                "kind": "paid-twice",
                "subject": f"{serial}/{ticket}",
                "detail": detail,
                "hlc": stamp,
            }
        )
    for badge, serial, day, reason in st.ledger.conn.execute(
        "SELECT badge, serial, day, reason FROM p_block_exceptions ORDER BY day DESC"
    ):
        found.append(
            {
                "kind": "late-event",
                "subject": f"{badge} bought {serial}",
                "detail": f"{reason} ({day})",
                "hlc": day,
            }
        )
    for rule, buyer, serial, reason, day in st.ledger.conn.execute(
        "SELECT rule, buyer, serial, reason, day FROM p_blocked "
        "WHERE reason LIKE '%manager decides%' ORDER BY day DESC"
    ):
        found.append(
            {
                "kind": "near-match",
                "subject": f"{buyer} for {serial}",
                "detail": f"{reason} (rule {rule})",
                "hlc": day,
            }
        )
    return found
