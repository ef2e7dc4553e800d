"""Deposits (11VAC20-20-80 D): the session's cash and checks go to the bank in a numbered bag,
taken by a named person, by the second business day after the session (weekends and the
rulebook's holiday calendar skipped); electronic gaming receipts at least every seven days. A
deposit made late, or short of what was counted, is an exception for the manager; the bank's
confirmation (the amount credited) is reconciled when it comes. Disbursements by check
(11VAC20-20-80 B) and the bank balance a person reads off a statement are recorded here too."""

from __future__ import annotations

from datetime import date
from typing import Any

from pos.domain import books
from pos.domain.business_days import skipped
from pos.domain.checks.cash import depositable, deposited_after, disbursable
from pos.domain.money import format_amount, parse_amount
from pos.domain.rulebook import Settings
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import books as books_read
from pos.ledger.projections import cash as cash_read
from pos.ledger.projections import sessions as sessions_read
from pos.services import books_cash
from pos.services.current_session import hall_date
from pos.services.inputs import checked_input
from pos.services.settings import rulebook_settings
from pos.services.station import Station


def _day(text: str | None, st: Station, field: str) -> date:
    if not text:
        return hall_date(st, st.clock.now())
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise BadInput(field, f"{text!r} is not YYYY-MM-DD") from None


def _cents(text: str, field: str, *, zero: bool = True) -> int:
    with checked_input(field):
        return parse_amount(text, field, allow_zero=zero)


def due_date(
    st: Station, game_date: date, receipts: str = books.SESSION, rules: Settings | None = None
) -> date:
    rules = rules or rulebook_settings(st)
    if receipts == books.WEEKLY:
        return books.weekly_due(game_date, days=rules.electronic_deposit_days)
    return books.deposit_due(
        game_date, business_days=rules.deposit_business_days, calendar=rules.holiday_calendar
    )


def session_cash(st: Station, session: str) -> tuple[int, str]:
    """(cents, basis) the session's deposit should hold: the session's cash as counted (the
    whole session's count, else its drawers' counts added up), else what the ledger expects."""
    conn = st.ledger.conn
    whole = cash_read.count_of(conn, session, books_cash.SESSION_CASH)
    if whole is not None:
        return int(whole[2]), "counted"
    drawers = [c for c in cash_read.counts_in(conn, [session]) if c[1] != books_cash.SESSION_CASH]
    if drawers:
        return sum(int(c[2]) for c in drawers), "counted"
    return books_cash.expected(st, session, books_cash.SESSION_CASH), "expected"


def record(
    st: Station,
    *,
    bag: str,
    sessions: list[str],
    cash: str,
    checks: str,
    taken_by: str,
    on: str | None = None,
    receipts: str = books.SESSION,
    operator: str | None,
) -> dict[str, Any]:
    """A manager records a deposit: the bag, the sessions it holds, cash and checks, who took
    it to the bank and the day."""
    by = st.operator(operator, "manager")
    bag = bag.strip()
    if not bag:
        raise BadInput("bag", "give the deposit bag's number")
    if receipts not in (books.SESSION, books.WEEKLY):
        raise BadInput("receipts", f"{receipts!r}: say {books.SESSION} or {books.WEEKLY}")
    cash_cents, check_cents = _cents(cash, "cash"), _cents(checks, "checks")
    if cash_cents + check_cents == 0:
        raise BadInput("cash", "a deposit holds some cash or checks")
    day = _day(on, st, "on")
    carrier = st.staff(taken_by)
    if carrier is None:
        raise BadInput("taken-by", f"badge {taken_by!r} is not on this hall's staff")
    with st.ledger.transaction():
        conn = st.ledger.conn
        if books_read.deposit(conn, bag) is not None:
            raise BadInput("bag", f"bag {bag!r} is already recorded as a deposit")
        known = dict(books_read.deposited_sessions(conn))
        unknown = [s for s in sessions if sessions_read.session_game_date(conn, s) is None]
        refuse(
            depositable(
                sessions=sessions, unknown=unknown, taken=[s for s in sessions if s in known]
            )
        )
        held = {s: sessions_read.session_game_date(conn, s) for s in sessions}
        refuse(
            deposited_after(
                on=day, game_dates={s: date.fromisoformat(d) for s, d in held.items() if d}
            )
        )
        event = st.append(
            "DepositRecorded",
            {
                "bag": bag,
                "sessions": sessions,
                "cash": cash_cents,
                "checks": check_cents,
                "taken_by": carrier.badge,
                "on": day.isoformat(),
                "receipts": receipts,
                "by": by.badge,
            },
        )
    found = next(d for d in deposits(st) if d["bag"] == bag)
    return found | {"event": f"{event.origin}:{event.seq}"}


def confirm(
    st: Station, bag: str, *, credited: str, on: str | None = None, operator: str | None
) -> dict[str, Any]:
    """The bank's confirmation: the amount it credited for a bag, reconciled with the deposit."""
    by = st.operator(operator, "manager")
    cents = _cents(credited, "credited")
    day = _day(on, st, "on")
    with st.ledger.transaction():
        found = books_read.deposit(st.ledger.conn, bag)
        if found is None:
            raise NotFound(f"no deposit in bag {bag!r} is on file")
        if found["credited"] is not None:
            raise BadInput(
                "bag",
                f"bag {bag!r}: the bank's confirmation is already recorded "
                f"(${format_amount(found['credited'])} on {found['credited_on']})",
            )
        st.append(
            "DepositConfirmed",
            {"bag": bag, "credited": cents, "on": day.isoformat(), "by": by.badge},
        )
    return next(d for d in deposits(st) if d["bag"] == bag)


def deposits(st: Station) -> list[dict[str, Any]]:
    """Every deposit on file: its due date, whether it was late or short, and the bank's
    confirmation against it."""
    conn = st.ledger.conn
    out = []
    for d in books_read.deposits(conn):
        dates = [sessions_read.session_game_date(conn, s) for s in d["sessions"]]
        days = [date.fromisoformat(x) for x in dates if x]
        due = min((due_date(st, x, d["receipts"]) for x in days), default=None)
        owed = sum(session_cash(st, s)[0] for s in d["sessions"])
        made = int(d["cash"]) + int(d["checks"])
        deposited_on = date.fromisoformat(d["deposited_on"])
        credited = d["credited"]
        out.append(
            {
                "bag": d["bag"],
                "sessions": d["sessions"],
                "cash": format_amount(int(d["cash"])),
                "checks": format_amount(int(d["checks"])),
                "total": format_amount(made),
                "taken_by": d["taken_by"],
                "recorded_by": d["by"],
                "on": d["deposited_on"],
                "receipts": d["receipts"],
                "due": due.isoformat() if due else None,
                "late": bool(due and deposited_on > due),
                "should_hold": format_amount(owed),
                "short": made < owed,
                "short_by": format_amount(max(owed - made, 0)),
                "credited": format_amount(int(credited)) if credited is not None else None,
                "credited_on": d["credited_on"],
                "reconciled": None if credited is None else int(credited) == made,
                "event": f"{d['origin']}:{d['seq']}",
                "confirmation": (
                    f"{d['confirm_origin']}:{d['confirm_seq']}" if d["confirm_origin"] else None
                ),
            }
        )
    return out


def reminders(st: Station, today: date, *, amounts: bool = True) -> list[dict[str, Any]]:
    """The closed sessions whose receipts are not recorded as deposited: each with its due
    date, the days that were not business days before it, and whether it is overdue; with
    `amounts`, what the deposit should hold (the day report leaves it out: a hall that kept no
    deposit records yet has every past session here)."""
    conn = st.ledger.conn
    taken = books_read.deposited_sessions(conn)
    rules = rulebook_settings(st)
    out = []
    for session, game_date in books_read.closed_sessions(conn):
        if session in taken:
            continue
        held = date.fromisoformat(game_date)
        due = due_date(st, held, rules=rules)
        amount, basis = session_cash(st, session) if amounts else (None, None)
        out.append(
            {
                "session": session,
                "game_date": game_date,
                "due": due.isoformat(),
                "overdue": today > due,
                "amount": format_amount(amount) if amount is not None else None,
                "basis": basis,
                "not_business_days": [
                    f"{d.isoformat()} {why}"
                    for d, why in skipped(held, due, rules.holiday_calendar)
                ],
            }
        )
    return out


def exceptions(st: Station) -> list[tuple[str, int, str, str, str, str]]:
    """(origin, seq, kind, subject, detail, when) of each late or short deposit and of each
    bank confirmation that does not match its deposit: the manager's exceptions."""
    out = []
    for d in deposits(st):
        origin, _, seq = d["event"].rpartition(":")
        problems = []
        if d["late"]:
            problems.append(f"deposited {d['on']}, due by {d['due']} (11VAC20-20-80 D)")
        if d["short"]:
            problems.append(
                f"${d['total']} deposited, ${d['should_hold']} counted: short ${d['short_by']}"
            )
        if problems:
            kind = "deposit-" + "-".join(k for k in ("late", "short") if d[k])
            out.append(
                (
                    origin,
                    int(seq),
                    kind,
                    f"bag {d['bag']} ({', '.join(d['sessions'])})",
                    "; ".join(problems),
                    d["on"],
                )
            )
        if d["reconciled"] is False and d["confirmation"]:
            c_origin, _, c_seq = d["confirmation"].rpartition(":")
            out.append(
                (
                    c_origin,
                    int(c_seq),
                    "deposit-credit",
                    f"bag {d['bag']}",
                    f"the bank credited ${d['credited']} for a ${d['total']} deposit",
                    d["credited_on"] or "",
                )
            )
    return out


# -- disbursements and the bank balance -----------------------------------------------------------


def disburse(
    st: Station,
    *,
    payee: str,
    amount: str,
    check: str,
    on: str | None,
    category: str,
    invoice: str,
    note: str = "",
    operator: str | None,
) -> dict[str, Any]:
    """A manager records an expense paid by check from the charitable gaming account."""
    by = st.operator(operator, "manager")
    cents = _cents(amount, "amount", zero=False)
    day = _day(on, st, "on")
    if not payee.strip():
        raise BadInput("payee", "name who the check was paid to")
    refuse(disbursable(category=category, check_number=check, invoice=invoice))
    with st.ledger.transaction():
        event = st.append(
            "DisbursementRecorded",
            {
                "payee": payee.strip(),
                "amount": cents,
                "check": check.strip(),
                "on": day.isoformat(),
                "category": category,
                "invoice": invoice.strip(),
                "note": note.strip(),
                "by": by.badge,
            },
        )
    rows = books_read.disbursements(st.ledger.conn, day.isoformat(), day.isoformat())
    return _disbursement(
        next(d for d in rows if (d["origin"], d["seq"]) == (event.origin, event.seq))
    )


def _disbursement(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "payee": d["payee"],
        "amount": format_amount(int(d["amount"])),
        "check": d["check_number"],
        "on": d["paid_on"],
        "category": d["category"],
        "invoice": d["invoice"],
        "note": d["note"] or "",
        "by": d["by"],
        "event": f"{d['origin']}:{d['seq']}",
    }


def disbursements(
    st: Station, start: str | None = None, end: str | None = None
) -> list[dict[str, Any]]:
    return [
        _disbursement(d)
        for d in books_read.disbursements(
            st.ledger.conn, start or "0000-01-01", end or "9999-12-31"
        )
    ]


def record_balance(st: Station, *, on: str, amount: str, operator: str | None) -> dict[str, Any]:
    """The gaming account's balance on a day, as a person read it off the bank statement."""
    by = st.operator(operator, "manager")
    day = _day(on, st, "on")
    cents = _cents(amount, "amount")
    with st.ledger.transaction():
        event = st.append(
            "BankBalanceRecorded", {"on": day.isoformat(), "amount": cents, "by": by.badge}
        )
    return {
        "on": day.isoformat(),
        "amount": format_amount(cents),
        "by": by.badge,
        "event": f"{event.origin}:{event.seq}",
    }
