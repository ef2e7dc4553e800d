"""What each kind of exception the manager decides is called, and what Accept and Reject mean
for it, in plain words: the one wording the manager's screen and the phone both show.

An exception is named by the event behind it (pos.services.exceptions); deciding it records an
ExceptionResolved event for every station, with the manager's note. Accept says "what the
record shows stands, explained"; Reject says "it is not right, and here is what follows". The
kinds come from the flags the services raise (ExceptionFlagged `flag`) and from what the
exceptions list finds after sync (tickets and prizes paid on both sides of a cut, late events,
near matches, refused events, forks, clocks, deposits, newer releases).

Pure: no Kivy, no ledger.
"""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("error", "warn", "info")


@dataclass(frozen=True)
class KindWords:
    """`title`: the kind, as a row's heading says it; `accept_means` / `reject_means`: what the
    manager's Accept and Reject record for it; `level`: how loud the row is (error, warn,
    info)."""

    title: str
    accept_means: str
    reject_means: str
    level: str = "warn"


_REFUSED_EVENT = KindWords(
    "Refused from another station: bad signature or body",
    "Known cause (e.g. a station repaired or rejoined): file it, nothing else changes",
    "Treat its key as stolen or misused: take that station out of service and tell the "
    "hall's owner",
    "error",
)

_WORDS: dict[str, KindWords] = {
    # -- flags raised at a station (ExceptionFlagged) ------------------------------------------
    "double-payment": KindWords(
        "Second try refused: ticket already paid",
        "The refusal was right: the ticket was paid once and nothing more is owed",
        "The first payment is in doubt: find out who was paid, and keep it on the record",
        "error",
    ),
    "voucher-paid-twice": KindWords(
        "Voucher used twice: kiosk tickets already out",
        "Explained (e.g. one player, one mistake): the loss stays on the record",
        "Not explained: find who used the voucher the second time",
        "error",
    ),
    "probable-counterfeit": KindWords(
        "Probable counterfeit refused",
        "The refusal was right: keep the ticket for the inspector",
        "The ticket is genuine (a count was wrong): check the deal's figures",
        "error",
    ),
    "many-winners": KindWords(
        "Many winners, one player",
        "Checked and in order: the player was lucky",
        "Not in order: keep an eye on the player and the deal",
        "warn",
    ),
    "device-not-returned": KindWords(
        "Bingo device not returned",
        "Found or explained: the device is back or written off",
        "Still missing: follow it up with the renter",
        "warn",
    ),
    "dispenser-jam": KindWords(
        "Kiosk dispenser jam: staff called",
        "Cleared and the player was looked after",
        "Not settled: the column and the player's credit still need checking",
        "warn",
    ),
    "acceptor-jam": KindWords(
        "Kiosk bill jam: staff called",
        "The bill was cleared into the cash box",
        "Not settled: the bill or the credit is still missing",
        "warn",
    ),
    "acceptor-unknown": KindWords(
        "Kiosk bill not accounted for",
        "The cash box count matches: the bill is there",
        "The cash box is short: the credit given is a loss on the record",
        "warn",
    ),
    "acceptor-returned": KindWords(
        "Kiosk bill given back at start-up",
        "The player got the bill back: nothing is owed",
        "The player did not get it back: settle with them by hand",
        "warn",
    ),
    "dispense-unknown": KindWords(
        "Kiosk sale interrupted",
        "The column was checked and the player was credited",
        "Tickets or credit do not match: count the column again",
        "warn",
    ),
    "kiosk-credit-left": KindWords(
        "Player left credit on the kiosk",
        "The player was paid their credit, or it is kept for them",
        "Not settled: find the player and pay out the credit as a voucher",
        "warn",
    ),
    "raffle-stubs": KindWords(
        "Raffle stubs do not match the tickets sold",
        "Explained: the stubs were counted again and match",
        "Not explained: the drawing waits until the stubs are found",
        "error",
    ),
    "raffle-draw": KindWords(
        "Raffle draw refused: ticket cannot win",
        "The refusal was right: draw again",
        "The ticket should have counted: check the raffle's sales",
        "error",
    ),
    "session-in-reported-quarter": KindWords(
        "Session opened in a quarter already reported",
        "An amended quarterly report will be filed",
        "The session's date is wrong: correct it before the report",
        "error",
    ),
    # -- found after sync -----------------------------------------------------------------------
    "paid-twice": KindWords(
        "Ticket paid on both sides of a cut",
        "Both payments are explained: the loss stays on the record",
        "One payment was wrong: recover it from the player if you can",
        "error",
    ),
    "prize-paid-twice": KindWords(
        "Prize paid twice (stations cut apart)",
        "Both payments are explained: the loss stays on the record",
        "One payment was wrong: recover it from the winner if you can",
        "error",
    ),
    "late-event": KindWords(
        "Worker bought (found after sync)",
        "The purchase stands: it was allowed after all",
        "The purchase breaks the rule: refund it and speak to the worker",
        "warn",
    ),
    "near-match": KindWords(
        "Buyer's name is close to a worker's",
        "Not the worker: the buyer may buy",
        "It is the worker: the buyer stays refused",
        "info",
    ),
    "refused-bad-body": _REFUSED_EVENT,
    "refused-bad-signature": _REFUSED_EVENT,
    "refused-bad-hash": _REFUSED_EVENT,
    "refused-bad-certificate": _REFUSED_EVENT,
    "fork": KindWords(
        "Two histories of a station",
        "The copy is found and out of service",
        "Not found yet: keep looking for the second copy",
        "error",
    ),
    "clock-ahead": KindWords(
        "A station's clock runs ahead",
        "The clock is set right now",
        "The clock is still wrong: set it before the next session",
        "warn",
    ),
    "deposit-late": KindWords(
        "Deposit late",
        "Explained (e.g. the bank was closed): the reason is on the record",
        "Not explained: the inspector sees a late deposit",
        "error",
    ),
    "deposit-short": KindWords(
        "Deposit short",
        "Explained: the difference is on the record",
        "Not explained: count the money again and deposit the rest",
        "error",
    ),
    "deposit-late-short": KindWords(
        "Deposit late and short",
        "Explained: the reasons are on the record",
        "Not explained: count again, deposit the rest, say why it was late",
        "error",
    ),
    "deposit-credit": KindWords(
        "Bank credit does not match",
        "The bank's figure is explained",
        "Ask the bank to correct the credit",
        "warn",
    ),
    "newer-release": KindWords(
        "From a newer Booth: upgrade this station",
        "Noted: this station will be upgraded",
        "The newer station should not be in this hall: check it",
        "warn",
    ),
}


def kind_of(kind: str, ticket: str | None) -> str:
    """The kind whose words apply: a double payment that names no ticket is a voucher used
    twice for a kiosk sale (pos.services.sales), not a second try at a paid ticket."""
    if kind == "double-payment" and not ticket:
        return "voucher-paid-twice"
    return kind


def known(kind: str) -> bool:
    """Whether `kind` has its own words (not the fallback)."""
    return kind in _WORDS


def kinds() -> tuple[str, ...]:
    return tuple(_WORDS)


def kind_words(kind: str) -> KindWords:
    """The words for `kind`; a kind this release does not know still reads plainly."""
    found = _WORDS.get(kind)
    if found is not None:
        return found
    return KindWords(
        kind.replace("-", " ").capitalize() or "Exception",
        "What happened is explained: it stays on the record",
        "It is not right: it needs following up",
        "warn",
    )


def confirm_words(decision: str) -> str:
    """What the decide button says after its first tap."""
    verb = "Accept" if decision == "accepted" else "Reject"
    return f"{verb} for every station? Tap again to confirm"
