"""Hall staff: who they are, their badge, and what they may do."""

from __future__ import annotations

from typing import Any

from pos.domain import identity
from pos.domain.checks import staff as staff_checks
from pos.errors import BadInput, refuse
from pos.ledger.projections import hall as hall_read
from pos.services.inputs import checked_input
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
        body: dict[str, Any] = {"badge": badge, "name": name, "roles": roles, "by": by}
        if dob:
            body["date_of_birth"] = dob
        event = st.append("StaffAdded", body)
    return {"badge": badge, "name": name, "roles": roles, "event": f"{event.origin}:{event.seq}"}


def list_staff(st: Station) -> list[dict[str, Any]]:
    return hall_read.active_staff(st.ledger.conn)
