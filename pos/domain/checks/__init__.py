"""Pure checks: one module per family of rules, each deciding from facts a service gathered.

A check returns the `Refusal` (the rule and the sentence the person is told) or None when the
command may go on; the service raises it (`pos.errors.refuse`). Checks read nothing: no ledger,
no clock (the hall's date or time is a parameter), only the standard library and pos.domain.

- sessions  SESSION, CLOSE: a session open to sell in, one at a time, the hall-wide close
- deals     C4, OWNER: a deal put in play, closed, released and acquired between stations
- sales     BIN, OWNER, A, ID, VOUCHER: a sale from this station's bins, at a kiosk or booth
- vouchers  VOUCHER: a voucher pays once, for its own amount, where it can be checked
- winners   DEAL, OWNER, C1, C2, B, W2G: paying and voiding winning tickets and sales
- seals     ROLE, OWNER, C5, K4, B, C2, C6: signing a seal card's sheet, its opening and claims
- devices   E1c, E1d, E1g, E2, ID: electronic bingo device rentals
- staff     ROLE: the hall's first person is its manager; a PIN is set by its owner or a manager
- raffle    F1, F2, RAFFLE, W2G: raffles, their numbered tickets, the drawing and the claims
- bingo     LIMIT, G4, G5, H1, H3, H5, I2, I7, J4, PAPER, B: the bingo program, paper, prizes
"""

from __future__ import annotations

from dataclasses import dataclass

from pos.domain.rulebook import Decision


@dataclass(frozen=True)
class Refusal:
    """A rule refuses the command: its id and the sentence the person is told (the rule is cited
    after it when raised, as `... (rule C4)`)."""

    rule: str
    message: str
    role: bool = False  # the operator lacks the role: raised as NotPermitted (rule ROLE)

    @classmethod
    def not_permitted(cls, message: str) -> Refusal:
        return cls("ROLE", message, role=True)


def handover_hint(serial: str, holder: str | None) -> str:
    """The way out of an OWNER refusal: the command that moves the deal to this station."""
    if not holder:
        return ""
    return f"; to take it over here: booth handover {serial}"


def of_decision(decision: Decision, default_rule: str = "RULE") -> Refusal | None:
    """The refusal a rulebook Decision carries (None when allowed). A decision that needs a
    manager's override refuses too, where no override is asked for."""
    if decision.allowed:
        return None
    return Refusal(decision.rule or default_rule, decision.message)


def first(*refusals: Refusal | None) -> Refusal | None:
    """The first refusal of checks made in a fixed order, or None."""
    return next((refusal for refusal in refusals if refusal is not None), None)
