"""Who may read what (ROLE): one policy for every read, at the CLI, the screens and the phone.

A read shows sections of the hall's records. A staff role sees some sections; a read that
shows a section a role does not see is refused to it (rule ROLE), or, for the reads that are
scoped (the day report, the deposit list), shown without the parts it may not see.

Blind counts: whoever may count a drawer (a seller, a redeemer, a manager) counts it without
knowing what the ledger expects in it. The manager's count is checked by a second person's, and
the manager answers for the hall, so the manager sees it all; a seller or redeemer sees what a
drawer was expected to hold only once its count is recorded. The treasurer counts no drawer
and needs the expected figure to know what a deposit should hold.

The CLI takes the badge alone (`--as BADGE` / BOOTH_OPERATOR), as its writes do: a PIN is
asked at a screen (house rule `sign-on badge-and-pin`) and at the phone's sign-in, never by
the CLI, whose user is already the station's account.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from pos.domain.checks import Refusal


class Section(enum.StrEnum):
    MONEY = "money"
    """The hall's takings, prizes and net (per deal, product, operator, hour) and its books:
    deposits made, disbursements, the bank, the state's quarterly and annual forms."""
    EXPECTED_CASH = "expected-cash"
    """What a drawer, cash box or session should hold, before its count is recorded."""
    COUNTED_CASH = "counted-cash"
    """Cash as counted: a count once recorded, with what was expected and the variance."""
    OWN_STATION = "own-station"
    """This station's own work: its sales and prizes, its deals, the buyer in front of it,
    its seal sheets, receipts and printer."""
    PEOPLE = "people"
    """The people: staff (names, dates of birth, shifts), players, buyers, winners'
    identities, and who is short how often."""
    EXCEPTIONS = "exceptions"
    """The exceptions for the manager to decide."""
    STATIONS = "stations"
    """The stations and their links: peers, sync, the head office, phones signed in."""
    AUDIT = "audit"
    """The inspector's material: the whole export (events, keys, tables)."""


ALL = frozenset(Section)

#: what each staff role sees (pos.domain.identity.STAFF_ROLES)
ROLE_SECTIONS: Mapping[str, frozenset[Section]] = {
    "manager": ALL,
    "inspector": ALL,
    "treasurer": frozenset(
        {Section.MONEY, Section.EXPECTED_CASH, Section.COUNTED_CASH, Section.OWN_STATION}
    ),
    "seller": frozenset({Section.OWN_STATION, Section.COUNTED_CASH}),
    "redeemer": frozenset({Section.OWN_STATION, Section.COUNTED_CASH}),
}


@dataclass(frozen=True)
class Read:
    """A read command's sections. `scoped`: a role seeing any one of them may read it, and the
    parts of the others are withheld; otherwise a role must see every one. No sections: open
    to anyone, with no badge (it shows neither money nor people)."""

    shows: frozenset[Section]
    scoped: bool = False
    why: str = ""

    @property
    def open(self) -> bool:
        return not self.shows


def _read(*shows: Section, scoped: bool = False, why: str = "") -> Read:
    return Read(frozenset(shows), scoped, why)


S = Section
#: every read command (`booth ...`, as the README's command table names it) and what it shows;
#: tests/test_read_access.py fails for a read command missing here
READS: Mapping[str, Read] = {
    "booth report day": _read(
        S.OWN_STATION, S.MONEY, S.EXPECTED_CASH, S.COUNTED_CASH, S.PEOPLE, S.EXCEPTIONS,
        scoped=True,
    ),
    "booth report form": _read(S.MONEY, S.EXPECTED_CASH),
    "booth report deal": _read(S.MONEY),
    "booth report quarter": _read(S.MONEY),
    "booth report annual": _read(S.MONEY),
    "booth report retention": _read(why="closed deals' unsold counts and keep-until dates"),
    "booth export": _read(S.AUDIT),
    "booth verify": _read(why="whether the chains and signatures hold; no figure, no name"),
    "booth deposit list": _read(S.COUNTED_CASH, S.MONEY, S.EXPECTED_CASH, scoped=True),
    "booth disbursement list": _read(S.MONEY),
    "booth drawer variances": _read(S.COUNTED_CASH, S.PEOPLE),
    "booth exception list": _read(S.EXCEPTIONS),
    "booth deal show": _read(S.OWN_STATION),
    "booth deal list": _read(why="serials, names, states and tickets sold; no money"),
    "booth house show": _read(why="the house rules, posted for players"),
    "booth house posted": _read(why="the posted house rules (rule A)"),
    "booth house sheet": _read(why="the posted house rules (rule A)"),
    "booth rules": _read(why="the rulebook, public law"),
    "booth program show": _read(why="the game program, posted for players"),
    "booth program print": _read(why="the game program, posted for players"),
    "booth bingo progressive posting": _read(why="the I3 posting, posted for players"),
    "booth bingo decision show": _read(S.OWN_STATION),
    "booth bingo chest show": _read(S.OWN_STATION),
    "booth paper packs": _read(why="the packs on sale and their prices"),
    "booth paper stock": _read(S.OWN_STATION),
    "booth paper reconcile": _read(S.OWN_STATION),
    "booth device list": _read(why="devices and their state; no renter, no money"),
    "booth device faces": _read(why="the card faces on a device (E.1.i)"),
    "booth check-buyer": _read(S.OWN_STATION),
    "booth roster show": _read(S.PEOPLE),
    "booth staff list": _read(S.PEOPLE),
    "booth seal sheet": _read(S.OWN_STATION),
    "booth raffle show": _read(S.MONEY),
    "booth raffle list": _read(S.MONEY),
    "booth receipt show": _read(S.OWN_STATION),
    "booth receipt verify": _read(why="whether a receipt in a player's hand is genuine"),
    "booth printer status": _read(S.OWN_STATION),
    "booth sync status": _read(why="the stations, their links and clocks; no money, no name"),
    "booth sync upstream status": _read(why="the head office's link; no money, no name"),
    "booth web sessions": _read(S.STATIONS, S.PEOPLE),
}  # fmt: skip


def sees(roles: Collection[str], section: Section) -> bool:
    return any(section in ROLE_SECTIONS.get(role, frozenset()) for role in roles)


def may_read(roles: Collection[str], read: Read) -> bool:
    if read.open:
        return True
    if read.scoped:
        return any(sees(roles, s) for s in read.shows)
    return all(sees(roles, s) for s in read.shows)


def roles_for(read: Read) -> tuple[str, ...]:
    """The roles that may run `read`."""
    return tuple(role for role in ROLE_SECTIONS if may_read((role,), read))


def needs_badge(command: str) -> bool:
    read = READS.get(command)
    return read is None or not read.open  # a read not classified is not open


def no_badge(command: str) -> Refusal:
    """ROLE (NotPermitted): a read of money or people asked with no badge."""
    read = READS.get(command)
    if read is None:
        return Refusal.not_permitted(f"{command} is not a read any role may run")
    return Refusal.not_permitted(
        f"{command} needs the badge of a {' or '.join(roles_for(read))}: pass --as BADGE or "
        "set BOOTH_OPERATOR"
    )


def check_document(badge: str | None, roles: Collection[str]) -> Refusal | None:
    """ROLE (NotPermitted): the day report's PDF, CSV and form only to a role that sees the
    hall's money and expected cash (DOCUMENT)."""
    if may_read(roles, DOCUMENT):
        return None
    return Refusal.not_permitted(
        f"badge {badge} may not write the day report's PDF, CSV or form: they hold the hall's "
        f"money and expected cash; a {' or '.join(roles_for(DOCUMENT))} may"
    )


def check(command: str, badge: str, name: str, roles: Collection[str]) -> Refusal | None:
    """ROLE (NotPermitted): `badge` may run the read `command` only with a role that sees it."""
    read = READS.get(command)
    if read is None:
        return Refusal.not_permitted(f"{command} is not a read any role may run")
    if may_read(roles, read):
        return None
    shows = " and ".join(s.value for s in sorted(read.shows))
    return Refusal.not_permitted(
        f"badge {badge} ({name}) may not run {command}: it shows {shows}; a "
        f"{' or '.join(roles_for(read))} may (their roles: {', '.join(sorted(roles)) or 'none'})"
    )


# -- scoped reads ---------------------------------------------------------------------------------

#: the day report's parts and the section each shows; a part not named here is withheld from
#: every role that does not see everything (tests/test_read_access.py names every part)
DAY_REPORT_PARTS: Mapping[str, Section | None] = {
    "training": None, "organisation": None, "location": None, "date": None, "sessions": None,
    "rule_records": None, "deposit_by": None, "reports_due": None,
    "gross": S.MONEY, "prizes_paid": S.MONEY, "net": S.MONEY, "deals": S.MONEY,
    "products": S.MONEY, "bingo": S.MONEY, "rentals": S.MONEY, "vouchers": S.MONEY,
    "voids": S.MONEY, "hourly": S.MONEY, "operators": S.MONEY, "raffles": S.MONEY,
    "deposits_due": S.MONEY,
    "stations": S.OWN_STATION, "cash": S.OWN_STATION, "counts": S.OWN_STATION,
    "warnings": S.OWN_STATION,
    "blocked_purchases": S.PEOPLE, "variance": S.PEOPLE,
    "overrides": S.EXCEPTIONS, "exceptions": S.EXCEPTIONS, "unpunched": S.EXCEPTIONS,
}  # fmt: skip


def day_report_for(roles: Collection[str], station: str, report: dict[str, Any]) -> dict[str, Any]:
    """The day report as `roles` may read it at `station`: the parts they do not see taken out
    (named in "withheld"); without MONEY only this station's rows; without EXPECTED_CASH a
    drawer's expected figure only once its count is recorded."""
    if all(sees(roles, s) for s in Section):
        return report
    shown: dict[str, Any] = {}
    withheld = []
    for key, value in report.items():
        section = DAY_REPORT_PARTS.get(key, S.AUDIT)  # unknown: only to those who see it all
        if section is None or sees(roles, section):
            shown[key] = value
        else:
            withheld.append(key)
    if not sees(roles, S.MONEY):  # a seller sees their own station's
        for key in ("stations", "cash", "counts", "warnings"):
            if key in shown:
                shown[key] = [row for row in shown[key] if row.get("station") == station]
    if not sees(roles, S.EXPECTED_CASH) and "cash" in shown:
        shown["cash"] = [blind(row) for row in shown["cash"]]
    shown["withheld"] = withheld
    return shown


def blind(row: dict[str, Any]) -> dict[str, Any]:
    """A drawer's cash row as the blind count allows: what was expected only once counted."""
    if row.get("counted") is not None:
        return row
    return row | {"expected": None, "over_short": None}


def deposit_list_for(roles: Collection[str], listing: dict[str, Any]) -> dict[str, Any]:
    """The deposit list as `roles` may read it: without EXPECTED_CASH, a session's amount (and
    what a deposit should have held) only when its cash was counted. `listing`: "deposits"
    (each with "counted": every session it holds was counted) and "due" (each with "basis")."""
    if sees(roles, S.EXPECTED_CASH):
        return listing
    deposits = [
        d if d.get("counted") else d | {"should_hold": None, "short": None, "short_by": None}
        for d in listing["deposits"]
    ]
    due = [d if d.get("basis") == "counted" else d | {"amount": None} for d in listing["due"]]
    return listing | {"deposits": deposits, "due": due, "withheld": ["expected cash"]}


#: the day report as a document (its PDF and CSV files, the reconciliation form): the hall's
#: whole takings and cash, so only for a role that sees money and the expected cash
DOCUMENT = _read(S.MONEY, S.EXPECTED_CASH)


def document_for(roles: Collection[str], report: dict[str, Any]) -> dict[str, Any]:
    """The day report as a document for `roles` (who may read DOCUMENT): the parts of the
    sections they do not see emptied, so the document keeps its shape (the phone's PDFs too)."""
    scoped = dict(report)
    for key, value in report.items():
        section = DAY_REPORT_PARTS.get(key, S.AUDIT)
        if section is not None and not sees(roles, section):
            scoped[key] = [] if isinstance(value, list) else {} if isinstance(value, dict) else None
    return scoped
