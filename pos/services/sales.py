"""Selling tickets: every rule that touches a sale, then one TicketsSold event.

At a kiosk the dispenser is a side effect: the request is committed first (DispenseRequested),
then the dispenser runs, then what actually came out is recorded; a crash in between leaves a
request with no outcome, which the manager sees as an exception, never a silent loss.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pos.domain import rulebook
from pos.domain.checks import sales as sale_checks
from pos.domain.flare import GameType
from pos.domain.money import (
    CENTS,
    OPTIONAL,
    OPTIONAL_CENTS,
    format_amount,
    parse_amount,
    parse_count,
)
from pos.errors import BadInput, HardwareFailure, refuse
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import receipts as receipts_read
from pos.services.deals import deal_flare, enforce
from pos.services.eligibility import enforce_for_buyer, purchase_decision, refusals_recorded
from pos.services.inputs import checked_input
from pos.services.money_path import session_for_money
from pos.services.numbering import next_receipt_number
from pos.services.settings import house_rule
from pos.services.station import Station

if TYPE_CHECKING:  # a kiosk's dispenser
    from pos.services.ports import Dispenser

MAX_QTY = 10_000


@dataclass(frozen=True)
class Sale:
    """A sale recorded, in integer cents (the front ends format money). At a kiosk `qty` is what
    came out of the dispenser and `requested` what was asked for; what did not come out is
    `credit`, on voucher `credit_voucher`. A voucher paying: its whole value, the change and the
    voucher the change is on."""

    serial: str
    qty: int
    price: int = field(metadata=CENTS)
    amount: int = field(metadata=CENTS)
    receipt: int = 0
    session: str = ""
    buyer: str | None = None
    event: str = ""
    requested: int | None = field(default=None, metadata=OPTIONAL)
    credit: int | None = field(default=None, metadata=OPTIONAL_CENTS)
    credit_voucher: int | None = field(default=None, metadata=OPTIONAL)
    voucher_paid: int | None = field(default=None, metadata=OPTIONAL_CENTS)
    change: int | None = field(default=None, metadata=OPTIONAL_CENTS)
    change_voucher: int | None = field(default=None, metadata=OPTIONAL)

    @property
    def short(self) -> bool:
        """The dispenser gave fewer tickets than were paid for."""
        return self.requested is not None and self.qty < self.requested


@dataclass(frozen=True)
class NothingDispensed:
    """A kiosk sale paid and recorded with no dispenser to give the tickets: cancelled, and the
    player's credit kept."""

    requested: int


@dataclass(frozen=True)
class Buyers:
    """Who the sale is for: the buyer at the counter and, "through others" (rule D), the person
    the seller was told the tickets are for; and a manager's decision on a near match."""

    buyer: str | None = None
    on_behalf_of: str | None = None
    manager: str | None = None
    reason: str | None = None


def _check_buyers(st: Station, buyers: Buyers, serial: str, by: str | None) -> dict[str, Any]:
    manager = st.operator(buyers.manager, "manager") if buyers.manager else None
    recorded: dict[str, Any] = {"buyer": None, "buyer_staff": None}
    for code, role in ((buyers.buyer, "buyer"), (buyers.on_behalf_of, "for")):
        if not code:
            continue
        from pos.services.players import resolve_buyer  # a sale naming nobody needs none of it

        person = resolve_buyer(st, code)
        assert person is not None
        enforce_for_buyer(
            st,
            purchase_decision(st, person, serial),
            person,
            subject=serial,
            by=by,
            manager=manager,
            reason=buyers.reason,
        )
        if role == "buyer":
            recorded["buyer"] = person.code
        else:
            recorded["for"] = person.code
        recorded["buyer_staff"] = recorded["buyer_staff"] or person.staff_badge
    return recorded


def _check_sale(
    st: Station, serial: str, qty: int, price: str | None, buyers: Buyers, by: str | None
) -> dict[str, Any]:
    """Every rule that touches a sale, inside the command's transaction. Returns the facts."""
    session = session_for_money(st)
    deal = deals_read.deal_for_sale(st.ledger.conn, serial.strip().upper())
    if deal is None:
        raise BadInput("serial", f"deal {serial!r} is not on file at this station")
    serial, state, holder, bin_name = deal.serial, deal.state, deal.holder, deal.bin
    tickets, sold, released_to = deal.tickets, deal.sold, deal.released_to
    refuse(
        sale_checks.sells_here(
            serial, state=state, holder=holder, released_to=released_to, here=st.id
        )
    )
    flare = deal_flare(st, serial)
    enforce(rulebook.check_quantity(tickets - sold, qty))
    if price is not None:
        with checked_input("price"):
            asked = parse_amount(price, "price", allow_zero=True)
        enforce(rulebook.check_sale_price(flare, asked))
    # The house rules are read only where they decide (a sale costs one query less).
    if st.config.role == "kiosk":
        pull_tabs_allowed = flare.game != GameType.PULL_TAB or house_rule(
            st, "kiosk-pull-tab-sales"
        )
        refuse(sale_checks.at_kiosk(pull_tabs_allowed=pull_tabs_allowed, buyer=buyers.buyer))
    else:
        id_required = not buyers.buyer and house_rule(st, "buyer-id-required")
        refuse(sale_checks.at_booth(buyer=buyers.buyer, id_required=id_required))
    return {
        "session": session.id,
        "serial": serial,
        "bin": bin_name,
        "price": flare.price,
        **_check_buyers(st, buyers, serial, by),
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
    buyers: Buyers | None = None,
    voucher: str | None = None,
) -> Sale:
    """Sell `qty` tickets of a deal in this station's bins. A buyer refused for who they are is
    recorded (PurchaseBlocked) before the refusal is raised. At a kiosk, `voucher` (its QR code)
    pays: it is redeemed with the sale and any change comes back as a new voucher."""
    buyers = buyers or Buyers(buyer=buyer)
    with checked_input("qty"):
        count = parse_count(qty, "qty", maximum=MAX_QTY)
    if voucher is not None and st.config.role != "kiosk":
        raise BadInput(
            "voucher", "a voucher pays for tickets at a kiosk; at the booth, redeem it first"
        )
    with refusals_recorded(st):
        if st.config.role == "kiosk":
            return _kiosk_sale(st, serial, count, buyers, price, dispenser, voucher)
        seller = st.operator(operator, "seller")
        with st.ledger.transaction():
            facts = _check_sale(st, serial, count, price, buyers, seller.badge)
            event = st.append(
                "TicketsSold",
                {
                    **_sale_body(facts, count),
                    "seller": seller.badge,
                    "receipt": next_receipt_number(st),
                },
            )
    return _sale_result(event.body, f"{event.origin}:{event.seq}")


def _sale_body(facts: dict[str, Any], qty: int) -> dict[str, Any]:
    body = {
        "serial": facts["serial"],
        "qty": qty,
        "price": facts["price"],
        "amount": qty * facts["price"],
        "bin": facts["bin"],
        "session": facts["session"],
        "buyer": facts["buyer"],
        "buyer_staff": facts["buyer_staff"],
    }
    if facts.get("for"):
        body["for"] = facts["for"]
    return body


def _kiosk_sale(
    st: Station,
    serial: str,
    count: int,
    buyers: Buyers,
    price: str | None,
    dispenser: Dispenser | None,
    voucher: str | None = None,
) -> Sale:
    if dispenser is None:
        raise HardwareFailure("this kiosk has no dispenser configured: booth dispenser set ...")
    # pos.services.vouchers: imported by a kiosk's sale only (paid with a voucher, or leaving
    # credit or change on one), not by a sale at the booth.
    from pos.services.vouchers import checked_voucher

    paying = checked_voucher(st, voucher) if voucher is not None else None
    request = kiosk_request(st, serial, count, buyers, price, paying=paying)
    return kiosk_dispense(st, request, dispenser)


@dataclass(frozen=True)
class KioskRequest:
    """A kiosk sale recorded (DispenseRequested) and not dispensed yet."""

    sale: str
    facts: dict[str, Any]
    count: int
    paying: tuple[str, int, str] | None = None
    credit: int = 0  # cents paid from the kiosk's credit (bills put in)

    @property
    def cost(self) -> int:
        return self.count * int(self.facts["price"])


def kiosk_request(
    st: Station,
    serial: str,
    count: int,
    buyers: Buyers,
    price: str | None = None,
    *,
    paying: tuple[str, int, str] | None = None,
    credit: int | None = None,
    bill: str | None = None,
) -> KioskRequest:
    """Every rule of the sale, then the request on the record (DispenseRequested), committed
    before anything moves. `credit`: the cents the kiosk holds for the player (stacked bills,
    and `bill`, the one held in escrow for this sale); the sale is paid from it."""
    sale_id = os.urandom(8).hex()  # as secrets.token_hex(8), without importing random
    with st.ledger.transaction():
        facts = _check_sale(st, serial, count, price, buyers, None)
        request: dict[str, Any] = {
            "sale": sale_id,
            "serial": facts["serial"],
            "column": facts["bin"],
            "qty": count,
            "session": facts["session"],
            "buyer": facts["buyer"],
        }
        cost = count * facts["price"]
        if paying is not None:
            from pos.services.vouchers import voucher_amount_on_file

            value = voucher_amount_on_file(st, *paying)
            refuse(
                sale_checks.voucher_covers(paying[0], paying[1], value=value, qty=count, cost=cost)
            )
            request["voucher"] = {"station": paying[0], "number": paying[1]}
        paid = 0
        if credit is not None:
            if credit < cost:
                raise BadInput(
                    "credit",
                    f"{format_amount(credit)} put in does not pay {format_amount(cost)}",
                )
            paid = cost
            request["pay"] = {"credit": cost, "bill": bill}
        st.append("DispenseRequested", request)
    return KioskRequest(sale_id, facts, count, paying, paid)


def kiosk_dispense(st: Station, request: KioskRequest, dispenser: Dispenser) -> Sale:
    """The dispenser runs, then what came out is recorded (TicketsSold); what did not come out
    is credited on a voucher, and a jam calls staff (an exception on the manager's list)."""
    from pos.services.ports import DispenserFault

    facts, count = request.facts, request.count
    try:
        dispensed = max(0, min(count, dispenser.dispense(facts["bin"], count)))
        fault = None
    except DispenserFault as exc:
        dispensed, fault = 0, str(exc)
    change = None
    credit_voucher = None
    with st.ledger.transaction():
        body: dict[str, Any] = {
            **_sale_body(facts, dispensed),
            "sale": request.sale,
            "requested": count,
            "credit": (count - dispensed) * facts["price"],
            "seller": None,
            "receipt": next_receipt_number(st),
        }
        if fault:
            body["fault"] = fault
        if request.credit:
            body["paid_credit"] = request.credit
        if request.paying is not None:
            body["voucher"] = {"station": request.paying[0], "number": request.paying[1]}
        event = st.append("TicketsSold", body)
        if request.paying is not None:
            change = _pay_with_voucher(st, request.paying, body)
        elif body["credit"]:
            from pos.services.vouchers import issue_credit_voucher

            credit_voucher = issue_credit_voucher(st, body["credit"], reason="dispenser credit")
        if dispensed < count:
            st.append(
                "ExceptionFlagged",
                {
                    "flag": "dispenser-jam",
                    "serial": facts["serial"],
                    "ticket": None,
                    "detail": f"{st.id} column {facts['bin']} gave {dispensed} of {count} "
                    f"tickets (receipt #{body['receipt']})"
                    + (f": {fault}" if fault else "")
                    + f"; the player was credited ${format_amount(body['credit'])}",
                    "amount": body["credit"],
                    "by": None,
                },
            )
    sale = replace(
        _sale_result(event.body, f"{event.origin}:{event.seq}"), credit_voucher=credit_voucher
    )
    if change is None:
        return sale
    return replace(
        sale,
        voucher_paid=change.voucher_paid,
        change=change.change,
        change_voucher=change.change_voucher,
    )


def cancel_kiosk_request(st: Station, sale: str, reason: str) -> None:
    """Nothing was dispensed for a recorded request, and nothing will be (the bill paying it
    came back, or the kiosk restarted before the dispenser ran)."""
    with st.ledger.transaction():
        st.append("DispenseCancelled", {"sale": sale, "reason": reason})


@dataclass(frozen=True)
class _VoucherChange:
    voucher_paid: int  # cents: the voucher's whole value
    change: int  # cents the tickets did not use
    change_voucher: int | None  # the voucher the change is on (None: no change)


def _pay_with_voucher(
    st: Station, paying: tuple[str, int, str], sale: dict[str, Any]
) -> _VoucherChange:
    """In the sale's transaction: the voucher is redeemed for its whole amount and what the
    tickets that came out did not use (change, and any dispenser shortfall) is a new voucher.
    The tickets are out already: a voucher paid elsewhere meanwhile is flagged, not refused."""
    station, number, _ = paying
    held = receipts_read.voucher(st.ledger.conn, station, number)
    assert held is not None  # checked earlier in this transaction
    value = held.amount
    if held.redeemed_by:
        st.append(
            "ExceptionFlagged",
            {
                "flag": "double-payment",
                "serial": sale["serial"],
                "ticket": None,
                "detail": f"voucher {number} of {station} paid for kiosk sale "
                f"#{sale['receipt']} after it was paid at {held.redeemed_by}",
                "by": None,
            },
        )
    st.append(
        "VoucherRedeemed",
        {
            "voucher_station": station,
            "voucher_number": number,
            "amount": value,
            "by": None,
            "sale_receipt": sale["receipt"],
        },
    )
    change = value - int(sale["amount"])
    from pos.services.vouchers import issue_credit_voucher

    on = issue_credit_voucher(st, change, reason="voucher change") if change else None
    return _VoucherChange(value, change, on)


def _sale_result(body: dict[str, Any], event_id: str) -> Sale:
    return Sale(
        serial=body["serial"],
        qty=body["qty"],
        price=body["price"],
        amount=body["amount"],
        receipt=body["receipt"],
        session=body["session"],
        buyer=body["buyer"],
        event=event_id,
        requested=body.get("requested"),
        credit=body.get("credit") if "requested" in body else None,
    )
