"""Shift rosters: import (all or nothing, idempotent), show, add, change, cancel."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from pos.domain import names
from pos.domain.checks import workers
from pos.domain.roster import InvalidRoster, Shift, parse_roster, parse_shift_fields
from pos.domain.typed import parse_date
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import hall as hall_read
from pos.ledger.projections import roster as roster_read
from pos.services.inputs import ROSTER_MAX, checked_input, read_input_text
from pos.services.staff import worker_refusal
from pos.services.station import Station

EVENT_BATCH = 1000  # shifts per ShiftsImported event: one import may span several events


def _shift_body(shift: Shift, badge: str) -> dict[str, Any]:
    return {
        "key": Shift(
            shift.name,
            shift.date_of_birth,
            badge,
            shift.organisation,
            shift.day,
            shift.start,
            shift.end,
            shift.duty,
            shift.session,
        ).key,
        "badge": badge,
        "name": shift.name,
        "date_of_birth": shift.date_of_birth.isoformat() if shift.date_of_birth else None,
        "organisation": shift.organisation,
        "day": shift.day.isoformat(),
        "start": shift.start.isoformat("minutes"),
        "end": shift.end.isoformat("minutes"),
        "duty": shift.duty,
        **({"session": shift.session} if shift.session else {}),
    }


def _match_people(st: Station, shifts: list[Shift]) -> tuple[dict[int, str], list[dict[str, Any]]]:
    """Each shift's badge: the staff record with that badge, else the one with the same name and
    date of birth, else a new record. Returns (shift index -> badge, new people)."""
    by_badge = hall_read.staff_names(st.ledger.conn)
    # names compare as people write them (pos.domain.names): every key of every staff name
    by_person = {
        (key, dob): badge
        for badge, (name, dob) in sorted(by_badge.items(), reverse=True)
        if dob
        for key in names.keys_of_full(name)
    }
    chosen: dict[int, str] = {}
    new: dict[str, dict[str, Any]] = {}
    for index, shift in enumerate(shifts):
        dob = shift.date_of_birth.isoformat() if shift.date_of_birth else None
        if shift.badge in by_badge or shift.badge in new:
            chosen[index] = shift.badge
            continue
        matched = None
        if dob:
            matched = min(
                (
                    by_person[(key, dob)]
                    for key in names.keys_of_full(shift.name)
                    if (key, dob) in by_person
                ),
                default=None,
            )
        if matched:
            chosen[index] = matched
            continue
        new[shift.badge] = {"badge": shift.badge, "name": shift.name, "date_of_birth": dob}
        chosen[index] = shift.badge
    return chosen, list(new.values())


def _check_ages(st: Station, shifts: list[Shift], badges: dict[int, str]) -> None:
    """MINOR (11VAC20-20-60 E): every shift's worker old enough for its duty on its date, with
    a parent's consent on file at 14 through 17; all of them are refused together."""
    on_file = hall_read.staff_names(st.ledger.conn)
    problems: list[str] = []
    for index, shift in enumerate(shifts):
        badge = badges[index]
        known_dob = on_file.get(badge, (None, None))[1]
        born = shift.date_of_birth or (date.fromisoformat(known_dob) if known_dob else None)
        refusal = worker_refusal(
            st,
            workers.Worker(badge, shift.name, born),
            day=shift.day,
            what=f"a {shift.duty} shift on {shift.day.isoformat()}",
            operating=workers.operates(duty=shift.duty),
        )
        if refusal is not None and refusal.message not in problems:
            problems.append(refusal.message)
    refuse(workers.refused_together(problems))


def import_roster(
    st: Station,
    path: Path,
    *,
    operator: str | None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """A roster CSV, all of it or none. `progress(done, total)`: shifts recorded so far."""
    by = st.operator(operator, "manager")
    text = read_input_text(path, "roster", limit=ROSTER_MAX, encoding="utf-8-sig")
    try:
        shifts = parse_roster(text, st.clock.now().date())
    except InvalidRoster as exc:
        raise BadInput(
            "roster", f"{path} has errors; nothing was imported:\n" + "\n".join(exc.errors[:50])
        ) from None
    with st.ledger.transaction():
        chosen, new_people = _match_people(st, shifts)
        _check_ages(st, shifts, chosen)
        known = roster_read.shift_keys(st.ledger.conn)
        bodies, seen = [], set()
        for index, shift in enumerate(shifts):
            body = _shift_body(shift, chosen[index])
            if body["key"] not in known and body["key"] not in seen:
                seen.add(body["key"])
                bodies.append(body)
        for start in range(0, len(bodies), EVENT_BATCH):
            st.append(
                "ShiftsImported",
                {
                    "shifts": bodies[start : start + EVENT_BATCH],
                    "new_staff": new_people if start == 0 else [],
                    "source": path.name,
                    "by": by.badge,
                },
            )
            if progress is not None:
                progress(min(start + EVENT_BATCH, len(bodies)), len(bodies))
    return {
        "rows": len(shifts),
        "imported": len(bodies),
        "unchanged": len(shifts) - len(bodies),
        "new_staff": len(new_people),
    }


def show_roster(st: Station, day: str | None = None) -> list[dict[str, Any]]:
    if day:
        with checked_input("date"):
            day = parse_date(day).isoformat()
    return roster_read.active_shifts(st.ledger.conn, day)


def add_shift(st: Station, fields: dict[str, str], *, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    shift, problems = parse_shift_fields(fields, st.clock.now().date())
    if shift is None:
        raise BadInput("shift", "; ".join(problems))
    with st.ledger.transaction():
        chosen, new_people = _match_people(st, [shift])
        _check_ages(st, [shift], chosen)
        body = _shift_body(shift, chosen[0])
        if roster_read.shift_on_roster(st.ledger.conn, body["key"]):
            raise BadInput("shift", f"that shift is already on the roster ({body['key']})")
        st.append(
            "ShiftsImported",
            {"shifts": [body], "new_staff": new_people, "source": "added", "by": by.badge},
        )
    return body


def _active_shift(st: Station, key: str) -> dict[str, Any]:
    row = roster_read.active_shift(st.ledger.conn, key)
    if row is None:
        raise NotFound(f"no active shift {key!r} on the roster")
    return row


def change_shift(
    st: Station, key: str, changes: dict[str, str | None], *, operator: str | None
) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with st.ledger.transaction():
        current = _active_shift(st, key)
        merged = {k: str(v) for k, v in current.items() if v is not None}
        merged["date"] = merged.pop("day")
        merged.update({k: v for k, v in changes.items() if v is not None})
        with checked_input("shift"):
            shift, problems = parse_shift_fields(merged, st.clock.now().date())
        if shift is None:
            raise BadInput("shift", "; ".join(problems))
        _check_ages(st, [shift], {0: current["badge"]})
        body = {
            "key": key,
            "day": shift.day.isoformat(),
            "start": shift.start.isoformat("minutes"),
            "end": shift.end.isoformat("minutes"),
            "duty": shift.duty,
            "session": shift.session,
            "by": by.badge,
        }
        st.append("ShiftChanged", body)
    return body


def cancel_shift(st: Station, key: str, *, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with st.ledger.transaction():
        _active_shift(st, key)
        st.append("ShiftCancelled", {"key": key, "by": by.badge})
    return {"key": key, "state": "cancelled"}
