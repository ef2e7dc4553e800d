"""Winners: scan to redeem (PUNCH NOW) or void, ticket checks, and the claim windows (B).

A refusal that the manager must see (a ticket paid twice, more winners than the flare holds) is
recorded as an ExceptionFlagged event first, in its own transaction, then raised.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pos.domain import ticket_code
from pos.domain.checks import of_decision
from pos.domain.checks import winners as winner_checks
from pos.domain.flare import Flare, GameType
from pos.domain.hlc import Stamp, local_minute
from pos.domain.money import CENTS, format_amount, parse_amount
from pos.domain.ticket_code import TicketCode
from pos.errors import BadInput, refuse
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import winners as winners_read
from pos.services.current_session import hall_date, open_session_now
from pos.services.deals import deal_flare
from pos.services.eligibility import identity_decision
from pos.services.inputs import checked_input
from pos.services.money_path import refuse_if_closed
from pos.services.numbering import next_receipt_number
from pos.services.players import resolve_buyer
from pos.services.station import Station
from pos.services.w2g import Winner, identity_for


@dataclass(frozen=True)
class Payout:
    """A winning ticket paid: what to pay (cents) and what to say (PUNCH NOW)."""

    pay: int = field(metadata=CENTS)
    say: str = "PUNCH NOW"
    serial: str = ""
    ticket: str | None = None
    receipt: int = 0
    session: str = ""
    w2g: bool = False  # the winner's W-2G data was recorded, sealed
    punched: bool = False  # the punch was confirmed with the payment (C2)
    flagged: str | None = None  # what the manager was told of (many winners of one player)
    event: str = ""


def decode_code(text: str) -> TicketCode:
    with checked_input("code"):
        return ticket_code.decode(text)


def _local_time(st: Station, hlc_text: str) -> str:
    return local_minute(hlc_text, st.hall.time_zone)


def _flag(
    st: Station,
    flag: str,
    code: TicketCode,
    detail: str,
    by: str | None,
    player: str | None = None,
) -> None:
    body: dict[str, Any] = {
        "flag": flag,
        "serial": code.serial,
        "ticket": code.ticket,
        "detail": detail,
        "by": by,
    }
    if player is not None:
        body["player"] = player
    st.append("ExceptionFlagged", body)


def _deal(st: Station, code: TicketCode) -> dict[str, Any]:
    row = deals_read.deal_on_file(st.ledger.conn, code.serial)
    refuse(winner_checks.deal_known(code.serial, known=row is not None))
    assert row is not None
    return row


def _tier(flare: Flare, code: TicketCode, tier: str | None) -> int:
    if code.tier is not None and tier is not None:
        with checked_input("tier"):
            asked = parse_amount(tier, "tier")
        if asked != code.tier:
            raise BadInput(
                "tier", f"${tier} differs from the ${format_amount(code.tier)} on the ticket"
            )
    if code.tier is not None:
        amount = code.tier
    elif tier is not None:
        with checked_input("tier"):
            amount = parse_amount(tier, "tier")
    else:
        raise BadInput("tier", f"ticket {code} carries no prize: give --tier (e.g. 100.00)")
    if amount not in {t.amount for t in flare.prizes}:
        tiers = ", ".join(f"${format_amount(t.amount)}" for t in flare.prizes)
        raise BadInput(
            "tier",
            f"${format_amount(amount)} is not a prize of deal {flare.serial} (its tiers: {tiers})",
        )
    return amount


def _claim_window(st: Station, deal: dict[str, Any], now: datetime) -> str:
    """B: an ordinary prize is paid on the game date its ticket was sold (so during a session of
    a game date on which the deal sold). Returns the open session's id."""
    session = open_session_now(st)
    today = hall_date(st, now)
    refuse(winner_checks.session_for_claim(session.game_date if session else None, today))
    assert session is not None
    refuse_if_closed(st, session)
    serial = deal["serial"]
    sold = deals_read.sold_on(st.ledger.conn, serial, today.isoformat())
    last = None if sold else deals_read.last_sale_date(st.ledger.conn, serial)
    refuse(winner_checks.sold_today(serial, today, sold=sold, last_sale=last))
    return session.id


def _already_paid(st: Station, code: TicketCode) -> dict[str, Any] | None:
    if code.ticket is None:
        return None
    return winners_read.ticket_paid(st.ledger.conn, code.serial, code.ticket)


def _voided(st: Station, code: TicketCode) -> dict[str, Any] | None:
    if code.ticket is None:
        return None
    return winners_read.ticket_void(st.ledger.conn, code.serial, code.ticket)


def redeem(
    st: Station,
    code_text: str,
    *,
    operator: str | None,
    tier: str | None = None,
    player: str | None = None,
    winner: Winner | None = None,
    punched: bool = False,
) -> Payout:
    """Pay a winning ticket: PUNCH NOW. Refused (exit 1) with the rule when it must not pay.
    `punched`: the redeemer confirms at once that the ticket was punched (C2)."""
    code = decode_code(code_text)
    redeemer = st.operator(operator, "redeemer")
    flagged: winner_checks.Flag | None = None
    noted: str | None = None
    with st.ledger.transaction():
        conn = st.ledger.conn
        deal = _deal(st, code)
        refuse(winner_checks.ticket_in_deal(code.serial, code.ticket, tickets=int(deal["tickets"])))
        flare = deal_flare(st, code.serial)
        amount = _tier(flare, code, tier)
        today = hall_date(st, st.clock.now()).isoformat()
        refuse(
            winner_checks.deal_in_play(
                code.serial,
                state=deal["state"],
                sold_today=deals_read.sold_on(conn, code.serial, today),
            )
        )
        refuse(
            winner_checks.pays_here(
                code.serial, holder=deal["holder"], released_to=deal["released_to"], here=st.id
            )
        )
        voided = _voided(st, code)
        void = winner_checks.Void(voided["hlc"], voided["by"], voided["reason"]) if voided else None
        refuse(winner_checks.not_voided(str(code), void, time_zone=st.hall.time_zone))
        buyer = resolve_buyer(st, player) if player else None
        presenter = buyer.code if buyer else None
        paid = _already_paid(st, code)
        if paid is not None:
            flagged = winner_checks.double_payment(
                paid_hlc=paid["hlc"],
                by=st.named(paid["by"]) if paid["by"] else "an unknown person",
                origin=paid["origin"],
                time_zone=st.hall.time_zone,
            )
        else:
            left = deals_read.winners_left(conn, code.serial, amount)
            assert left is not None  # the tier is the flare's
            flagged = winner_checks.counterfeit(
                code.serial, amount=amount, winners_left=left
            ) or winner_checks.beyond_sales(
                code.serial,
                sold=int(deal["sold"]),
                winners_paid=winners_read.ticket_winners_paid(conn, code.serial),
                player=presenter,
                redeemer=redeemer.badge,
            )
        if flagged is None:
            session_id = _claim_window(st, deal, st.clock.now())
            if buyer is not None:
                refuse(of_decision(identity_decision(st, buyer), "ID"))
            body: dict[str, Any] = {
                "serial": code.serial,
                "ticket": code.ticket,
                "amount": amount,
                "by": redeemer.badge,
                "session": session_id,
                "receipt": next_receipt_number(st),
                "player": presenter,
            }
            w2g = identity_for(st, amount, winner, wager=_w2g_wager(flare))
            if w2g:
                body["w2g"] = w2g
            event = st.append("WinnerRedeemed", body)
            if punched:
                _punch(st, event.origin, event.seq, code, how="command", by=redeemer.badge)
            if presenter is not None:
                noted = winner_checks.many_winners(
                    code.serial,
                    player=presenter,
                    winners_today=winners_read.player_winners_on(
                        conn, code.serial, presenter, today
                    ),
                    bought_today=deals_read.tickets_bought_on(conn, code.serial, presenter, today),
                )
                if noted is not None:
                    _flag(st, "many-winners", code, noted, redeemer.badge, presenter)
    if flagged is not None:
        with st.ledger.transaction():
            _flag(st, flagged.kind, code, flagged.detail, redeemer.badge, presenter)
        refuse(flagged.refusal(str(code)))
    return Payout(
        pay=amount,
        say="PAID, PUNCHED" if punched else "PUNCH NOW",
        serial=code.serial,
        ticket=code.ticket,
        receipt=body["receipt"],
        session=session_id,
        w2g="w2g" in body,
        punched=punched,
        flagged=noted,
        event=f"{event.origin}:{event.seq}",
    )


def _punch(st: Station, origin: str, seq: int, code: TicketCode, *, how: str, by: str) -> Any:
    return st.append(
        "TicketPunched",
        {
            "origin": origin,
            "seq": seq,
            "serial": code.serial,
            "ticket": code.ticket,
            "how": how,
            "by": by,
        },
    )


def confirm_punch(
    st: Station, code_text: str, *, operator: str | None, how: str = "command"
) -> dict[str, Any]:
    """C2: the redeemer confirms that a paid ticket was punched (a tap, a second scan, or the
    command): recorded with who and when. Pays nothing."""
    code = decode_code(code_text)
    by = st.operator(operator, "redeemer")
    if code.ticket is None:
        raise BadInput("code", f"{code} has no ticket number: a punch needs the ticket's number")
    with st.ledger.transaction():
        _deal(st, code)
        payment = winners_read.ticket_payment(st.ledger.conn, code.serial, code.ticket)
        refuse(
            winner_checks.punchable(
                str(code),
                paid=payment is not None,
                punched_by=payment["punched_by"] if payment else None,
                punched_hlc=payment["punched_hlc"] if payment else None,
                time_zone=st.hall.time_zone,
            )
        )
        assert payment is not None
        event = _punch(st, payment["origin"], int(payment["seq"]), code, how=how, by=by.badge)
    return {
        "punched": str(code),
        "by": by.badge,
        "at": _local_time(st, event.hlc),
        "payment": f"{payment['origin']}:{payment['seq']}",
        "event": f"{event.origin}:{event.seq}",
    }


def second_scan_confirms_punch(st: Station, code_text: str, *, operator: str | None) -> bool:
    """C2: whether this scan of a ticket confirms its punch rather than paying it: the person
    who paid it, at this station, within moments of paying (SECOND_SCAN_WINDOW), its punch not
    yet confirmed. Any other scan of a paid ticket reads "already paid ...: pay nothing"."""
    code = decode_code(code_text)
    if code.ticket is None or not operator:
        return False
    payment = winners_read.ticket_payment(st.ledger.conn, code.serial, code.ticket)
    if payment is None:
        return False
    paid_at = Stamp.parse(payment["hlc"]).instant
    return winner_checks.second_scan_confirms_punch(
        paid_here=payment["origin"] == st.id,
        punched=payment["punched_hlc"] is not None,
        same_person=payment["by"] == operator,
        since_payment=st.clock.now() - paid_at,
    )


def punch_unconfirmed(st: Station, code_text: str) -> bool:
    """Whether a ticket was paid here and its punch is not yet confirmed (the Winners screen
    then offers to record the punch)."""
    code = decode_code(code_text)
    if code.ticket is None:
        return False
    payment = winners_read.ticket_payment(st.ledger.conn, code.serial, code.ticket)
    return payment is not None and payment["origin"] == st.id and payment["punched_hlc"] is None


def _w2g_wager(flare: Flare) -> int | None:
    """A pull-tab's winnings are reportable only at a multiple of its price; a seal card's or
    an event game's at the threshold alone."""
    return flare.price if flare.game == GameType.PULL_TAB else None


def void_ticket(
    st: Station, code_text: str, *, reason: str, operator: str | None
) -> dict[str, Any]:
    """C1: a tampered or damaged ticket is voided by scan; it never pays."""
    code = decode_code(code_text)
    by = st.operator(operator, "redeemer", "seller")
    if not reason.strip():
        raise BadInput("reason", "say why the ticket is voided (tampered, damaged...)")
    if code.ticket is None:
        raise BadInput("code", f"{code} has no ticket number: a void needs the ticket's number")
    with st.ledger.transaction():
        deal = _deal(st, code)
        refuse(winner_checks.ticket_in_deal(code.serial, code.ticket, tickets=int(deal["tickets"])))
        voided = _voided(st, code) is not None
        paid = not voided and _already_paid(st, code) is not None
        refuse(winner_checks.voidable(str(code), voided=voided, paid=paid))
        event = st.append(
            "TicketVoided",
            {
                "serial": code.serial,
                "ticket": code.ticket,
                "reason": reason.strip(),
                "by": by.badge,
                "receipt": next_receipt_number(st),
            },
        )
    return {"voided": str(code), "reason": reason.strip(), "event": f"{event.origin}:{event.seq}"}


@dataclass(frozen=True)
class SaleVoid:
    """A sale voided: its receipt, what it sold, and the cents given back."""

    receipt: int
    serial: str
    qty: int
    amount: int = field(metadata=CENTS)
    event: str = ""
    by: str = ""  # the manager who voided it (or approved it)
    asked_by: str | None = None  # the seller who asked a manager to approve it, if one did


def void_sale(
    st: Station,
    receipt: int,
    *,
    reason: str,
    operator: str | None,
    asked_by: str | None = None,
) -> SaleVoid:
    """A sale rung in error is voided by a manager: the tickets go back, the money comes off.
    `asked_by`: the seller signed on at the booth who asked the manager (`operator`) to approve
    it there; both go on the record."""
    by = st.operator(operator, "manager")
    asker = st.operator(asked_by) if asked_by is not None else None
    if not reason.strip():
        raise BadInput("reason", "say why the sale is voided")
    with st.ledger.transaction():
        row = deals_read.sale_on_receipt(st.ledger.conn, st.id, receipt)
        if row is None:
            raise BadInput("receipt", f"no sale with receipt {receipt} at {st.id}")
        refuse(winner_checks.sale_voidable(receipt, voided=bool(row[3])))
        event = st.append(
            "SaleVoided",
            {
                "station": st.id,
                "sale_receipt": receipt,
                "receipt": next_receipt_number(st),
                "serial": row[0],
                "qty": row[1],
                "amount": row[2],
                "reason": reason.strip(),
                "by": by.badge,
                **({"asked_by": asker.badge} if asker is not None else {}),
            },
        )
    return SaleVoid(
        receipt,
        row[0],
        row[1],
        row[2],
        f"{event.origin}:{event.seq}",
        by.badge,
        asker.badge if asker is not None else None,
    )


def check_ticket(st: Station, code_text: str, *, tier: str | None = None) -> dict[str, Any]:
    """What a kiosk tells a player about a ticket, without paying it."""
    code = decode_code(code_text)
    deal = _deal(st, code)
    flare = deal_flare(st, code.serial)
    result: dict[str, Any] = {"serial": code.serial, "ticket": code.ticket, "game": flare.name}
    voided = _voided(st, code)
    paid = _already_paid(st, code)
    outside = winner_checks.ticket_in_deal(code.serial, code.ticket, tickets=flare.tickets)
    if outside is not None or deal["state"] in ("tampered", "received", "unknown"):
        result["status"] = "invalid"
        result["say"] = "This ticket cannot be paid. Show it at the booth."
    elif voided:
        result["status"] = "void"
        result["say"] = "This ticket was voided and does not pay."
    elif paid:
        result["status"] = "paid"
        result["say"] = f"Already paid at {_local_time(st, paid['hlc'])}."
    elif code.tier is None and tier is None:
        result["status"] = "unknown-prize"
        result["say"] = "Show this ticket at the booth to check it."
    else:
        amount = _tier(flare, code, tier)
        result["status"] = "winner"
        result["pay"] = format_amount(amount)
        result["say"] = f"Winner: ${format_amount(amount)}. Take this ticket to the booth."
    result["deal_state"] = deal["state"]
    return result


def winner_data(st: Station, origin: str, seq: int) -> dict[str, Any]:
    """A W-2G's sealed winner data, opened with the hall's key (manager station only)."""
    event = st.ledger.get(origin, seq)
    if event is None or "w2g" not in event.body:
        raise BadInput("event", f"{origin}:{seq} is not a redemption with W-2G data")
    opened: dict[str, Any] = json.loads(st.hall_key().unseal(event.body["w2g"]["sealed"]))
    return opened
