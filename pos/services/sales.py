"""Selling tickets: every rule that touches a sale, then one TicketsSold event.

At a kiosk the dispenser is a side effect: the request is committed first (DispenseRequested),
then the dispenser runs, then what actually came out is recorded; a crash in between leaves a
request with no outcome, which the manager sees as an exception, never a silent loss.
"""

from __future__ import annotations

import secrets
from typing import Any

from pos.domain import rulebook
from pos.domain.flare import GameType
from pos.domain.money import format_amount, parse_amount, parse_count
from pos.errors import BadInput, HardwareFailure, RuleRefused
from pos.services.deals import deal_flare, enforce
from pos.services.inputs import checked_input
from pos.services.players import check_buyer, resolve_buyer
from pos.services.ports import Dispenser, DispenserFault
from pos.services.sessions import require_open_session
from pos.services.settings import house_rule
from pos.services.station import Station

MAX_QTY = 10_000


def next_receipt_number(st: Station) -> int:
    row = st.ledger.conn.execute(
        "SELECT last FROM p_receipt_numbers WHERE station = ?", (st.id,)
    ).fetchone()
    return (int(row[0]) if row else 0) + 1


def _check_sale(
    st: Station, serial: str, qty: int, price: str | None, buyer_code: str | None
) -> dict[str, Any]:
    """Every rule that touches a sale, inside the command's transaction. Returns the facts."""
    session = require_open_session(st)
    row = st.ledger.conn.execute(
        "SELECT serial, state, holder, bin, tickets, sold FROM p_deals WHERE serial = ? "
        "AND received_hlc IS NOT NULL",
        (serial.strip().upper(),),
    ).fetchone()
    if row is None:
        raise BadInput("serial", f"deal {serial!r} is not on file at this station")
    serial, state, holder, bin_name, tickets, sold = row
    if state != "in-play":
        raise RuleRefused("BIN", f"deal {serial} is {state}, not in play in a bin")
    if holder != st.id:
        raise RuleRefused(
            "OWNER", f"deal {serial} is held by {holder}; only its holder records its sales"
        )
    flare = deal_flare(st, serial)
    enforce(rulebook.check_quantity(tickets - sold, qty))
    if price is not None:
        with checked_input("price"):
            asked = parse_amount(price, "price", allow_zero=True)
        enforce(rulebook.check_sale_price(flare, asked))
    if st.config.role == "kiosk":
        if flare.game == GameType.PULL_TAB and not house_rule(st, "kiosk-pull-tab-sales"):
            raise RuleRefused(
                "A", "the house rules do not allow pull-tab sales at a kiosk; buy at the booth"
            )
        if not buyer_code:
            raise RuleRefused(
                "ID", "a kiosk sells only to an identified buyer: scan your card or ID"
            )
    elif not buyer_code and house_rule(st, "buyer-id-required"):
        raise RuleRefused("ID", "the house rules ask every buyer for a player card or ID")
    buyer = None
    if buyer_code:
        buyer = resolve_buyer(st, buyer_code)
        assert buyer is not None
        enforce(check_buyer(st, buyer, serial))
    return {
        "session": session.id,
        "serial": serial,
        "bin": bin_name,
        "price": flare.price,
        "buyer": buyer.code if buyer else None,
    }


def sell(
    st: Station,
    serial: str,
    *,
    qty: str | int,
    operator: str | None,
    buyer: str | None = None,
    price: str | None = None,
    dispenser: Dispenser | None = None,
) -> dict[str, Any]:
    with checked_input("qty"):
        count = parse_count(qty, "qty", maximum=MAX_QTY)
    if st.config.role == "kiosk":
        return _kiosk_sale(st, serial, count, buyer, price, dispenser)
    seller = st.operator(operator, "seller")
    with st.ledger.transaction():
        facts = _check_sale(st, serial, count, price, buyer)
        receipt = next_receipt_number(st)
        event = st.append(
            "TicketsSold",
            {
                "serial": facts["serial"],
                "qty": count,
                "price": facts["price"],
                "amount": count * facts["price"],
                "seller": seller.badge,
                "receipt": receipt,
                "bin": facts["bin"],
                "session": facts["session"],
                "buyer": facts["buyer"],
            },
        )
    return _sale_result(event.body, f"{event.origin}:{event.seq}")


def _kiosk_sale(
    st: Station,
    serial: str,
    count: int,
    buyer: str | None,
    price: str | None,
    dispenser: Dispenser | None,
) -> dict[str, Any]:
    if dispenser is None:
        raise HardwareFailure("this kiosk has no dispenser configured: booth dispenser set ...")
    sale_id = secrets.token_hex(8)
    with st.ledger.transaction():
        facts = _check_sale(st, serial, count, price, buyer)
        st.append(
            "DispenseRequested",
            {
                "sale": sale_id,
                "serial": facts["serial"],
                "column": facts["bin"],
                "qty": count,
                "session": facts["session"],
                "buyer": facts["buyer"],
            },
        )
    try:
        dispensed = max(0, min(count, dispenser.dispense(facts["bin"], count)))
        fault = None
    except DispenserFault as exc:
        dispensed, fault = 0, str(exc)
    credit = (count - dispensed) * facts["price"]
    with st.ledger.transaction():
        body: dict[str, Any] = {
            "sale": sale_id,
            "serial": facts["serial"],
            "qty": dispensed,
            "requested": count,
            "price": facts["price"],
            "amount": dispensed * facts["price"],
            "credit": credit,
            "seller": None,
            "receipt": next_receipt_number(st),
            "bin": facts["bin"],
            "session": facts["session"],
            "buyer": facts["buyer"],
        }
        if fault:
            body["fault"] = fault
        event = st.append("TicketsSold", body)
    return _sale_result(event.body, f"{event.origin}:{event.seq}")


def _sale_result(body: dict[str, Any], event_id: str) -> dict[str, Any]:
    result = {
        "serial": body["serial"],
        "qty": body["qty"],
        "price": format_amount(body["price"]),
        "amount": format_amount(body["amount"]),
        "receipt": body["receipt"],
        "session": body["session"],
        "buyer": body["buyer"],
        "event": event_id,
    }
    if "requested" in body:
        result["requested"] = body["requested"]
        result["credit"] = format_amount(body["credit"])
    return result
