"""The bookkeeper's rules, pure: which form line each kind of sale goes to, the state's report
periods and due dates, deposit deadlines, the audit and administration fee, and the running
list of cash variances per person.

The extension point for new products (bingo paper, decision bingo, raffles, electronic
pull-tabs): PRODUCT_LINES maps a product kind, as the ledger names it, to the game type the
state's forms report it under, and says whether its receipts are deposited per session or
weekly (electronic gaming, 11VAC20-20-80 D). A new product is one more row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from pos.domain.business_days import add_business_days

# -- game types and the product kinds that report under them -------------------------------------

#: the game types of the state's forms, in the forms' order
GAME_TYPES: tuple[tuple[str, str], ...] = (
    ("bingo", "Bingo"),
    ("instant", "Instant bingo, pull-tabs and seal cards"),
    ("raffle", "Raffles"),
    ("electronic", "Electronic gaming"),
)

SESSION, WEEKLY = "session", "weekly"


@dataclass(frozen=True)
class ProductLine:
    game_type: str  # a key of GAME_TYPES
    deposit: str  # SESSION: by the second business day; WEEKLY: at least every 7 days


#: product kind (a deal's game, or another product's kind) -> its form line and deposit rule.
PRODUCT_LINES: dict[str, ProductLine] = {
    "pull-tab": ProductLine("instant", SESSION),
    "seal-card": ProductLine("instant", SESSION),
    "event": ProductLine("instant", SESSION),
    # electronic bingo device rentals are bingo (11VAC15-40-60 E; reported as bingo)
    "device-rental": ProductLine("bingo", SESSION),
    "bingo-paper": ProductLine("bingo", SESSION),
    "decision-bingo": ProductLine("bingo", SESSION),
    "progressive-bingo": ProductLine("bingo", SESSION),
    "raffle": ProductLine("raffle", SESSION),
    "treasure-chest": ProductLine("raffle", SESSION),
    # electronic pull-tabs (distributed pull-tab systems): 11VAC20-20-80 D, seven days
    "electronic-pull-tab": ProductLine("electronic", WEEKLY),
}


def game_type(kind: str) -> str | None:
    line = PRODUCT_LINES.get(kind)
    return line.game_type if line else None


# -- disbursement categories ---------------------------------------------------------------------

CATEGORIES: tuple[tuple[str, str], ...] = (
    ("prizes-by-check", "Prizes paid by check"),
    ("supplies", "Gaming supplies (deals, paper)"),
    ("rent", "Rent"),
    ("equipment", "Equipment"),
    ("advertising", "Advertising"),
    ("fees", "Fees, taxes and licences"),
    ("other", "Other expenses"),
    ("use-of-proceeds", "Use of proceeds"),
)
EXPENSE_CATEGORIES = tuple(key for key, _ in CATEGORIES if key != "use-of-proceeds")


# -- report periods and due dates (VDACS: Form 102 quarterly, Form 101 annual) -------------------


@dataclass(frozen=True)
class Period:
    report: str  # "quarter" or "annual"
    label: str  # "2026 Q3", "2026"
    start: date
    end: date  # inclusive
    due: date


QUARTER_DUE = {1: (0, 6, 1), 2: (0, 9, 1), 3: (0, 12, 1), 4: (1, 3, 1)}  # years after, month, day
ANNUAL_DUE = (1, 3, 15)


def quarter(year: int, q: int) -> Period:
    if q not in QUARTER_DUE:
        raise ValueError(f"quarter {q} is not 1, 2, 3 or 4")
    start = date(year, 3 * q - 2, 1)
    end = (date(year + (q == 4), (3 * q) % 12 + 1, 1)) - timedelta(days=1)
    later, month, day = QUARTER_DUE[q]
    return Period("quarter", f"{year} Q{q}", start, end, date(year + later, month, day))


def annual(year: int) -> Period:
    later, month, day = ANNUAL_DUE
    return Period(
        "annual", str(year), date(year, 1, 1), date(year, 12, 31), date(year + later, month, day)
    )


def quarter_of(day: date) -> int:
    return (day.month - 1) // 3 + 1


def due_next(today: date, count: int = 2) -> list[Period]:
    """The state's reports due next: those whose period has ended and whose due date is today
    or later, soonest first."""
    candidates = [quarter(y, q) for y in (today.year - 1, today.year) for q in (1, 2, 3, 4)]
    candidates += [annual(today.year - 1), annual(today.year)]
    pending = sorted(
        (p for p in candidates if p.end < today <= p.due), key=lambda p: (p.due, p.report)
    )
    return pending[:count]


# -- deposits (11VAC20-20-80 D) -----------------------------------------------------------------


def deposit_due(session_day: date, *, business_days: int, calendar: str) -> date:
    """A session's receipts: by the `business_days`-th business day after the session."""
    return add_business_days(session_day, business_days, calendar)


def weekly_due(oldest_receipt_day: date, *, days: int) -> date:
    """Electronic gaming receipts: deposited at least once every `days` calendar days, so the
    oldest receipt not yet deposited is due `days` days after it was taken."""
    return oldest_receipt_day + timedelta(days=days)


# -- the audit and administration fee (11VAC20-20-100 B, C) -------------------------------------


def audit_fee(
    gross: int, electronic_adjusted_gross: int, *, rate_bp: int, additional_bp: int
) -> int:
    """Cents: (rate + additional) basis points of the gross receipts other than electronic
    gaming, plus the same of electronic gaming's adjusted gross receipts (its gross less its
    prizes), each rounded half up to the cent."""
    bp = rate_bp + additional_bp

    def part(base: int) -> int:
        return (max(base, 0) * bp + 5_000) // 10_000

    return part(gross) + part(electronic_adjusted_gross)


# -- cash counts --------------------------------------------------------------------------------


def count_status(counted_by: str, verified_by: str | None) -> str:
    """A count is verified only when a second person, with another badge, verified it."""
    return "verified" if verified_by and verified_by != counted_by else "not verified"


@dataclass(frozen=True)
class PersonVariance:
    person: str
    counts: int
    short: int  # how many of the counts came up short
    over: int
    short_cents: int  # the shortfalls added up (positive)
    over_cents: int
    net_cents: int


def variance_by_person(rows: Iterable[tuple[str, int]]) -> list[PersonVariance]:
    """(person, variance in cents: counted - expected) per count -> the running list, those
    short most often first."""
    people: dict[str, list[int]] = {}
    for person, variance in rows:
        people.setdefault(person, []).append(variance)
    out = [
        PersonVariance(
            person,
            len(v),
            sum(1 for x in v if x < 0),
            sum(1 for x in v if x > 0),
            -sum(x for x in v if x < 0),
            sum(x for x in v if x > 0),
            sum(v),
        )
        for person, v in people.items()
    ]
    return sorted(out, key=lambda p: (-p.short, -p.short_cents, p.person))
