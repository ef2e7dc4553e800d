"""The raffle drawing on a touch screen (11VAC15-40-60 F), at the booth and at the manager: choose
the raffle, count the stubs into the receptacle before the witnesses (F1), draw each prize's
number (F1: a ticket sold and not voided), show the winning number large, and take the claim
with the buyer's part's code and, where Form W-2G needs it, the winner's data (W2G).

Only the station holding a raffle draws it; the others show it to read. Functions taking a
Station run on the StationWorker; the rest are pure. No Kivy here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kiosk.viewmodels.bingo import Identity, needs_identity
from kiosk.viewmodels.common import OK, Outcome, attempt, cents, money
from pos.domain import w2g
from pos.domain.raffle import ordinal
from pos.domain.rulebook import Settings
from pos.errors import BadInput
from pos.services import raffle, scanning, staff
from pos.services.settings import rulebook_settings
from pos.services.station import Station
from pos.services.w2g import Winner

__all__ = [
    "DrawingVM",
    "Identity",
    "PrizeVM",
    "RaffleVM",
    "WitnessVM",
    "claim",
    "count_stubs",
    "draw",
    "drawing_screen",
    "needs_identity",
    "scan_kind",
]

#: Where a raffle's drawing stands, as the screen's step: held by another station (read
#: only), the stubs to count in, a prize to draw, a prize to claim, or every prize claimed.
STEPS = ("elsewhere", "stubs", "draw", "claim", "done")


@dataclass(frozen=True)
class PrizeVM:
    place: int
    description: str
    value: str  # "$250.00": its fair market value (F2)
    basis: str  # how that value was found
    ticket: str | None  # the number drawn for it, or None
    claimed: bool
    reportable: bool  # at the W-2G threshold: the winner's data is asked for at the claim

    @property
    def ident(self) -> str:
        return f"prize-{self.place}"

    @property
    def name(self) -> str:
        """ "1st prize", as it is read out."""
        return f"{ordinal(self.place)} prize"

    @property
    def title(self) -> str:
        return f"{self.name}: {self.description} ({self.value})"

    @property
    def status(self) -> str:
        if self.ticket is None:
            return "not drawn yet"
        return f"ticket {self.ticket} won · " + ("claimed" if self.claimed else "not claimed yet")

    @property
    def detail(self) -> str:
        w2g = " · W-2G" if self.reportable else ""
        return f"value from {self.basis}{w2g} · {self.status}"

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.detail}"


@dataclass(frozen=True)
class RaffleVM:
    raffle: str
    name: str
    drawing_date: str
    price: str  # "$5.00" a ticket
    sold: int
    voided: int
    held_by: str
    held_here: bool
    stubs: int | None  # counted into the receptacle, or None before the drawing
    witnesses: tuple[str, ...]  # names (badges where not on the staff list)
    prizes: tuple[PrizeVM, ...]

    @property
    def ident(self) -> str:
        return f"raffle-{self.raffle}"

    @property
    def step(self) -> str:
        if not self.held_here:
            return "elsewhere"
        if self.stubs is None:
            return "stubs"
        if self.to_draw is not None:
            return "draw"
        if self.to_claim is not None:
            return "claim"
        return "done"

    @property
    def to_draw(self) -> PrizeVM | None:
        """The next prize in drawing order without its number."""
        return next((p for p in self.prizes if p.ticket is None), None)

    @property
    def to_claim(self) -> PrizeVM | None:
        """The first prize drawn and not yet claimed."""
        return next((p for p in self.prizes if p.ticket is not None and not p.claimed), None)

    def prize(self, place: int) -> PrizeVM | None:
        return next((p for p in self.prizes if p.place == place), None)

    @property
    def title(self) -> str:
        return f"{self.raffle} · {self.name}"

    @property
    def tickets(self) -> str:
        return f"{self.sold:,} tickets sold · {self.voided:,} voided"

    @property
    def where(self) -> str:
        """Who holds it and where its drawing stands, in plain words."""
        if not self.held_here:
            return f"Held by station {self.held_by}: drawn there, shown here to read"
        step = self.step
        if step == "stubs":
            return "Held here: ready to count the stubs in"
        if step == "done":
            return "Held here: every prize drawn and claimed"
        drawing = "drawing" if step == "draw" else "every prize drawn"
        return f"Held here: {self.stubs or 0:,} stubs counted in, {drawing}"

    @property
    def summary(self) -> str:
        return f"Drawing {self.drawing_date} · {self.price} a ticket · {self.tickets}\n{self.where}"


@dataclass(frozen=True)
class WitnessVM:
    badge: str
    name: str

    @property
    def ident(self) -> str:
        return f"witness-{self.badge}"

    @property
    def text(self) -> str:
        return f"{self.name} ({self.badge})"


@dataclass(frozen=True)
class DrawingVM:
    station: str
    manager: bool  # the person signed on may count the stubs and draw
    raffles: tuple[RaffleVM, ...]
    staff: tuple[WitnessVM, ...]

    def find(self, raffle_id: str | None) -> RaffleVM | None:
        return next((r for r in self.raffles if r.raffle == raffle_id), None)

    @property
    def empty_text(self) -> str:
        return "No raffles on file here: the manager takes a raffle in first"


def _raffle(shown: dict[str, Any], here: str, names: dict[str, str], rules: Settings) -> RaffleVM:
    price = cents(shown["price"])
    return RaffleVM(
        raffle=shown["raffle"],
        name=shown["name"],
        drawing_date=shown["drawing_date"],
        price=money(price),
        sold=int(shown["tickets_sold"]),
        voided=int(shown["tickets_voided"]),
        held_by=shown["held_by"],
        held_here=shown["held_by"] == here,
        stubs=shown["stubs"],
        witnesses=tuple(names.get(b, b) for b in shown["witnesses"] or ()),
        prizes=tuple(
            PrizeVM(
                place=p["place"],
                description=p["description"],
                value=money(cents(p["value"])),
                basis=p["basis"],
                ticket=p["ticket"],
                claimed=bool(p["claimed"]),
                reportable=w2g.reportable(cents(p["value"]), rules, wager=price),
            )
            for p in shown["prizes"]
        ),
    )


def drawing_screen(st: Station, operator: str = "") -> DrawingVM:
    """Every raffle on file here, those this station holds first; the staff to choose the
    witnesses from; whether the person signed on (`operator`) may run the drawing."""
    people = staff.list_staff(st)
    names = {p["badge"]: p["name"] for p in people}
    rules = rulebook_settings(st)
    raffles = [_raffle(r, st.id, names, rules) for r in raffle.list_raffles(st)]
    raffles.sort(key=lambda r: (not r.held_here, r.step == "done", r.drawing_date, r.raffle))
    person = st.staff(operator) if operator else None
    return DrawingVM(
        station=st.id,
        manager=person is not None and "manager" in person.roles,
        raffles=tuple(raffles),
        staff=tuple(WitnessVM(p["badge"], p["name"]) for p in people),
    )


def scan_kind(st: Station, text: str) -> str:
    """What a scan is ("badge", "ticket", ...), so a badge picks a witness."""
    return scanning.what_is(st, text)


def _digits(typed: str, what: str) -> str:
    text = typed.strip()
    if not text:
        raise BadInput(what, f"type the {what} on the keypad first")
    return text


def count_stubs(
    st: Station, raffle_id: str, typed: str, witnesses: list[str], operator: str
) -> Outcome:
    """The stubs placed in the receptacle, counted before the witnesses; a count that is not
    the tickets sold less those voided is refused (F1) and flagged for the manager."""
    before: dict[str, Any] = {}

    def run() -> Outcome:
        counted = _digits(typed, "stub count")
        if not witnesses:
            raise BadInput("witness", "choose at least one witness: tap a name or scan a badge")
        before.update(raffle.show(st, raffle_id))
        done = raffle.count_stubs(
            st, raffle_id, stubs=counted, witnesses=witnesses, operator=operator
        )
        names = {p["badge"]: p["name"] for p in staff.list_staff(st)}
        who = ", ".join(names.get(b, b) for b in done["witnesses"])
        return Outcome(
            True,
            f"{done['stubs']:,} STUBS COUNTED IN",
            f"Raffle {raffle_id}: the count matches the tickets sold · witnesses: {who} · "
            "now draw the numbers",
            OK,
        )

    outcome = attempt(run, "NOT COUNTED IN")
    why = outcome.refusal
    if why is not None and why.rule == "F1" and before and before["stubs"] is None:
        sold, voided = int(before["tickets_sold"]), int(before["tickets_voided"])
        said = (
            f"{int(typed.strip()):,} stubs counted, but {sold - voided:,} tickets were sold and "
            f"not voided ({sold:,} sold, {voided:,} voided). Every stub sold goes in, no other: "
            "count again."
        )
        headline = "STUBS DO NOT MATCH"
        return replace(
            outcome, headline=headline, detail=said, refusal=replace(why, headline=headline)
        )
    return outcome


def _plain(outcome: Outcome, raffle_id: str) -> Outcome:
    """A service's sentence without its "raffle R1: " lead (the screen shows the raffle)."""
    lead = f"Raffle {raffle_id}: "
    if outcome.detail.startswith(lead):
        rest = outcome.detail.removeprefix(lead)
        return replace(outcome, detail=rest[:1].upper() + rest[1:])
    return outcome


def draw(st: Station, raffle_id: str, place: int, typed: str, operator: str) -> Outcome:
    """The number read from the stub drawn wins prize `place`: a ticket sold and not voided
    (F1), else refused and flagged for the manager. The outcome carries the number to show
    large."""

    def run() -> Outcome:
        number = _digits(typed, "number drawn")
        won = raffle.draw(st, raffle_id, number, place=place, operator=operator)
        return Outcome(
            True,
            f"TICKET {won['ticket']} WINS",
            f"{ordinal(won['place'])} prize: {won['prize']} ({money(cents(won['value']))}) · "
            f"sold at {won['sold_by']}, receipt #{won['receipt']}",
            OK,
            shout=won["ticket"],
            data=(("ticket", won["ticket"]), ("place", won["place"])),
        )

    outcome = attempt(run, "NOT A WINNER")
    if outcome.refusal is not None and outcome.refusal.rule == "F1":
        outcome = replace(
            outcome,
            detail=outcome.detail.replace("; the number is not a winner", "")
            + ". Put that stub aside and draw again.",
        )
    return _plain(outcome, raffle_id)


def claim(
    st: Station,
    raffle_id: str,
    place: int,
    code: str,
    operator: str,
    identity: Identity | None = None,
) -> Outcome:
    """The winner of prize `place` claims it with the buyer's part of the ticket (its QR code,
    scanned or typed: it must carry the number drawn, F1); at the W-2G threshold with the
    winner's name, address, taxpayer ID and photo ID (W2G), sealed to the hall's key."""

    def run() -> Outcome:
        presented = code.strip()
        if not presented:
            raise BadInput("code", "scan the code on the winner's part of the ticket")
        winner = None
        if identity is not None and identity.given:
            winner = Winner(identity.name, identity.address, identity.tin, identity.id_document)
        done = raffle.claim(
            st, raffle_id, place=place, code=presented, winner=winner, operator=operator
        )
        return Outcome(
            True,
            f"{ordinal(done.place).upper()} PRIZE CLAIMED",
            f"Ticket {done.ticket}: hand over the {done.prize} "
            f"({money(done.value)})" + (" · W-2G data recorded" if done.w2g else ""),
            OK,
        )

    outcome = attempt(run, "NOT CLAIMED")
    if needs_identity(outcome):  # the service's sentence names the CLI's options
        return replace(
            outcome,
            headline="W-2G: WINNER'S DATA",
            detail="A prize for Form W-2G: enter the winner's data, then Claim again.",
        )
    return _plain(outcome, raffle_id)
