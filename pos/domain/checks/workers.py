"""The ages of the people who work a hall (MINOR, 11VAC20-20-60 E, formerly 11VAC15-40-50 E):

"No individual under the age of 18 may participate in the management or operation of bingo
games. Individuals 14 through 17 years of age may participate in the conduct of a bingo game
provided the organization ... obtains and keeps on file written parental consent from the
parent or legal guardian and verifies the date of birth of the minor."

What counts as what, here:
- management or operation (18 and over): the manager and treasurer roles, a roster's `manage`
  and `bingo` duties (running the session, calling the games: § 18.2-340.16 lists "calling
  bingo games" in the conduct of a game), and verifying a cash count for the organisation (the
  second person of COUNT2 answers for the session's money);
- the conduct of a game (14 and over; 14 through 17 with consent on file): every other worker,
  the seller and redeemer roles and the `sell`, `redeem` and `count` duties;
- the inspector role is the department's agent, not a worker: no age applies.

A person with no date of birth on file is refused as a worker: the rule has the organisation
verify a minor's date of birth, and without one nobody can tell a minor from an adult, so the
under-14 and under-18 limits could not be kept. Ages are whole years on the day of the act (a
shift's date, the day a role is given or a count verified); someone born on 29 February turns a
year older on 1 March in a year without one.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date

from pos.domain.checks import Refusal

NOT_WORKER_ROLES = frozenset({"inspector"})
OPERATING_ROLES = frozenset({"manager", "treasurer"})
OPERATING_DUTIES = frozenset({"manage", "bingo"})


@dataclass(frozen=True)
class Consent:
    """Written consent of a parent or legal guardian, on file: who signed it and when."""

    guardian: str
    signed: date


@dataclass(frozen=True)
class Worker:
    """Who is to work, as the records say: badge, name and date of birth (None: not on file)."""

    badge: str
    name: str
    born: date | None


def age_on(born: date, day: date) -> int:
    """Whole years from `born` to `day`."""
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def is_worker(roles: Collection[str]) -> bool:
    """Whether these roles make their holder a worker (anything but an inspector)."""
    return any(role not in NOT_WORKER_ROLES for role in roles)


def operates(*, roles: Collection[str] = (), duty: str | None = None) -> bool:
    """Whether the roles or the duty are management or operation of bingo (18 and over)."""
    return bool(OPERATING_ROLES & set(roles)) or duty in OPERATING_DUTIES


def may_work(
    worker: Worker,
    *,
    day: date,
    what: str,
    operating: bool,
    consent: Consent | None,
    worker_minimum_age: int = 14,
    operator_minimum_age: int = 18,
) -> Refusal | None:
    """MINOR: `worker` may do `what` (words: "the manager role", "a bingo shift on 2026-11-28")
    on `day`: a date of birth on file; never under `worker_minimum_age`; under
    `operator_minimum_age` never in management or operation (`operating`), and otherwise only
    with a parent's or guardian's written consent signed on or before `day`."""
    who = f"{worker.name} ({worker.badge})"
    if worker.born is None:
        return Refusal(
            "MINOR",
            f"{who} has no date of birth on file: it is needed for {what}, to verify they are "
            f"{worker_minimum_age} or over (and {operator_minimum_age} or over to manage or "
            "operate bingo); record it with --dob",
        )
    age = age_on(worker.born, day)
    born = worker.born.isoformat()
    if age < worker_minimum_age:
        return Refusal(
            "MINOR",
            f"{who}, born {born}, is {age} on {day.isoformat()}: nobody under "
            f"{worker_minimum_age} works at charitable gaming ({what})",
        )
    if age >= operator_minimum_age:
        return None
    if operating:
        return Refusal(
            "MINOR",
            f"{who}, born {born}, is {age} on {day.isoformat()}: nobody under "
            f"{operator_minimum_age} manages or operates bingo ({what})",
        )
    if consent is None or consent.signed > day:
        return Refusal(
            "MINOR",
            f"{who}, born {born}, is {age} on {day.isoformat()}: a worker aged "
            f"{worker_minimum_age} through {operator_minimum_age - 1} needs the written consent "
            f"of a parent or legal guardian on file ({what}); record it with 'booth staff "
            f"consent {worker.badge} --guardian NAME --signed DATE'"
            + (f" (the consent on file is signed {consent.signed.isoformat()})" if consent else ""),
        )
    return None


def refused_together(messages: Sequence[str], *, shown: int = 20) -> Refusal | None:
    """MINOR for a whole roster: every worker refused, named in one refusal (a roster is taken
    whole or not at all), or None when nobody is."""
    if not messages:
        return None
    listed = list(messages[:shown])
    if len(messages) > shown:
        listed.append(f"(and {len(messages) - shown} more)")
    return Refusal("MINOR", "; ".join(listed) + "; nothing was recorded")
