"""Hall staff: who they are, their badge, and what they may do."""

from __future__ import annotations

from datetime import date
from typing import Any

from pos.domain import identity
from pos.domain.checks import Refusal, workers
from pos.domain.checks import staff as staff_checks
from pos.domain.typed import parse_date
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import hall as hall_read
from pos.services.current_session import hall_date
from pos.services.inputs import checked_input
from pos.services.settings import rulebook_settings
from pos.services.station import Station


def add_staff(
    st: Station,
    *,
    badge: str,
    name: str,
    roles: list[str],
    date_of_birth: str | None,
    operator: str | None,
) -> dict[str, Any]:
    with checked_input():
        badge = identity.badge(badge)
        name = identity.person_name(name)
        roles = identity.staff_roles(roles)
        dob = (
            identity.date_of_birth(date_of_birth, st.clock.now().date()) if date_of_birth else None
        )
    with st.ledger.transaction():
        if st.has_manager():
            by: str | None = st.operator(operator, "manager").badge
        else:
            refuse(staff_checks.first_is_manager(roles))
            by = None
        existing = st.staff(badge)
        if existing is not None:
            raise BadInput("badge", f"{badge} is already on staff ({existing.name})")
        if workers.is_worker(roles):
            refuse(
                worker_refusal(
                    st,
                    workers.Worker(badge, name, date.fromisoformat(dob) if dob else None),
                    day=hall_date(st, st.clock.now()),
                    what=f"the {', '.join(roles)} role{'s' if len(roles) > 1 else ''}",
                    operating=workers.operates(roles=roles),
                )
            )
        body: dict[str, Any] = {"badge": badge, "name": name, "roles": roles, "by": by}
        if dob:
            body["date_of_birth"] = dob
        event = st.append("StaffAdded", body)
    return {"badge": badge, "name": name, "roles": roles, "event": f"{event.origin}:{event.seq}"}


def list_staff(st: Station) -> list[dict[str, Any]]:
    return hall_read.active_staff(st.ledger.conn)


def worker_refusal(
    st: Station, worker: workers.Worker, *, day: date, what: str, operating: bool
) -> Refusal | None:
    """MINOR (11VAC20-20-60 E): may `worker` do `what` on `day`? With the consent on file for
    their badge and the rulebook's ages."""
    rules = rulebook_settings(st)
    found = hall_read.parental_consent(st.ledger.conn, worker.badge)
    consent = workers.Consent(found[0], date.fromisoformat(found[1])) if found else None
    return workers.may_work(
        worker,
        day=day,
        what=what,
        operating=operating,
        consent=consent,
        worker_minimum_age=rules.worker_minimum_age,
        operator_minimum_age=rules.operator_minimum_age,
    )


def staff_worker(st: Station, badge: str) -> workers.Worker:
    """A member of staff as a worker: badge, name and date of birth on file."""
    found = hall_read.staff_member(st.ledger.conn, badge)
    if found is None:
        raise NotFound(f"badge {badge!r} is not on this hall's staff")
    return workers.Worker(found[0], found[1], date.fromisoformat(found[2]) if found[2] else None)


def record_consent(
    st: Station,
    badge: str,
    *,
    guardian: str,
    signed: str,
    name: str | None = None,
    operator: str | None,
) -> dict[str, Any]:
    """A parent's or legal guardian's written consent for a worker aged 14 through 17, now on
    file (11VAC20-20-60 E). For a badge not yet on staff (about to be added, or on a roster to
    import), `name` says whose it is."""
    by = st.operator(operator, "manager")
    today = hall_date(st, st.clock.now())
    with checked_input():
        badge = identity.badge(badge)
        guardian = identity.person_name(guardian, "guardian")
    with checked_input("signed"):
        day = parse_date(signed)
    if day > today:
        raise BadInput("signed", f"{day.isoformat()} is after today ({today.isoformat()})")
    with st.ledger.transaction():
        known = hall_read.staff_member(st.ledger.conn, badge)
        if known is not None:
            name = known[1]
        elif not name:
            raise BadInput(
                "name", f"badge {badge} is not on staff yet: say whose consent it is (--name)"
            )
        else:
            with checked_input():
                name = identity.person_name(name)
        event = st.append(
            "ParentalConsentRecorded",
            {
                "badge": badge,
                "name": name,
                "guardian": guardian,
                "signed": day.isoformat(),
                "by": by.badge,
            },
        )
    return {
        "badge": badge,
        "name": name,
        "guardian": guardian,
        "signed": day.isoformat(),
        "event": f"{event.origin}:{event.seq}",
    }
