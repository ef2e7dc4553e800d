"""Form W-2G at the payment: the winner's data checked and sealed to the hall's key, once for
every game. Whether a prize is reportable is the pure `pos.domain.w2g.reportable`."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from pos.domain import w2g
from pos.errors import BadInput, refuse
from pos.ledger.keys import seal_for
from pos.services.settings import rulebook_settings
from pos.services.station import Station


@dataclass(frozen=True)
class Winner:
    """The data a W-2G needs, sealed to the hall's key in the ledger."""

    name: str
    address: str
    tin: str
    id_document: str


def reportable(st: Station, amount: int, *, wager: int | None = None) -> bool:
    """Whether `amount` cents (a prize, or one winner's share) is reported on Form W-2G."""
    return w2g.reportable(amount, rulebook_settings(st), wager=wager)


def sealed_identity(st: Station, winner: Winner) -> dict[str, Any]:
    """The event's `w2g` field: the winner's data sealed to the hall's key (only the manager's
    key opens it) and the last four digits of the taxpayer ID for the books."""
    for field, value in (
        ("winner-name", winner.name),
        ("winner-address", winner.address),
        ("winner-tin", winner.tin),
        ("winner-id", winner.id_document),
    ):
        if not value.strip():
            raise BadInput(field, "is empty")
    sealed = seal_for(st.config.hall_public_key, json.dumps(asdict(winner)).encode())
    return {"sealed": sealed, "tin_last4": winner.tin.strip()[-4:]}


def identity_for(
    st: Station,
    amount: int,
    winner: Winner | None,
    *,
    wager: int | None = None,
    what: str = "",
) -> dict[str, Any] | None:
    """The `w2g` field a payment of `amount` cents needs: None when it is not reportable;
    refused (W2G) when it is and the winner's data is missing."""
    if not reportable(st, amount, wager=wager):
        return None
    refuse(w2g.identity_recorded(amount, recorded=winner is not None, what=what))
    assert winner is not None
    return sealed_identity(st, winner)
