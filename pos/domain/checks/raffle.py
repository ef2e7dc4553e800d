"""Raffles (F1, F2, RAFFLE, W2G): a raffle taken in with its prizes valued, its tickets sold and
voided at the station that holds it before the drawing, the stubs counted in, each number drawn,
each prize claimed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from pos.domain.checks import Refusal
from pos.domain.money import format_amount
from pos.domain.raffle import Prize, ordinal, ticket_label


def creatable(raffle: str, *, known: bool, prizes: Sequence[Prize]) -> Refusal | None:
    """RAFFLE: a raffle id is taken once; F2: each prize has a value and the basis for it."""
    if known:
        return Refusal("RAFFLE", f"a raffle {raffle} is already on file")
    for prize in prizes:
        if prize.value <= 0:
            return Refusal(
                "F2",
                f"the {ordinal(prize.place)} prize ({prize.description}) has no value: give its "
                "fair market value",
            )
        if not prize.basis:
            return Refusal(
                "F2",
                f"the {ordinal(prize.place)} prize ({prize.description}, "
                f"${format_amount(prize.value)}) has no basis for its value: say how the fair "
                "market value was found (a receipt, an appraisal, a retail price)",
            )
    return None


def held_here(raffle: str, *, holder: str, here: str) -> Refusal | None:
    """RAFFLE: tickets are numbered and the drawing recorded only where the raffle is held."""
    if holder != here:
        return Refusal(
            "RAFFLE",
            f"raffle {raffle} is held by station {holder}: its tickets are sold and drawn there, "
            f"not at {here}",
        )
    return None


def before_drawing(raffle: str, *, stubs_counted: int | None, doing: str) -> Refusal | None:
    """F1: once the stubs are in the receptacle, no ticket is sold or voided."""
    if stubs_counted is not None:
        return Refusal(
            "F1",
            f"raffle {raffle}'s {stubs_counted} stubs are already in the receptacle for the "
            f"drawing: no ticket can be {doing} now",
        )
    return None


def drawing_day(raffle: str, *, drawing_date: date, today: date) -> Refusal | None:
    """RAFFLE: the drawing is held on its announced date (or later, when postponed)."""
    if today < drawing_date:
        return Refusal(
            "RAFFLE",
            f"raffle {raffle} is drawn on {drawing_date.isoformat()}, not before "
            f"(today is {today.isoformat()})",
        )
    return None


def stubs_match(raffle: str, *, stubs: int, sold: int, voided: int) -> Refusal | None:
    """F1: the stubs placed in the receptacle are exactly the tickets sold and not voided."""
    expected = sold - voided
    if stubs != expected:
        return Refusal(
            "F1",
            f"raffle {raffle}: {stubs:,} stubs counted into the receptacle but {expected:,} "
            f"tickets were sold and not voided ({sold:,} sold, {voided:,} voided): every stub "
            "of every ticket sold, and no other, goes in; the drawing cannot start",
        )
    return None


def stubs_recount(raffle: str, *, stubs_counted: int | None) -> Refusal | None:
    """F1: the stubs are counted in once; the drawing then stands on that count."""
    if stubs_counted is not None:
        return Refusal("F1", f"raffle {raffle}'s stubs were already counted in ({stubs_counted:,})")
    return None


def drawing_open(raffle: str, *, stubs_counted: int | None) -> Refusal | None:
    """F1: no number is drawn before every stub sold is counted into the receptacle."""
    if stubs_counted is None:
        return Refusal(
            "F1",
            f"raffle {raffle}: count the stubs into the receptacle first "
            "(booth raffle stubs RAFFLE --count N --witness BADGE)",
        )
    return None


def prize_to_draw(raffle: str, prize: Prize | None, *, drawn: bool) -> Refusal | None:
    """RAFFLE: each prize is drawn once, in its place."""
    if prize is None:
        return Refusal("RAFFLE", f"raffle {raffle} has no such prize, or every prize is drawn")
    if drawn:
        return Refusal("RAFFLE", f"raffle {raffle}'s {ordinal(prize.place)} prize is drawn already")
    return None


def drawn_ticket(
    raffle: str,
    number: int,
    *,
    sold: bool,
    voided: bool,
    won: int | None,
) -> Refusal | None:
    """F1: a number drawn is a ticket sold and not voided, and not one that already won."""
    label = ticket_label(number)
    if not sold:
        return Refusal(
            "F1",
            f"raffle {raffle}: ticket {label} was never sold, so its stub cannot be in the "
            "receptacle; the number is not a winner",
        )
    if voided:
        return Refusal(
            "F1",
            f"raffle {raffle}: ticket {label} was voided, so its stub cannot be in the "
            "receptacle; the number is not a winner",
        )
    if won is not None:
        return Refusal(
            "RAFFLE",
            f"raffle {raffle}: ticket {label} already won the {ordinal(won)} prize; its stub "
            "is out of the receptacle",
        )
    return None


def claimable(raffle: str, prize: Prize, *, ticket: int | None, claimed: bool) -> Refusal | None:
    """RAFFLE: a prize is claimed once, after its number is drawn."""
    if ticket is None:
        return Refusal(
            "RAFFLE", f"raffle {raffle}'s {ordinal(prize.place)} prize has not been drawn yet"
        )
    if claimed:
        return Refusal(
            "RAFFLE", f"raffle {raffle}'s {ordinal(prize.place)} prize was claimed already"
        )
    return None


def presented_ticket(raffle: str, prize: Prize, *, drawn: int, presented: int) -> Refusal | None:
    """F1: the buyer's part presented carries the number drawn."""
    if drawn != presented:
        return Refusal(
            "F1",
            f"raffle {raffle}: the ticket presented is {ticket_label(presented)}, but "
            f"{ticket_label(drawn)} won the {ordinal(prize.place)} prize",
        )
    return None
