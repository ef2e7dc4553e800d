"""A raffle ticket as it prints and as it verifies: the two parts of a numbered ticket (the stub
for the receptacle, the buyer's part with its signed QR code), and what a ticket's receipt
number says about it now (sold, voided, drawn). Used by the receipts (pos/services/receipts.py)
so a raffle ticket prints and verifies like any receipt."""

from __future__ import annotations

from typing import Any

from pos.domain import raffle as raffle_domain
from pos.domain.money import format_amount
from pos.domain.receipt import Line
from pos.ledger.projections import raffle as raffle_read
from pos.services.station import Station


def ticket_content(st: Station, body: dict[str, Any]) -> dict[str, Any]:
    """The receipt content of a RaffleTicketSold: the buyer's part, and the stub's lines."""
    raffle_id, number = body["raffle"], int(body["ticket"])
    found = raffle_read.raffle(st.ledger.conn, raffle_id)
    name = found["name"] if found else raffle_id
    drawing = found["drawing_date"] if found else "?"
    label = raffle_domain.ticket_label(number)
    prizes = raffle_read.prizes(st.ledger.conn, raffle_id)
    notes = [
        f"{raffle_domain.ordinal(int(p['place']))}: {p['description']} "
        f"(${format_amount(int(p['value']))})"
        for p in prizes
    ]
    notes.append("Keep this part: it is your ticket. The stub goes into the drawing.")
    return {
        "lines": [Line(f"Raffle {name} ({raffle_id})", amount=int(body["amount"]))],
        "total": int(body["amount"]),
        "fields": [("Ticket", label), ("Drawing", drawing)],
        "headline": f"No. {label}",
        "notes": notes,
        "stub": raffle_domain.stub_lines(
            raffle=raffle_id,
            name=name,
            number=number,
            drawing_date=drawing,
            organisation=st.hall.organisation,
        ),
    }


def ticket_status(st: Station, station: str, receipt: int) -> dict[str, Any] | None:
    """What a raffle ticket printed on `station`'s receipt `receipt` is now: its raffle and
    number, sold, voided, and the prize it won when drawn. None when not on file here."""
    conn = st.ledger.conn
    row = raffle_read.ticket_by_receipt(conn, station, receipt)
    if row is None:
        return None
    raffle_id, number = row["raffle"], int(row["ticket"])
    found = raffle_read.raffle(conn, raffle_id)
    won = raffle_read.place_won(conn, raffle_id, number)
    status = "voided" if row["voided_hlc"] else "drawn" if won is not None else "sold"
    result: dict[str, Any] = {
        "raffle": raffle_id,
        "name": found["name"] if found else None,
        "drawing_date": found["drawing_date"] if found else None,
        "ticket": number,
        "number": raffle_domain.ticket_label(number),
        "status": status,
        "sold": True,
        "voided": bool(row["voided_hlc"]),
        "drawn": won is not None,
        "price": format_amount(int(row["price"])),
    }
    if row["voided_hlc"]:
        result["void_reason"] = row["void_reason"]
    if won is not None:
        prize = next(p for p in raffle_read.prizes(conn, raffle_id) if int(p["place"]) == won)
        result["prize"] = {
            "place": won,
            "description": prize["description"],
            "value": format_amount(int(prize["value"])),
            "claimed": prize["claimed_hlc"] is not None,
        }
    return result
