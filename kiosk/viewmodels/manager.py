"""The manager: stations and their sync state, the day's totals and the sales chart, exceptions,
deals, the roster and the session. Functions taking a Station run on the StationWorker; the
chart's geometry is pure."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kiosk.viewmodels.booth import session_text
from kiosk.viewmodels.common import (
    ERROR,
    INFO,
    MUTED,
    OK,
    WARN,
    Outcome,
    ago,
    attempt,
    cents,
    money,
)
from pos.domain import clock_skew, peer_release
from pos.domain.exception_words import kind_of, kind_words
from pos.errors import BadInput
from pos.services import current_session, deals, exceptions, hall, reports, roster, sessions
from pos.services.current_session import hall_date
from pos.services.station import Station

# -- dashboard ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StationRowVM:
    station: str
    role: str
    events_text: str
    last_text: str
    colour: str
    release_text: str = ""  # "Booth 0.2.0"; pos.domain.peer_release says the others
    clock_text: str = ""  # "" unless its clock is more than a minute off this station's


@dataclass(frozen=True)
class DealTotalVM:
    serial: str
    name: str
    sold_text: str
    gross: str
    prizes: str
    net: str


@dataclass(frozen=True)
class Bar:
    label: str
    value_text: str
    fraction: float  # of the tallest bar, 0..1


@dataclass(frozen=True)
class ChartVM:
    title: str
    bars: tuple[Bar, ...]
    empty_text: str


def chart(hours: dict[int, int], title: str = "Sales per hour") -> ChartVM:
    """Bars for every hour from the first to the last with sales (gaps show as empty bars)."""
    if not hours:
        return ChartVM(title, (), "No sales yet today")
    first, last = min(hours), max(hours)
    tallest = max(hours.values()) or 1
    bars = tuple(
        Bar(
            label=f"{hour:02d}h",
            value_text=money(hours.get(hour, 0)).removesuffix(".00"),
            fraction=max(0.0, hours.get(hour, 0) / tallest),
        )
        for hour in range(first, last + 1)
    )
    return ChartVM(title, bars, "")


@dataclass(frozen=True)
class DashboardVM:
    session_text: str
    stations: tuple[StationRowVM, ...]
    totals: tuple[DealTotalVM, ...]
    total_text: str
    chart: ChartVM
    sync_note: str


STALE_SECONDS = 300


def dashboard(st: Station) -> DashboardVM:
    now = st.clock.now()
    rows = []
    for head in hall.stations_overview(st):
        last = head["last"]
        if head["this"]:
            colour, when = OK, "this station"
        elif last is None:
            colour, when = WARN, "no events yet"
        else:
            fresh = (now - last).total_seconds() < STALE_SECONDS
            colour, when = (OK if fresh else WARN), f"last event {ago(last, now)}"
        if not head["this"]:
            if head["sync_error"]:
                colour, when = ERROR, f"{when} · sync failing: {head['sync_error']}"
            elif head["contact"] is not None:
                when = f"{when} · synced {ago(head['contact'], now)}"
            else:  # what it holds came some other way (a bundle, a stick): amber, not green
                colour, when = WARN, f"{when} · not synced yet"
        release = peer_release.peer_release(head["release"])
        if release.state == "unsaid":  # a station on 0.1.0 or older: amber, upgrade it
            colour = ERROR if colour == ERROR else WARN
        clock_text = ""
        if not head["this"] and clock_skew.off(head["clock_offset_ms"]):
            colour = ERROR if colour == ERROR else WARN
            clock_text = clock_skew.peer_clock(head["clock_offset_ms"]).capitalize()
        rows.append(
            StationRowVM(
                head["station"],
                head["role"],
                f"{head['events']:,} events",
                when,
                colour,
                release_text=release.text,
                clock_text=clock_text,
            )
        )
    totals, gross_all = [], 0
    for row in deals.list_deals(st):
        if row["state"] not in ("in-play", "carried-over") and not row["sold"]:
            continue
        summary = deals.deal_summary(st, row["serial"])
        gross_all += cents(summary["gross"])
        totals.append(
            DealTotalVM(
                summary["serial"],
                summary["name"],
                f"{summary['tickets_sold']:,} sold",
                money(cents(summary["gross"])),
                money(cents(summary["prizes_paid"])),
                money(cents(summary["net"])),
            )
        )
    today = hall_date(st, now)
    text, _ = session_text(st)
    return DashboardVM(
        session_text=text,
        stations=tuple(rows),
        totals=tuple(totals),
        total_text=f"Gross {money(gross_all)}",
        chart=chart(
            reports.ticket_sales_by_hour(st, today), f"Sales per hour, {today.isoformat()}"
        ),
        sync_note="Events this station holds of each; a station's own count shows what is "
        "still missing here.",
    )


# -- exceptions ---------------------------------------------------------------------------------

LEVEL_COLOURS = {"error": ERROR, "warn": WARN, "info": INFO}


@dataclass(frozen=True)
class ExceptionVM:
    label: str
    subject: str
    detail: str
    colour: str
    ref: str | None = None  # the exception the manager decides (Accept / Reject); never shown
    accept_means: str = ""  # what Accept records for this kind, in plain words
    reject_means: str = ""


def exception_vm(
    kind: str, ticket: str | None, subject: str, detail: str, ref: str | None
) -> ExceptionVM:
    """One exception as its row shows it: the kind's words (pos.domain.exception_words)."""
    words = kind_words(kind_of(kind, ticket))
    return ExceptionVM(
        words.title,
        subject,
        detail,
        LEVEL_COLOURS.get(words.level, MUTED),
        ref,
        words.accept_means,
        words.reject_means,
    )


def exceptions_screen(st: Station) -> tuple[ExceptionVM, ...]:
    return tuple(
        exception_vm(e["kind"], e.get("ticket"), e["subject"], e["detail"], e.get("ref"))
        for e in exceptions.review_list(st)
    ) + tuple(  # nothing to decide: what the list above cannot say before an upgrade
        ExceptionVM("Where a rule's record begins", "", note, INFO)
        for note in exceptions.record_notes(st)
    )


def resolve_exception(st: Station, ref: str, decision: str, note: str, operator: str) -> Outcome:
    """The manager's decision on an exception, with the note the screen took."""

    def run() -> Outcome:
        origin, seq = exceptions.parse_ref(ref)
        result = exceptions.resolve_exception(
            st, origin, seq, decision=decision, note=note, operator=operator
        )
        words = kind_words(kind_of(result["kind"], result.get("ticket")))
        subject = f" · {result['subject']}" if result.get("subject") else ""
        return Outcome(
            True,
            f"{result['decision'].upper()}",
            f"For every station: {words.title}{subject}. Note: {result['note']}",
            OK if decision == "accepted" else WARN,
        )

    return attempt(run, "Cannot decide")


# -- deals --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealRowVM:
    serial: str
    name: str
    state: str
    where: str
    sold_text: str
    left: int
    can_open: bool
    can_close: bool


def deals_screen(st: Station) -> tuple[DealRowVM, ...]:
    rows = []
    for row in deals.list_deals(st):
        left = int(row["tickets"]) - int(row["sold"])
        where = f"{row['bin']} at {row['holder']}" if row["holder"] else "not in a bin"
        rows.append(
            DealRowVM(
                serial=row["serial"],
                name=row["name"],
                state=row["state"],
                where=where,
                sold_text=f"{row['sold']:,} of {row['tickets']:,} sold",
                left=left,
                can_open=row["state"] in ("received", "carried-over"),
                can_close=row["state"] in ("in-play", "received", "carried-over"),
            )
        )
    order = {"in-play": 0, "received": 1, "carried-over": 2, "closed": 3}
    return tuple(sorted(rows, key=lambda r: (order.get(r.state, 9), r.serial)))


def receive_deal(st: Station, path: str, operator: str) -> Outcome:
    def run() -> Outcome:
        if not path.strip():
            raise BadInput("flare", "enter the path of the deal's flare file (JSON or TOML)")
        flare = deals.read_flare_file(Path(path.strip()).expanduser())
        result = deals.receive_deal(st, flare, operator=operator)
        return Outcome(
            True, f"RECEIVED {result['serial']}", f"{result['name']}, {result['tickets']:,} tickets"
        )

    return attempt(run, "Deal refused")


def open_deal(st: Station, serial: str, bin_name: str, operator: str) -> Outcome:
    def run() -> Outcome:
        result = deals.open_deal(st, serial, bin_name=bin_name, operator=operator)
        return Outcome(
            True, f"IN PLAY {result['serial']}", f"Bin {result['bin']} at {result['holder']}"
        )

    return attempt(run, "Cannot open the deal")


def close_deal(st: Station, serial: str, unsold: str, operator: str, *, note: str = "") -> Outcome:
    def run() -> Outcome:
        result = deals.close_deal(
            st, serial, unsold=unsold, operator=operator, note=note.strip() or None
        )
        return Outcome(
            True,
            f"CLOSED {result['serial']}",
            f"{result['unsold']} unsold; keep until {result['keep_until']}",
        )

    return attempt(run, "Cannot close the deal")


# -- roster and session -------------------------------------------------------------------------


@dataclass(frozen=True)
class ShiftVM:
    name: str
    badge: str
    when: str
    duty: str


@dataclass(frozen=True)
class RosterVM:
    day: str
    shifts: tuple[ShiftVM, ...]
    empty_text: str


def roster_screen(st: Station) -> RosterVM:
    day = hall_date(st, st.clock.now()).isoformat()
    shifts = tuple(
        ShiftVM(s["name"], s["badge"], f"{s['start']}-{s['end']}", s["duty"])
        for s in roster.show_roster(st, day)
    )
    return RosterVM(day, shifts, "" if shifts else f"No shifts on the roster for {day}")


def import_roster(st: Station, path: str, operator: str) -> Outcome:
    def run() -> Outcome:
        if not path.strip():
            raise BadInput("roster", "enter the path of the roster CSV")
        result = roster.import_roster(st, Path(path.strip()).expanduser(), operator=operator)
        return Outcome(
            True,
            "ROSTER IMPORTED",
            f"{result['imported']} shifts new, {result['unchanged']} unchanged, "
            f"{result['new_staff']} new staff",
        )

    return attempt(run, "Roster refused")


@dataclass(frozen=True)
class SessionVM:
    text: str
    is_open: bool
    missing: tuple[str, ...]
    hint: str


def session_screen(st: Station) -> SessionVM:
    text, is_open = session_text(st)
    current = current_session.open_session_now(st)
    missing = tuple(sessions.missing_stations(st, current.id)) if current else ()
    if not is_open:
        hint = "No session is open."
    elif missing:
        hint = (
            f"Waiting for the close of {', '.join(missing)} (their close marker and events). "
            "Tap Sync now, or close without them and say why."
        )
    else:
        hint = "Every station has closed: the session can close hall-wide."
    return SessionVM(text, is_open, missing, hint)


def close_without(st: Station, missing: tuple[str, ...], reason: str, operator: str) -> Outcome:
    def run() -> Outcome:
        if not reason.strip():
            raise BadInput("reason", "say why the session closes without them")
        result = sessions.close_session(
            st, operator=operator, without={name: reason.strip() for name in missing}
        )
        return Outcome(
            True,
            f"SESSION {result['session']} CLOSED",
            f"Without {', '.join(result['missing']) or 'nobody'}; carried over: "
            f"{', '.join(result['carried_over']) or 'none'}",
        )

    return attempt(run, "Cannot close the session")


def open_session(st: Station, operator: str) -> Outcome:
    def run() -> Outcome:
        result = sessions.open_session(st, operator=operator)
        resumed = ", ".join(result["resumed"]) or "none"
        return Outcome(True, f"SESSION {result['session']} OPEN", f"Back in play: {resumed}")

    return attempt(run, "Cannot open a session")


def close_session(st: Station, operator: str) -> Outcome:
    def run() -> Outcome:
        result = sessions.close_session(st, operator=operator)
        carried = ", ".join(result["carried_over"]) or "none"
        return Outcome(True, f"SESSION {result['session']} CLOSED", f"Carried over: {carried}")

    return attempt(run, "Cannot close the session")
