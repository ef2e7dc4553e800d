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
from pos.ledger.projections import sessions as sessions_read
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
    st: Station,
    serial: str,
    *,
    unsold: str | int,
    operator: str | None,
    note: str | None = None,
    override_reason: str | None = None,
) -> dict[str, Any]:
    """C4: close a deal with its unsold count. With tickets unsold, the diligent efforts are
    recorded: the sessions it was offered in (from the ledger) and the manager's `note`
    (required). Refused while a later session selling its type of ticket is scheduled, unless
    the manager overrides with a reason (recorded as OverrideGranted)."""
    by = st.operator(operator, "manager")
    with checked_input("unsold"):
        count = parse_count(unsold, "unsold", minimum=0)
    note = (note or "").strip() or None
    reason = None if override_reason is None else override_reason.strip()
    if override_reason is not None and not reason:
        raise BadInput("reason", "say why the deal closes before the scheduled session")
    for field, value in (("note", note), ("reason", reason)):
        if value is not None and len(value) > 4000:
            raise BadInput(field, "is longer than 4,000 characters")
    with st.ledger.transaction():
        deal = _deal_row(st, serial)
        today = hall_date(st, st.clock.now()).isoformat()
        later = sessions_read.scheduled_after(st.ledger.conn, today, str(deal["game"]))
        refuse(
            deal_checks.closable(
                deal["serial"],
                state=deal["state"],
                tickets=int(deal["tickets"]),
                sold=int(deal["sold"]),
                unsold=count,
            )
        )
        if count > 0 and note is None:
            raise BadInput(
                "note",
                f"{count} tickets are unsold: say what was done to sell them (--note TEXT)",
            )
        refuse(
            deal_checks.no_later_session(
                deal["serial"],
                game=str(deal["game"]),
                unsold=count,
                later=later,
                overridden=reason is not None,
            )
        )
        overriding = reason is not None and count > 0 and bool(later) and deal["game"] != "event"
        if overriding:
            st.append(
                "OverrideGranted",
                {
                    "rule": "C4",
                    "reason": reason,
                    "manager": by.badge,
                    "subject": deal["serial"],
                    "detail": f"closed with {count} unsold before the scheduled session(s) "
                    f"{', '.join(later)}",
                },
            )
        close_deal_in_transaction(
            st,
            serial,
            unsold=count,
            by=by.badge,
            reason="C4",
            diligence={
                "offered_in": deals_read.sessions_offered(st.ledger.conn, deal["serial"]),
                "note": note,
                "override_reason": reason if overriding else None,
            },
        )
    return deal_summary(st, serial)


def close_deal_in_transaction(
    st: Station,
    serial: str,
    *,
    unsold: int,
    by: str,
    reason: str,
    diligence: dict[str, Any] | None = None,
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
            **(diligence or {}),
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
    # every prize paid from the deal, seal prizes included (the ideal figures include them); the
    # winners' projection is imported here, not by every sale that imports this module
    from pos.ledger.projections import winners as winners_read

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
        "offered_in": deal["offered_in"].split(",") if deal["offered_in"] else [],
        "close_note": deal["close_note"],
        "close_override": deal["close_override"],
    }


def list_deals(st: Station) -> list[dict[str, Any]]:
    return deals_read.deal_list(st.ledger.conn)
