"""Deals: intake against the rulebook, bins, closing, and what a deal has done so far."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from pos.domain import rulebook
from pos.domain.checks import deals as deal_checks
from pos.domain.checks import of_decision
from pos.domain.flare import Flare, GameType, flare_to_dict, load_flare_text, parse_flare
from pos.domain.money import format_amount, parse_count
from pos.domain.rulebook import Decision
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import winners as winners_read
from pos.services.current_session import hall_date
from pos.services.inputs import FLARE_MAX, checked_input, read_input_text
from pos.services.settings import house_rule, rulebook_settings
from pos.services.station import Station


def enforce(decision: Decision) -> None:
    """Raise the refusal a rulebook decision carries (overrides are asked for elsewhere)."""
    refuse(of_decision(decision))


def read_flare_file(path: Path) -> Flare:
    text = read_input_text(path, "flare", limit=FLARE_MAX)
    fmt = "toml" if path.suffix.lower() == ".toml" else "json"
    with checked_input("flare"):
        return load_flare_text(text, fmt)


def flare_from_mapping(data: dict[str, Any]) -> Flare:
    with checked_input("flare"):
        return parse_flare(data)


def receive_deal(st: Station, flare: Flare, *, operator: str | None) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with st.ledger.transaction():
        known = deals_read.received_serials(st.ledger.conn)
        enforce(rulebook.check_intake(flare, rulebook_settings(st), known_serials=known))
        st.append("DealReceived", {"flare": flare_to_dict(flare), "by": by.badge})
    return deal_summary(st, flare.serial)


def _deal_row(st: Station, serial: str) -> dict[str, Any]:
    row = deals_read.deal_on_file(st.ledger.conn, serial.strip().upper())
    if row is None:
        raise NotFound(f"deal {serial!r} is not on file at this station")
    return row


def deal_flare(st: Station, serial: str) -> Flare:
    return _parsed_flare(_deal_row(st, serial)["flare"])


@lru_cache(maxsize=256)
def _parsed_flare(text: str) -> Flare:
    # A deal's flare never changes once received; parsing it costs ~0.1 ms a sale.
    return parse_flare(json.loads(text))


def open_deal(st: Station, serial: str, *, bin_name: str, operator: str | None) -> dict[str, Any]:
    """Put a received (or carried-over) deal in one of this station's bins (C3)."""
    by = st.operator(operator, "manager", "seller")
    bin_name = _bin_name(bin_name)
    with st.ledger.transaction():
        deal = _deal_row(st, serial)
        refuse(
            deal_checks.openable(
                deal["serial"], state=deal["state"], bin_name=deal["bin"], holder=deal["holder"]
            )
        )
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
        st.append(
            "DealOpened",
            {"serial": deal["serial"], "station": st.id, "bin": bin_name, "by": by.badge},
        )
    return deal_summary(st, deal["serial"])


def _bin_name(text: str) -> str:
    value = text.strip()
    if not value or len(value) > 32 or not value.replace("-", "").replace("_", "").isalnum():
        raise BadInput("bin", f"{text!r} is not a bin name (letters, digits, - and _)")
    return value


def close_deal(
    st: Station, serial: str, *, unsold: str | int, operator: str | None
) -> dict[str, Any]:
    by = st.operator(operator, "manager")
    with checked_input("unsold"):
        count = parse_count(unsold, "unsold", minimum=0)
    with st.ledger.transaction():
        close_deal_in_transaction(st, serial, unsold=count, by=by.badge, reason="C4")
    return deal_summary(st, serial)


def close_deal_in_transaction(
    st: Station, serial: str, *, unsold: int, by: str, reason: str
) -> None:
    deal = _deal_row(st, serial)
    refuse(
        deal_checks.closable(
            deal["serial"],
            state=deal["state"],
            tickets=int(deal["tickets"]),
            sold=int(deal["sold"]),
            unsold=unsold,
        )
    )
    closed_on = hall_date(st, st.clock.now())
    keep = rulebook.keep_until(closed_on, rulebook_settings(st))
    st.append(
        "DealClosed",
        {
            "serial": deal["serial"],
            "unsold": unsold,
            "closed_on": closed_on.isoformat(),
            "keep_until": keep.isoformat(),
            "by": by,
            "reason": reason,
        },
    )


def deal_summary(st: Station, serial: str) -> dict[str, Any]:
    deal = _deal_row(st, serial)
    flare = parse_flare(json.loads(deal["flare"]))
    rows = deals_read.prize_tiers(st.ledger.conn, deal["serial"])
    tiers = [
        {"amount": format_amount(amount), "count": count, "paid": paid, "left": count - paid}
        for amount, count, paid in rows
    ]
    # every prize paid from the deal, seal prizes included (the ideal figures include them)
    prizes_paid = winners_read.deal_prizes_paid(st.ledger.conn, deal["serial"])
    sold, gross = int(deal["sold"]), int(deal["gross"])
    return {
        "serial": deal["serial"],
        "game": flare.game.value,
        "name": flare.name,
        "form": flare.form,
        "manufacturer": flare.manufacturer,
        "state": deal["state"],
        "tampered": bool(deal["tampered"]),
        "holder": deal["holder"],
        "bin": deal["bin"],
        "tickets": flare.tickets,
        "price": format_amount(flare.price),
        "ideal_gross": format_amount(flare.ideal_gross),
        "total_prizes": format_amount(flare.total_prizes),
        "ideal_net": format_amount(flare.ideal_net),
        "tickets_sold": sold,
        "tickets_left": flare.tickets - sold,
        "gross": format_amount(gross),
        "prizes_paid": format_amount(prizes_paid),
        "net": format_amount(gross - prizes_paid),
        "tiers": tiers,
        "unsold": deal["unsold"],
        "keep_until": deal["keep_until"],
    }


def list_deals(st: Station) -> list[dict[str, Any]]:
    return deals_read.deal_list(st.ledger.conn)
