"""Raffles (11VAC15-40-60 F): a raffle with its drawing date and its prizes at fair market value
(F2); its numbered two-part tickets sold (each a receipt: the stub and the buyer's part print
with the same number, the buyer's part with its signed QR code) and voided; at the drawing, the
stubs counted into the receptacle against the tickets sold (F1), each number drawn checked sold
and not voided (F1), the witnesses, and each winner's claim with identity where Form W-2G needs it.

A refusal at the drawing (stubs that do not match, a number never sold or voided) is recorded
for the manager as an ExceptionFlagged event first, in its own transaction, then raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pos.domain import raffle as raffle_domain
from pos.domain.checks import Refusal
from pos.domain.checks import raffle as raffle_checks
from pos.domain.money import CENTS, InvalidCount, format_amount, parse_count
from pos.domain.raffle import InvalidRaffle, Prize, Terms, ordinal
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import prizes as prizes_read
from pos.ledger.projections import raffle as raffle_read
from pos.services import receipts
from pos.services.current_session import hall_date
from pos.services.eligibility import enforce_for_buyer, identity_decision, refusals_recorded
from pos.services.money_path import prize_unpaid, session_if_any
from pos.services.numbering import next_receipt_number
from pos.services.players import resolve_buyer
from pos.services.station import Station
from pos.services.w2g import Winner, identity_for

MAX_QTY = 500
MAX_WITNESSES = 20


def parse_terms(
    raffle: str, *, name: str, drawing_date: str, price: str, prizes: list[str]
) -> Terms:
    try:
        return raffle_domain.parse_terms(raffle, name, drawing_date, price, prizes)
    except InvalidRaffle as exc:
        raise BadInput(exc.field, exc.reason) from None


def _id(text: str) -> str:
    try:
        return raffle_domain.parse_id(text)
    except InvalidRaffle as exc:
        raise BadInput(exc.field, exc.reason) from None


def _count(value: object, field: str, *, minimum: int = 1, maximum: int = 10**9) -> int:
    try:
        return parse_count(value, field, minimum=minimum, maximum=maximum)
    except InvalidCount as exc:
        raise BadInput(field, exc.reason) from None


def _raffle(st: Station, raffle_id: str) -> dict[str, Any]:
    found = raffle_read.raffle(st.ledger.conn, raffle_id)
    if found is None:
        raise NotFound(f"no raffle {raffle_id} is on file here")
    return found


def _prizes(st: Station, raffle_id: str) -> list[dict[str, Any]]:
    return raffle_read.prizes(st.ledger.conn, raffle_id)


def _prize(row: dict[str, Any]) -> Prize:
    return Prize(int(row["place"]), row["description"], int(row["value"]), row["basis"])


def _flag(st: Station, flag: str, raffle_id: str, detail: str, by: str, ticket: int | None) -> None:
    body: dict[str, Any] = {"flag": flag, "serial": raffle_id, "detail": detail, "by": by}
    if ticket is not None:
        body["ticket"] = raffle_domain.ticket_label(ticket)
    st.append("ExceptionFlagged", body)


def _refuse_flagged(
    st: Station, refusal: Refusal | None, flag: str, raffle_id: str, by: str, ticket: int | None
) -> None:
    """A refusal the manager must see: flagged on the record, then raised (exit 1)."""
    if refusal is None:
        return
    with st.ledger.transaction():
        _flag(st, flag, raffle_id, f"{refusal.message} (rule {refusal.rule})", by, ticket)
    refuse(refusal)


# --- the raffle ---------------------------------------------------------------------------------


def create(st: Station, terms: Terms, *, operator: str | None) -> dict[str, Any]:
    """A manager takes a raffle in here (this station holds it): its drawing date, ticket price
    and prizes, each at fair market value with the basis for it (F2)."""
    by = st.operator(operator, "manager")
    with st.ledger.transaction():
        known = raffle_read.raffle(st.ledger.conn, terms.raffle) is not None
        refuse(raffle_checks.creatable(terms.raffle, known=known, prizes=terms.prizes))
        st.append(
            "RaffleCreated",
            {
                "raffle": terms.raffle,
                "name": terms.name,
                "drawing_date": terms.drawing_date.isoformat(),
                "price": terms.price,
                "prizes": [prize.to_dict() for prize in terms.prizes],
                "by": by.badge,
            },
        )
    return show(st, terms.raffle)


def show(st: Station, raffle_text: str) -> dict[str, Any]:
    """A raffle: its terms, its prizes (value, basis, number drawn, claim), tickets sold and
    voided, the stubs counted in and the witnesses."""
    raffle_id = _id(raffle_text)
    found = _raffle(st, raffle_id)
    sold, voided, last = raffle_read.ticket_counts(st.ledger.conn, raffle_id)
    price = int(found["price"])
    return {
        "raffle": raffle_id,
        "name": found["name"],
        "drawing_date": found["drawing_date"],
        "price": format_amount(price),
        "held_by": found["holder"],
        "tickets_sold": sold,
        "tickets_voided": voided,
        "last_ticket": raffle_domain.ticket_label(last) if last else None,
        "gross": format_amount((sold - voided) * price),
        "stubs": found["stubs"],
        "witnesses": found["witnesses"],
        "stubs_counted_by": found["stubs_by"],
        "prizes": [
            {
                "place": int(p["place"]),
                "description": p["description"],
                "value": format_amount(int(p["value"])),
                "basis": p["basis"],
                "ticket": raffle_domain.ticket_label(int(p["ticket"])) if p["ticket"] else None,
                "drawn_by": p["drawn_by"],
                "claimed": p["claimed_hlc"] is not None,
                "claimed_by": p["claimed_by"],
                "w2g": bool(p["w2g"]),
            }
            for p in _prizes(st, raffle_id)
        ],
    }


def list_raffles(st: Station) -> list[dict[str, Any]]:
    return [show(st, raffle_id) for raffle_id in raffle_read.raffle_ids(st.ledger.conn)]


# --- tickets ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RaffleTicket:
    ticket: int
    number: str  # as printed: "000007"
    receipt: int


@dataclass(frozen=True)
class RaffleSale:
    """Raffle tickets sold, each its own receipt; price and amount in cents."""

    raffle: str
    name: str
    qty: int
    price: int = field(metadata=CENTS)
    amount: int = field(metadata=CENTS)
    tickets: list[RaffleTicket] = field(default_factory=list)


@dataclass(frozen=True)
class RaffleClaim:
    """A raffle prize handed to its winner, once: its fair market value in cents."""

    raffle: str
    place: int
    prize: str
    value: int = field(metadata=CENTS)
    ticket: str = ""  # as printed: "000007"
    w2g: bool = False  # the winner's W-2G data was recorded, sealed
    presented: bool = False  # the buyer's part was presented and checked
    by: str = ""
    event: str = ""


def sell(
    st: Station,
    raffle_text: str,
    *,
    qty: object = 1,
    buyer: str | None = None,
    operator: str | None,
) -> RaffleSale:
    """Sell `qty` numbered tickets of a raffle held here: each its own receipt, printed as the
    stub and the buyer's part with the same number (F1), before the stubs go in."""
    raffle_id = _id(raffle_text)
    count = _count(qty, "qty", maximum=MAX_QTY)
    seller = st.operator(operator, "seller")
    tickets: list[RaffleTicket] = []
    with refusals_recorded(st), st.ledger.transaction():
        found = _raffle(st, raffle_id)
        refuse(raffle_checks.held_here(raffle_id, holder=found["holder"], here=st.id))
        refuse(raffle_checks.before_drawing(raffle_id, stubs_counted=found["stubs"], doing="sold"))
        person = resolve_buyer(st, buyer) if buyer else None
        if person is not None:  # AGE and ID: nobody under 18 buys a raffle ticket either
            enforce_for_buyer(
                st,
                identity_decision(st, person),
                person,
                subject=f"raffle {raffle_id}",
                by=seller.badge,
                manager=None,
                reason=None,
            )
        session = session_if_any(st)
        price = int(found["price"])
        _, _, last = raffle_read.ticket_counts(st.ledger.conn, raffle_id)
        for number in range(last + 1, last + 1 + count):
            receipt = next_receipt_number(st)
            st.append(
                "RaffleTicketSold",
                {
                    "raffle": raffle_id,
                    "ticket": number,
                    "price": price,
                    "amount": price,
                    "receipt": receipt,
                    "session": session.id if session else None,
                    "seller": seller.badge,
                    "buyer": person.code if person else None,
                },
            )
            tickets.append(RaffleTicket(number, raffle_domain.ticket_label(number), receipt))
    return RaffleSale(raffle_id, found["name"], count, price, price * count, tickets)


def void_ticket(
    st: Station, raffle_text: str, ticket: object, *, reason: str, operator: str | None
) -> dict[str, Any]:
    """A manager voids a ticket sold here (a misprint, a sale rung in error) before the stubs go
    in; its stub stays out of the receptacle and its number never wins."""
    raffle_id = _id(raffle_text)
    number = _count(ticket, "ticket")
    by = st.operator(operator, "manager")
    reason = reason.strip()
    if not reason:
        raise BadInput("reason", "say why the ticket is voided")
    with st.ledger.transaction():
        found = _raffle(st, raffle_id)
        refuse(raffle_checks.held_here(raffle_id, holder=found["holder"], here=st.id))
        refuse(
            raffle_checks.before_drawing(raffle_id, stubs_counted=found["stubs"], doing="voided")
        )
        row = raffle_read.ticket(st.ledger.conn, raffle_id, number)
        if row is None:
            raise NotFound(f"raffle {raffle_id} has no ticket {raffle_domain.ticket_label(number)}")
        if row["voided_hlc"]:
            raise BadInput(
                "ticket", f"ticket {raffle_domain.ticket_label(number)} is voided already"
            )
        st.append(
            "RaffleTicketVoided",
            {"raffle": raffle_id, "ticket": number, "reason": reason, "by": by.badge},
        )
    return {
        "raffle": raffle_id,
        "ticket": raffle_domain.ticket_label(number),
        "voided": True,
        "refund": format_amount(int(row["price"])),
        "reason": reason,
    }


# --- the drawing --------------------------------------------------------------------------------


def _witnesses(st: Station, badges: list[str]) -> list[str]:
    chosen: list[str] = []
    for badge in badges:
        badge = badge.strip()
        if st.staff(badge) is None:
            raise BadInput("witness", f"badge {badge!r} is not on this hall's staff")
        if badge not in chosen:
            chosen.append(badge)
    if not chosen:
        raise BadInput("witness", "name the drawing's witnesses: --witness BADGE (repeat)")
    if len(chosen) > MAX_WITNESSES:
        raise BadInput("witness", f"{len(chosen)} witnesses; at most {MAX_WITNESSES}")
    return chosen


def count_stubs(
    st: Station,
    raffle_text: str,
    *,
    stubs: object,
    witnesses: list[str],
    operator: str | None,
) -> dict[str, Any]:
    """The drawing starts: the stubs placed in the receptacle are counted before the witnesses.
    The count must equal the tickets sold and not voided (F1), else it is refused and flagged
    for the manager."""
    raffle_id = _id(raffle_text)
    counted = _count(stubs, "count", minimum=0)
    by = st.operator(operator, "manager")
    chosen = _witnesses(st, witnesses)
    with st.ledger.transaction():
        found = _raffle(st, raffle_id)
        refuse(raffle_checks.held_here(raffle_id, holder=found["holder"], here=st.id))
        refuse(raffle_checks.stubs_recount(raffle_id, stubs_counted=found["stubs"]))
        today = hall_date(st, st.clock.now())
        refuse(
            raffle_checks.drawing_day(
                raffle_id,
                drawing_date=date.fromisoformat(found["drawing_date"]),
                today=today,
            )
        )
        sold, voided, _ = raffle_read.ticket_counts(st.ledger.conn, raffle_id)
        mismatch = raffle_checks.stubs_match(raffle_id, stubs=counted, sold=sold, voided=voided)
        if mismatch is None:
            st.append(
                "RaffleStubsCounted",
                {
                    "raffle": raffle_id,
                    "stubs": counted,
                    "sold": sold,
                    "voided": voided,
                    "witnesses": chosen,
                    "by": by.badge,
                },
            )
    _refuse_flagged(st, mismatch, "raffle-stubs", raffle_id, by.badge, None)
    return {
        "raffle": raffle_id,
        "stubs": counted,
        "tickets_sold": sold,
        "tickets_voided": voided,
        "witnesses": chosen,
        "by": by.badge,
    }


def draw(
    st: Station,
    raffle_text: str,
    ticket: object,
    *,
    place: object | None = None,
    operator: str | None,
) -> dict[str, Any]:
    """A number drawn from the receptacle wins the next prize (or `place`): it must be a ticket
    sold and not voided (F1), else it is refused and flagged for the manager."""
    raffle_id = _id(raffle_text)
    number = _count(ticket, "ticket")
    by = st.operator(operator, "manager")
    conn = st.ledger.conn
    with st.ledger.transaction():
        found = _raffle(st, raffle_id)
        refuse(raffle_checks.held_here(raffle_id, holder=found["holder"], here=st.id))
        refuse(raffle_checks.drawing_open(raffle_id, stubs_counted=found["stubs"]))
        rows = _prizes(st, raffle_id)
        if place is None:
            row = next((p for p in rows if p["ticket"] is None), None)
        else:
            wanted = _count(place, "place")
            row = next((p for p in rows if int(p["place"]) == wanted), None)
        prize = _prize(row) if row is not None else None
        refuse(
            raffle_checks.prize_to_draw(
                raffle_id, prize, drawn=row is not None and row["ticket"] is not None
            )
        )
        assert prize is not None
        sold = raffle_read.ticket(conn, raffle_id, number)
        invalid = raffle_checks.drawn_ticket(
            raffle_id,
            number,
            sold=sold is not None,
            voided=bool(sold and sold["voided_hlc"]),
            won=raffle_read.place_won(conn, raffle_id, number),
        )
        if invalid is None:
            event = st.append(
                "RaffleNumberDrawn",
                {
                    "raffle": raffle_id,
                    "place": prize.place,
                    "ticket": number,
                    "value": prize.value,
                    "by": by.badge,
                },
            )
    if invalid is not None and invalid.rule == "F1":
        _refuse_flagged(st, invalid, "raffle-draw", raffle_id, by.badge, number)
    refuse(invalid)
    assert sold is not None
    return {
        "raffle": raffle_id,
        "place": prize.place,
        "prize": prize.description,
        "value": format_amount(prize.value),
        "ticket": raffle_domain.ticket_label(number),
        "sold_by": sold["station"],
        "receipt": int(sold["receipt"]),
        "witnesses": found["witnesses"],
        "event": f"{event.origin}:{event.seq}",
    }


def claim(
    st: Station,
    raffle_text: str,
    *,
    place: object,
    code: str | None = None,
    winner: Winner | None = None,
    operator: str | None,
) -> RaffleClaim:
    """The winner of a prize drawn claims it: once; with the buyer's part's QR code (`code`)
    when presented, which must verify and carry the number drawn; with the winner's identity
    where the prize is reportable on Form W-2G (W2G)."""
    raffle_id = _id(raffle_text)
    wanted = _count(place, "place")
    by = st.operator(operator, "redeemer")
    presented = receipts.verify_payload(st, code) if code else None
    with st.ledger.transaction():
        found = _raffle(st, raffle_id)
        refuse(raffle_checks.held_here(raffle_id, holder=found["holder"], here=st.id))
        row = next((p for p in _prizes(st, raffle_id) if int(p["place"]) == wanted), None)
        if row is None:
            raise NotFound(f"raffle {raffle_id} has no prize {wanted}")
        prize = _prize(row)
        session_if_any(st)
        prize_unpaid(
            st,
            prizes_read.raffle_prize(raffle_id, prize.place),
            f"the {ordinal(prize.place)} prize of raffle {raffle_id}",
        )
        drawn = int(row["ticket"]) if row["ticket"] is not None else None
        refuse(
            raffle_checks.claimable(
                raffle_id, prize, ticket=drawn, claimed=row["claimed_hlc"] is not None
            )
        )
        assert drawn is not None
        if presented is not None:
            ticket = presented.get("raffle")
            if not ticket or ticket["raffle"] != raffle_id:
                raise BadInput("code", f"the code presented is not a ticket of raffle {raffle_id}")
            refuse(
                raffle_checks.presented_ticket(
                    raffle_id, prize, drawn=drawn, presented=int(ticket["ticket"])
                )
            )
        body: dict[str, Any] = {
            "raffle": raffle_id,
            "place": prize.place,
            "ticket": drawn,
            "value": prize.value,
            "by": by.badge,
        }
        sealed = identity_for(
            st,
            prize.value,
            winner,
            wager=int(found["price"]),
            what=f"the {ordinal(prize.place)} prize ({prize.description}, fair market value "
            f"${format_amount(prize.value)})",
        )
        if sealed is not None:
            body["w2g"] = sealed
        event = st.append("RafflePrizeClaimed", body)
    return RaffleClaim(
        raffle=raffle_id,
        place=prize.place,
        prize=prize.description,
        value=prize.value,
        ticket=raffle_domain.ticket_label(drawn),
        w2g="w2g" in body,
        presented=presented is not None,
        by=by.badge,
        event=f"{event.origin}:{event.seq}",
    )
