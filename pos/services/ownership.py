"""Who holds a deal: only its holder records its sales and redemptions, so two stations apart
can never both pay the same winner. Handover is a released/acquired pair of events; a manager
can force the acquisition from a dead station, and that is audited."""

from __future__ import annotations

from typing import Any

from pos.domain import rulebook
from pos.domain.checks import deals as deal_checks
from pos.domain.flare import GameType
from pos.errors import BadInput, refuse
from pos.ledger.projections import deals as deals_read
from pos.services.deals import enforce
from pos.services.settings import house_rule, rulebook_settings
from pos.services.station import Station


def _deal(st: Station, serial: str) -> dict[str, Any]:
    row = deals_read.deal_on_file(st.ledger.conn, serial.strip().upper())
    if row is None:
        raise BadInput("serial", f"deal {serial!r} is not on file at this station")
    return row


def release_deal(st: Station, serial: str, *, to: str, by: str) -> dict[str, Any]:
    """At the holder: give the deal up to station `to` (asked over the LAN)."""
    with st.ledger.transaction():
        deal = _deal(st, serial)
        refuse(deal_checks.releasable(deal["serial"], holder=deal["holder"], here=st.id))
        if st.ledger.public_key(to) is None:
            raise BadInput("station", f"{to!r} is not a station of this hall")
        event = st.append("DealReleased", {"serial": deal["serial"], "to": to, "by": by})
    return {"serial": deal["serial"], "released_to": to, "event": f"{event.origin}:{event.seq}"}


def acquire_deal(
    st: Station,
    serial: str,
    *,
    bin_name: str,
    operator: str | None,
    force_reason: str | None = None,
) -> dict[str, Any]:
    """At the new holder: take the deal into one of this station's bins, once its holder has
    released it here; or, by a manager's recorded decision, from a holder that cannot answer."""
    forced = force_reason is not None
    by = st.operator(operator, "manager") if forced else st.operator(operator, "seller", "manager")
    with st.ledger.transaction():
        deal = _deal(st, serial)
        refuse(deal_checks.tampered_deal(deal["serial"], state=deal["state"]))
        refuse(
            deal_checks.acquirable(
                deal["serial"],
                holder=deal["holder"],
                released_to=deal["released_to"],
                here=st.id,
                forced=forced,
            )
        )
        if forced and not (force_reason or "").strip():
            raise BadInput("reason", "a forced takeover needs the manager's reason")
        holding = [
            GameType(game) for game in deals_read.games_in_bin(st.ledger.conn, st.id, bin_name)
        ]
        enforce(
            rulebook.check_bin(
                holding,
                GameType(deal["game"]),
                commingling=house_rule(st, "commingling"),
                settings=rulebook_settings(st),
            )
        )
        body: dict[str, Any] = {
            "serial": deal["serial"],
            "station": st.id,
            "bin": bin_name,
            "from": deal["holder"],
            "forced": forced,
            "by": by.badge,
        }
        if forced:
            body["reason"] = force_reason
        event = st.append("DealAcquired", body)
    return {
        "serial": deal["serial"],
        "holder": st.id,
        "bin": bin_name,
        "forced": forced,
        "from": deal["holder"],
        "event": f"{event.origin}:{event.seq}",
    }
