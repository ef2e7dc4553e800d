"""What the manager's phone shows, read-only: the day report's figures (the very dict `booth
report day --json` prints, so the two always agree), each deal against its ideal with its
winners left, the stations (last contact, events behind, printer and dispenser faults), the
exceptions waiting, and cash: drawer counts, variances and deposits due.

No player identity and no W-2G data leaves here: exception texts name "a player" instead of the
player, and the day report's parts that name buyers are left out.
"""

from __future__ import annotations

from typing import Any

from pos import __version__
from pos.domain import clock_skew, peer_release
from pos.domain.hlc import Stamp
from pos.domain.money import format_amount
from pos.ledger import heads, replication
from pos.ledger import web_access as web_read
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import hall as hall_read
from pos.services import books_deposits, reports
from pos.services import deals as deal_service
from pos.services import exceptions as exception_service
from pos.services.station import Station

#: what the phone says of an exception that concerns a player or buyer, in place of its words
#: (which name them): the manager's station shows who
_ABOUT_A_PERSON = {
    "near-match": "a buyer who may be a worker: a manager decides",
    "late-event": "a purchase rule D would have refused, found after sync",
    "many-winners": "one player presented many winners",
    "probable-counterfeit": "a probable counterfeit was presented",
    "double-payment": "a ticket presented again after it was paid",
}
PERSON_NAMED = "concerns a player: see the manager's station"
#: the parts of the day report the phone shows (the rest names buyers or is for the inspector)
REPORT_KEYS = (
    "training",
    "organisation",
    "date",
    "sessions",
    "gross",
    "prizes_paid",
    "net",
    "products",
    "rentals",
    "vouchers",
    "voids",
    "cash",
    "hourly",
)


def changes(st: Station) -> tuple[int, str]:
    """What a new snapshot of the phone's page waits for: the ledger's update count (an event
    stored here) and the peers' last contacts (a station reached)."""
    conn = st.ledger.conn
    return replication.update_seq(conn), repr(sorted(replication.last_contacts(conn).items()))


def dashboard(st: Station, *, day: str | None = None) -> dict[str, Any]:
    report = reports.day_report(st, day, None)
    conn = st.ledger.conn
    return {
        "station": st.id,
        "hall": st.config.hall,
        "version": replication.update_seq(conn),
        "report": {k: report[k] for k in REPORT_KEYS},
        "deals": _deals(st, report),
        "stations": stations(st, report),
        "exceptions": _exceptions(st),
        "cash": _cash(st, report),
    }


def _deals(st: Station, report: dict[str, Any]) -> list[dict[str, Any]]:
    today = {d["serial"]: d for d in report["deals"]}
    shown = [
        row["serial"]
        for row in deals_read.deal_list(st.ledger.conn)
        if row["state"] in ("in-play", "carried-over")
    ]
    serials = sorted(set(shown) | set(today))
    out = []
    for serial in serials:
        summary = deal_service.deal_summary(st, serial)
        out.append(
            {
                "serial": serial,
                "name": summary["name"],
                "game": summary["game"],
                "state": summary["state"],
                "holder": summary["holder"],
                "tickets": summary["tickets"],
                "tickets_sold": summary["tickets_sold"],
                "ideal_gross": summary["ideal_gross"],
                "ideal_net": summary["ideal_net"],
                "gross": summary["gross"],
                "prizes_paid": summary["prizes_paid"],
                "net": summary["net"],
                "today_gross": today[serial]["gross"] if serial in today else "0.00",
                "winners_left": sum(int(t["left"]) for t in summary["tiers"]),
                "tiers": summary["tiers"],
            }
        )
    return out


def stations(st: Station, report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each station: last contact from here, events behind (as it last said), faults."""
    conn = st.ledger.conn
    contacts = replication.last_contacts(conn)
    told: dict[str, dict[str, int]] = {}
    for peer in replication.peers(conn):
        if peer["station"] and peer["heads"]:
            told[peer["station"]] = {k: int(v) for k, v in peer["heads"].items()}
    printer = web_read.printer_faults(conn)
    dispenser = web_read.dispenser_faults(conn, report["sessions"])
    measured = replication.release_and_clock(conn)
    out = []
    for name, role in hall_read.stations(conn):
        held = heads.last_seq(conn, name)
        last_contact, last_error = contacts.get(name, (None, None))
        own = name == st.id
        stored, offset_ms = (__version__, 0) if own else measured.get(name, (None, None))
        release = peer_release.peer_release(stored)
        theirs = told.get(name, {}).get(name)
        out.append(
            {
                "station": name,
                "role": role,
                "this_station": own,
                "last_contact": None if own else last_contact,
                "last_error": None if own else last_error,
                "events_held": held,
                "events_behind": 0 if own or theirs is None else max(0, theirs - held),
                # its Booth version as it last said (None: it did not, or not yet; which, in
                # release_state and in words in release_text), and its clock against this
                # station's: clock_text only when more than a minute off
                "release": release.release,
                "release_state": release.state,
                "release_text": release.text,
                "clock_offset_ms": offset_ms,
                "clock_text": (
                    clock_skew.peer_clock(offset_ms).capitalize()
                    if clock_skew.off(offset_ms) and offset_ms is not None
                    else ""
                ),
                "printer_faults": [
                    {"receipt": r["number"], "error": r["last_error"]}
                    for r in printer
                    if r["station"] == name
                ],
                "dispenser_faults": [
                    {
                        "receipt": r["receipt"],
                        "fault": r["fault"]
                        or f"gave {r['qty']} of {r['requested']} tickets (the rest credited)",
                        "at": Stamp.parse(r["hlc"]).instant.isoformat(timespec="seconds"),
                    }
                    for r in dispenser
                    if r["station"] == name
                ],
            }
        )
    return out


def _exceptions(st: Station) -> list[dict[str, Any]]:
    return [
        {
            "exception": e["exception"],
            "kind": e["kind"],
            "ticket": e["ticket"],  # its kind's words tell a ticket paid from a voucher
            # an exception that concerns a player says so by its `person` field: its subject and
            # detail name them, so the phone shows the deal and the kind's words instead
            "subject": (e["serial"] or "") if e["person"] else e["subject"],
            "detail": _ABOUT_A_PERSON.get(e["kind"], PERSON_NAMED) if e["person"] else e["detail"],
            "hlc": e["hlc"],
        }
        for e in exception_service.open_exceptions(st)
    ]


#: deposits listed on the phone, newest first, as on the manager's books screen
DEPOSITS_SHOWN = 6


def _cash(st: Station, report: dict[str, Any]) -> dict[str, Any]:
    """Drawer counts and variances (the day report's), and the deposits (11VAC20-20-80 D) from
    the hall's deposits model (books_deposits): the day's deposit-by date, the closed sessions
    whose receipts are due or overdue at the bank, and the deposits made, each late or short or
    not. The same figures as the day report and the manager's books screen."""
    due = deposits_due(st, report)
    made = books_deposits.deposits(st)
    return {
        "drawers": report["cash"],
        "deposit_by": report["deposit_by"],
        "due": due[:DEPOSITS_SHOWN],
        "due_more": max(len(due) - DEPOSITS_SHOWN, 0),
        "made": [_deposit(d) for d in made[::-1][:DEPOSITS_SHOWN]],
        "made_more": max(len(made) - DEPOSITS_SHOWN, 0),
        "late": sum(1 for d in made if d["late"]),
        "short": sum(1 for d in made if d["short"]),
    }


def deposits_due(st: Station, report: dict[str, Any]) -> list[dict[str, Any]]:
    """The day report's deposits due (closed sessions with no deposit recorded, as of the
    report's day), newest first as the manager's books screen lists them; the shown ones with
    what the deposit should hold (books_deposits.session_cash: counted, else expected)."""
    out = []
    for i, d in enumerate(report["deposits_due"][::-1]):
        amount, basis = (
            books_deposits.session_cash(st, d["session"]) if i < DEPOSITS_SHOWN else (None, None)
        )
        out.append(
            {
                "session": d["session"],
                "game_date": d["game_date"],
                "due": d["due"],
                "overdue": d["overdue"],
                "not_business_days": d["not_business_days"],
                "amount": format_amount(amount) if amount is not None else None,
                "basis": basis,
            }
        )
    return out


def _deposit(d: dict[str, Any]) -> dict[str, Any]:
    """A deposit made, as the phone shows it (no bank confirmation events, no recorder)."""
    keys = ("bag", "sessions", "on", "cash", "checks", "total", "taken_by", "due", "late")
    return {k: d[k] for k in keys} | {
        "should_hold": d["should_hold"],
        "short": d["short"],
        "short_by": d["short_by"],
        "credited": d["credited"],
        "reconciled": d["reconciled"],
    }
