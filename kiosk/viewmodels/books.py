"""The bookkeeper's screens without Kivy: blind counts and their verification (the booth's close
and the manager's Books tab), the deposits due and the state's reports due. Functions taking a
Station run on the StationWorker.

Blind: nothing here shows what the ledger expects in a drawer before a count of it is recorded,
and a count awaiting its second person shows who counted, never the figure (the second person
counts blind too)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from kiosk.viewmodels.common import ERROR, MUTED, OK, WARN, Outcome, attempt
from pos.domain.money import dollars, format_amount
from pos.services import books_cash, books_deposits, books_quarter, read_access
from pos.services.current_session import hall_date
from pos.services.station import Station


def _variance(amount: str) -> str:
    if amount == "0.00":
        return "exact"
    return ("short " if amount.startswith("-") else "over ") + dollars(amount.lstrip("-"))


def count_outcome(result: dict[str, object], verb: str) -> Outcome:
    verified = result["status"] == "verified"
    detail = (
        f"{str(result['drawer']).capitalize()}: expected {dollars(str(result['expected']))}, "
        f"{_variance(str(result['variance']))}. "
        + (
            f"Counted by {result['counted_by']}, verified by {result['verified_by']}."
            if verified
            else f"Counted by {result['counted_by']}; a second badge must count it too."
        )
    )
    headline = f"{verb} {dollars(str(result['counted']))}" + (
        " · VERIFIED" if verified else " · NOT VERIFIED"
    )
    return Outcome(True, headline, detail, OK if verified else WARN, data=(("result", result),))


def record_count(
    st: Station, amount: str, operator: str, *, station: str | None = None, whole: bool = False
) -> Outcome:
    """A blind count: the expected figure comes back only with the recorded count."""

    def run() -> Outcome:
        result = books_cash.count(
            st, amount, station=station or None, whole_session=whole, operator=operator
        )
        return count_outcome(result, "COUNTED")

    return attempt(run, "Cannot record the count")


def verify_count(
    st: Station, amount: str, badge: str, *, station: str | None = None, whole: bool = False
) -> Outcome:
    """The second person's count, under their own badge."""

    def run() -> Outcome:
        result = books_cash.verify(
            st, amount, station=station or None, whole_session=whole, operator=badge.strip()
        )
        return count_outcome(result, "RECOUNTED")

    return attempt(run, "Not verified")


def record_deposit(
    st: Station, bag: str, taken_by: str, cash: str, checks: str, operator: str
) -> Outcome:
    """The oldest session not yet deposited goes to the bank in `bag`, taken by `taken_by`."""

    def run() -> Outcome:
        due = books_deposits.reminders(st, hall_date(st, st.clock.now()))
        if not due:
            return Outcome(False, "Nothing to deposit", "Every closed session is deposited.", MUTED)
        d = books_deposits.record(
            st, bag=bag, sessions=[due[0]["session"]], cash=cash or "0", checks=checks or "0",
            taken_by=taken_by.strip(), operator=operator,
        )  # fmt: skip
        problems = [
            text
            for flag, text in (
                (d["late"], f"LATE: due by {d['due']}"),
                (d["short"], f"SHORT by {dollars(d['short_by'])} of {dollars(d['should_hold'])}"),
            )
            if flag
        ]
        detail = (
            f"Session {', '.join(d['sessions'])}: {dollars(d['total'])} (cash "
            f"{dollars(d['cash'])}, checks {dollars(d['checks'])}), taken by {d['taken_by']}. "
            + (
                "; ".join(problems) + " - on the exceptions list."
                if problems
                else f"On time (due {d['due']})."
            )
        )
        return Outcome(True, f"BAG {d['bag']} DEPOSITED", detail, ERROR if problems else OK)

    return attempt(run, "Cannot record the deposit")


@dataclass(frozen=True)
class LineVM:
    text: str
    detail: str
    colour: str


@dataclass(frozen=True)
class BooksVM:
    counts: tuple[LineVM, ...]
    deposits: tuple[LineVM, ...]
    reports: tuple[LineVM, ...]
    due_next: str  # the one line the manager sees first: what is due next
    due_colour: str


def count_lines(st: Station) -> tuple[LineVM, ...]:
    """The session's counts: a verified one with its figures; one awaiting its second person
    with who counted it and no figure."""
    session = books_cash.session_now(st)
    sessions = [session] if session else []
    waiting = {(c["session"], c["station"]) for c in books_cash.awaiting(st)}
    out = []
    for c in books_cash.counts(st, sessions):
        if (c["session"], c["station"]) in waiting:
            out.append(
                LineVM(
                    f"{str(c['drawer']).capitalize()}: NOT VERIFIED",
                    f"counted by {c['counted_by']} ({c['session']}); a second person counts it "
                    "blind and verifies",
                    WARN,
                )
            )
        else:
            out.append(
                LineVM(
                    f"{str(c['drawer']).capitalize()}: verified",
                    f"{dollars(c['counted'])} counted by {c['counted_by']}, verified by "
                    f"{c['verified_by']}; expected {dollars(c['expected'])}, "
                    f"{_variance(c['variance'])}",
                    OK if c["variance"] == "0.00" else ERROR,
                )
            )
    return tuple(out)


def drawer_line(st: Station, roles: Collection[str]) -> LineVM:
    """This station's drawer in the session now, as the signed-on person's roles may see it
    (pos.domain.read_access): a seller or redeemer sees what it should hold only once a count
    of it is recorded; a manager sees it all."""
    session = books_cash.session_now(st)
    who = read_access.Reader(None, frozenset(roles), st.id)
    report = read_access.day_report(st, who, None, session) if session else {}
    row = next((c for c in report.get("cash", []) if c["station"] == st.id), None)
    if row is None:
        return LineVM("Drawer: nothing taken in yet", "", MUTED)
    if row["counted"] is not None:
        return LineVM(
            f"Drawer: counted {dollars(row['counted'])}",
            f"expected {dollars(row['expected'])}, {_variance(row['over_short'])}",
            OK if row["over_short"] == "0.00" else ERROR,
        )
    if row["expected"] is None:
        return LineVM(
            "Drawer: not counted yet",
            "count it blind: the ledger's figure shows once counted",
            WARN,
        )
    return LineVM(f"Drawer: expected {dollars(row['expected'])}", "not counted yet", WARN)


SHOWN = 6  # deposits due listed on the screen


def books_screen(st: Station) -> BooksVM:
    today = hall_date(st, st.clock.now())
    # newest first: the one due next leads; a hall with years of sessions and no deposit records
    # shows the latest few and how many more, and its figures only for those it shows
    due = books_deposits.reminders(st, today, amounts=False)[::-1]
    shown = [d | {"amount": books_deposits.session_cash(st, d["session"])[0]} for d in due[:SHOWN]]
    deposits = tuple(
        LineVM(
            f"Deposit {'OVERDUE' if d['overdue'] else 'due'} by {d['due']}: session "
            f"{d['session']}",
            f"{dollars(format_amount(d['amount']))}"
            + (f"; not business days: {', '.join(d['not_business_days'])}"
               if d["not_business_days"] else ""),
            ERROR if d["overdue"] else WARN,
        )
        for d in shown
    ) + tuple(
        LineVM(f"{len(due) - SHOWN} older sessions have no deposit recorded", "booth deposit list",
               ERROR)
        for _ in [1] if len(due) > SHOWN
    )  # fmt: skip
    reports = tuple(
        LineVM(
            f"Form {r['form']} ({r['period']}) due {r['due']}",
            f"{r['days_left']} days left: booth report {r['report']}",
            WARN if int(r["days_left"]) < 14 else MUTED,
        )
        for r in books_quarter.due_next(st, today)
    )
    overdue = [d for d in deposits if d.colour == ERROR]
    if overdue:
        due_next, colour = overdue[0].text, ERROR
    elif deposits:
        due_next, colour = deposits[0].text, WARN
    elif reports:
        due_next, colour = f"Due next: {reports[0].text}", reports[0].colour
    else:
        due_next, colour = "Nothing is due at the bank or the state.", MUTED
    return BooksVM(count_lines(st), deposits, reports, due_next, colour)
