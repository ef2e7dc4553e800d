"""Every read that shows money or people goes through here: `reader` checks the badge against
the one policy (pos.domain.read_access, rule ROLE) and the scoped reads withhold by it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pos.domain import read_access
from pos.domain.read_access import Section
from pos.errors import refuse
from pos.services import books_deposits, reports
from pos.services.current_session import hall_date
from pos.services.station import Station


@dataclass(frozen=True)
class Reader:
    """Who reads, at which station: what the policy lets them see."""

    badge: str | None
    roles: frozenset[str]
    station: str

    def sees(self, section: Section) -> bool:
        return read_access.sees(self.roles, section)


def reader(st: Station, badge: str | None, command: str) -> Reader:
    """The reader of `command` (`booth report day`...): refused (NotPermitted, rule ROLE) with
    no badge, a badge not on staff, or no role that may read it. An open read needs no badge."""
    if not read_access.needs_badge(command):  # read nothing more: `verify` of a damaged file
        return Reader(badge, frozenset(), st.id)
    if not st.has_manager():  # a hall being set up: as its first `staff add`, no badge yet
        return Reader(badge, frozenset({"manager"}), st.id)
    if not badge:
        refuse(read_access.no_badge(command))
    person = st.operator(badge)
    refuse(read_access.check(command, person.badge, person.name, person.roles))
    return Reader(badge, frozenset(person.roles), st.id)


def for_role(st: Station, role: str) -> Reader:
    """A reader holding `role` (a screen's signed-on person, a phone's session)."""
    return Reader(None, frozenset({role}), st.id)


def day_report(
    st: Station, who: Reader, day: str | None = None, session: str | None = None
) -> dict[str, Any]:
    """`booth report day` as `who` may read it."""
    return read_access.day_report_for(who.roles, who.station, reports.day_report(st, day, session))


def deposit_list(st: Station, who: Reader) -> dict[str, Any]:
    """`booth deposit list` as `who` may read it: the deposits on file and the sessions due."""
    deposits = [
        d
        | {
            "counted": all(
                books_deposits.session_cash(st, s)[1] == "counted" for s in d["sessions"]
            )
        }
        for d in books_deposits.deposits(st)
    ]
    listing = {
        "deposits": deposits,
        "due": books_deposits.reminders(st, hall_date(st, st.clock.now())),
    }
    return read_access.deposit_list_for(who.roles, listing)


def day_document(
    st: Station, who: Reader, day: str | None = None, session: str | None = None
) -> dict[str, Any]:
    """The day report for its PDF, CSV or the reconciliation form: refused (rule ROLE) to a
    reader who does not see the hall's money and expected cash."""
    refuse(read_access.check_document(who.badge, who.roles))
    return read_access.document_for(who.roles, reports.day_report(st, day, session))
