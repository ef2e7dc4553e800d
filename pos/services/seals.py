"""Seal cards: hold tickets sign lines on the sheet; the seal, opened when the deal is sold out,
names the winning line(s); their prizes are claimed within the window (B), and unclaimed
progressive prizes move on to the next progressive game in progress (C6)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from pos.domain import rulebook
from pos.domain.checks import of_decision
from pos.domain.checks import seals as seal_checks
from pos.domain.flare import Flare, GameType
from pos.domain.money import CENTS, format_amount
from pos.errors import BadInput, refuse
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import winners as winners_read
from pos.services.current_session import hall_date
from pos.services.deals import close_deal_in_transaction, deal_flare
from pos.services.eligibility import identity_decision
from pos.services.money_path import session_if_any
from pos.services.numbering import next_receipt_number
from pos.services.players import resolve_buyer
from pos.services.settings import rulebook_settings
from pos.services.station import Station


def _seal_deal(st: Station, serial: str, *, signing: bool = False) -> tuple[dict[str, Any], Flare]:
    serial = serial.strip().upper()
    row = deals_read.deal_on_file(st.ledger.conn, serial)
    if row is None:
        raise BadInput("serial", f"deal {serial!r} is not on file at this station")
    flare = deal_flare(st, serial)
    if signing:
        refuse(seal_checks.has_sheet(flare.serial, game=flare.game, sealed=flare.seal is not None))
    # K 4: an event game may be decided by a seal card too (its flare gives the seal's terms).
    if flare.game not in (GameType.SEAL_CARD, GameType.EVENT) or flare.seal is None:
        raise BadInput(
            "serial",
            f"deal {serial} ({flare.game}) has no seal: there is no seal to open and no line to "
            "sign",
        )
    return row, flare


def sign_line(
    st: Station,
    serial: str,
    *,
    ticket: str,
    line: int,
    player: str | None,
    operator: str | None,
) -> dict[str, Any]:
    """Sign a line of the sheet with a hold ticket. At the booth a seller or redeemer signs; at a
    kiosk an identified adult player signs for themselves (no operator: `by` is None)."""
    by_badge: str | None
    if operator is None and st.config.role == "kiosk":
        refuse(seal_checks.kiosk_signer(player))
        by_badge = None
    else:
        by_badge = st.operator(operator, "seller", "redeemer").badge
    with st.ledger.transaction():
        deal, flare = _seal_deal(st, serial, signing=True)
        assert flare.seal is not None
        ticket = ticket.strip()
        refuse(
            seal_checks.may_sign(
                flare.serial,
                holder=deal["holder"],
                here=st.id,
                ticket=ticket,
                hold_tickets=flare.seal.hold_tickets,
            )
        )
        if not 1 <= line <= flare.seal.lines:
            raise BadInput("line", f"{line} is not a line of the sheet (1 to {flare.seal.lines})")
        conn = st.ledger.conn
        refuse(
            seal_checks.line_free(
                flare.serial,
                seal_open=winners_read.seal(conn, flare.serial) is not None,
                ticket=ticket,
                signed_line=winners_read.line_signed_by_ticket(conn, flare.serial, ticket),
                line=line,
                line_ticket=winners_read.ticket_on_line(conn, flare.serial, line),
            )
        )
        player_code = None
        if player:
            buyer = resolve_buyer(st, player)
            assert buyer is not None
            refuse(of_decision(identity_decision(st, buyer), "D"))
            player_code = buyer.code
        st.append(
            "SealLineSigned",
            {
                "serial": flare.serial,
                "ticket": ticket,
                "line": line,
                "player": player_code,
                "by": by_badge,
            },
        )
    return sheet(st, flare.serial)


def sheet(st: Station, serial: str) -> dict[str, Any]:
    deal, flare = _seal_deal(st, serial)
    assert flare.seal is not None
    signed = winners_read.signed_lines(st.ledger.conn, flare.serial)
    seal = winners_read.seal(st.ledger.conn, flare.serial)
    winning = seal.lines if seal else []
    prizes = {
        line: {"amount": format_amount(amount), "state": state, "carried_to": carried_to}
        for line, (amount, state, carried_to) in winners_read.seal_prizes(
            st.ledger.conn, flare.serial
        ).items()
    }
    return {
        "serial": flare.serial,
        "name": flare.name,
        "prize": format_amount(flare.seal.prize),
        "progressive": flare.seal.progressive,
        "hold_tickets": list(flare.seal.hold_tickets),
        "lines": [
            {
                "line": n,
                **signed.get(n, {"ticket": None, "player": None}),
                "winner": n in winning,
                **({"prize": prizes[n]} if n in prizes else {}),
            }
            for n in range(1, flare.seal.lines + 1)
        ],
        "opened": seal is not None,
        "claim_until": seal.claim_until if seal else None,
        "tickets_left": int(deal["tickets"]) - int(deal["sold"]),
    }


def open_seal(
    st: Station, serial: str, *, lines: list[int], operator: str | None
) -> dict[str, Any]:
    """Open the seal of a sold-out deal: the winning line(s), their signers, the claim window."""
    by = st.operator(operator, "manager", "redeemer")
    if not lines:
        raise BadInput("line", "give the winning line(s) under the seal")
    with st.ledger.transaction():
        deal, flare = _seal_deal(st, serial)
        assert flare.seal is not None
        refuse(
            seal_checks.event_decided_in_session(
                flare.serial,
                event=flare.game == GameType.EVENT,
                ended=deal["state"] == "closed",
                session_open=session_if_any(st) is not None,
            )
        )
        refuse(
            seal_checks.may_open(
                flare.serial,
                seal_open=winners_read.seal(st.ledger.conn, flare.serial) is not None,
                tickets_left=int(deal["tickets"]) - int(deal["sold"]),
            )
        )
        for line in lines:
            if not 1 <= line <= flare.seal.lines:
                raise BadInput(
                    "line", f"{line} is not a line of the sheet (1 to {flare.seal.lines})"
                )
        settings = rulebook_settings(st)
        today = hall_date(st, st.clock.now())
        if deal["state"] != "closed":
            close_deal_in_transaction(st, flare.serial, unsold=0, by=by.badge, reason="C5")
        claim_until = rulebook.claim_deadline_for_seal(today, settings)
        carry_after = (
            today + timedelta(days=settings.progressive_carry_days)
            if flare.seal.progressive
            else None
        )
        st.append(
            "SealOpened",
            {
                "serial": flare.serial,
                "lines": sorted(set(lines)),
                "prize": flare.seal.prize,
                "progressive": flare.seal.progressive,
                "opened_on": today.isoformat(),
                "claim_until": claim_until.isoformat(),
                "carry_after": carry_after.isoformat() if carry_after else None,
                "by": by.badge,
            },
        )
    carry_progressive_prizes(st)
    return sheet(st, flare.serial)


@dataclass(frozen=True)
class SealPrize:
    """A seal card's winning line paid: what to pay (cents) and what to say."""

    pay: int = field(metadata=CENTS)
    say: str = "PUNCH NOW"
    serial: str = ""
    line: int = 0
    event: str = ""


def claim_seal_prize(st: Station, serial: str, *, line: int, operator: str | None) -> SealPrize:
    by = st.operator(operator, "redeemer")
    with st.ledger.transaction():
        deal, flare = _seal_deal(st, serial)
        prize = winners_read.seal_prize(st.ledger.conn, flare.serial, line)
        refuse(
            seal_checks.claimable(
                flare.serial,
                line,
                state=prize.state if prize else None,
                carried_to=prize.carried_to if prize else None,
                claim_until=prize.claim_until if prize else None,
                today=hall_date(st, st.clock.now()),
                holder=deal["holder"],
                here=st.id,
            )
        )
        assert prize is not None
        amount = prize.amount
        session = session_if_any(st)
        event = st.append(
            "SealPrizePaid",
            {
                "serial": flare.serial,
                "line": line,
                "amount": amount,
                "by": by.badge,
                "receipt": next_receipt_number(st),
                "session": session.id if session else None,
            },
        )
    return SealPrize(amount, "PUNCH NOW", flare.serial, line, f"{event.origin}:{event.seq}")


def carry_progressive_prizes(st: Station) -> list[dict[str, Any]]:
    """C6: progressive seal prizes unclaimed past their carry date move to the next progressive
    seal card game in progress. Runs by itself at session open/close and after a seal opens."""
    today = hall_date(st, st.clock.now()).isoformat()
    carried = []
    with st.ledger.transaction():
        due = winners_read.progressive_prizes_due(st.ledger.conn, today)
        for serial, line, amount in due:
            target = _next_progressive_game(st, exclude=serial)
            if target is None:
                break
            st.append(
                "ProgressivePrizeCarried",
                {
                    "from_serial": serial,
                    "line": line,
                    "to_serial": target,
                    "amount": amount,
                    "rule": "C6",
                },
            )
            carried.append(
                {"from": serial, "line": line, "to": target, "amount": format_amount(amount)}
            )
    return carried


def _next_progressive_game(st: Station, *, exclude: str) -> str | None:
    for serial, flare_json in deals_read.seal_cards_in_play(st.ledger.conn, exclude=exclude):
        seal = json.loads(flare_json).get("seal") or {}
        if seal.get("progressive"):
            return str(serial)
    return None


def seal_deals_held_here(st: Station) -> list[str]:
    return deals_read.seal_cards_held_by(st.ledger.conn, st.id)
