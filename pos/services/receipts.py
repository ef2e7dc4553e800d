"""Receipts: their content from the ledger, the signed QR code, verification, and the print
queue (commit first, print after; a job that may have printed prints again only as REPRINT)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from pos.domain import qr_payload, voucher_code
from pos.domain.hlc import Stamp
from pos.domain.money import format_amount
from pos.domain.qr_payload import InvalidPayload, Payload
from pos.domain.receipt import Line, Receipt
from pos.errors import BadInput, IntegrityFailure, NotFound
from pos.ledger.keys import StationKey
from pos.ledger.projections import deals as deals_read
from pos.ledger.projections import receipts as receipts_read
from pos.services.inputs import checked_input
from pos.services.ports import PrinterFault, ReceiptPrinter
from pos.services.print_queue import pending
from pos.services.raffle_tickets import ticket_content, ticket_status
from pos.services.station import STATION_KEY_FILE, Station

KIND_OF_EVENT = {
    "TicketsSold": "sale",
    "WinnerRedeemed": "redemption",
    "SealPrizePaid": "redemption",
    "TicketVoided": "void",
    "SaleVoided": "void",
    "DeviceRented": "rental",
    "VoucherIssued": "voucher",
    "VoucherRedeemed": "voucher-redeemed",
    "RaffleTicketSold": "raffle-ticket",
    "PaperSold": "sale",
    "DecisionEntered": "sale",
    "ChestSold": "sale",
    "BingoPrizePaid": "redemption",
}


def _local(st: Station, hlc_text: str) -> datetime:
    return Stamp.parse(hlc_text).instant.astimezone(ZoneInfo(st.hall.time_zone))


def _row(st: Station, station: str, number: int) -> dict[str, Any]:
    row = receipts_read.receipt_row(st.ledger.conn, station, number)
    if row is None:
        raise NotFound(f"no receipt {number} of station {station} is on file here")
    return row


def _deal_name(st: Station, serial: str) -> str:
    name = deals_read.deal_name(st.ledger.conn, serial)
    return f"{name} ({serial})" if name else serial


def _content(st: Station, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """Lines, total, headline and labelled fields of a receipt, from its event's body."""
    if "lines" in body:  # the bingo session's receipts carry their own lines (issue #18)
        return _own_lines(kind, body)
    if kind == "sale":
        lines = [
            Line(
                f"{_deal_name(st, body['serial'])} @ ${format_amount(body['price'])}",
                qty=body["qty"],
                amount=body["amount"],
            )
        ]
        notes = []
        if body.get("credit"):
            notes.append(
                f"Dispenser gave {body['qty']} of {body['requested']}: "
                f"${format_amount(body['credit'])} credited"
            )
        fields = [("Buyer", body["buyer"])] if body.get("buyer") else []
        return {"lines": lines, "total": body["amount"], "fields": fields, "notes": notes}
    if kind == "redemption":
        what = (
            f"Ticket {body['serial']}/{body['ticket']}"
            if body.get("ticket")
            else f"Seal line {body['line']} of {body['serial']}"
            if body.get("line")
            else f"Winner of {body['serial']}"
        )
        return {
            "lines": [Line(what, amount=body["amount"])],
            "total": body["amount"],
            "total_label": "PAID",
            "headline": "PUNCH NOW",
        }
    if kind == "void":
        if "sale_receipt" in body:
            what = f"Sale #{body['sale_receipt']}: {body['qty']} x {_deal_name(st, body['serial'])}"
            return {
                "lines": [Line(what, amount=-body["amount"])],
                "total": -body["amount"],
                "headline": "VOID",
                "notes": [f"Reason: {body['reason']}"],
            }
        return {
            "lines": [Line(f"Ticket {body['serial']}/{body['ticket']}")],
            "headline": "VOID - NEVER PAYS",
            "notes": [f"Reason: {body['reason']}"],
        }
    if kind == "voucher":
        return {
            "lines": [Line(f"Voucher ({body['reason']})", amount=body["amount"])],
            "total": body["amount"],
            "total_label": "VALUE",
            "notes": ["Redeem once, at any station of this hall."],
        }
    if kind == "voucher-redeemed":
        return {
            "lines": [
                Line(
                    f"Voucher {body['voucher_station']} #{body['voucher_number']}",
                    amount=body["amount"],
                )
            ],
            "total": body["amount"],
            "total_label": "PAID",
        }
    if kind == "raffle-ticket":
        return ticket_content(st, body)
    if kind == "rental":
        fields = [(label, str(body[key])) for label, key in RENTAL_FIELDS if key in body]
        return {
            "lines": [Line(f"Device {body['device']}", amount=body["amount"])],
            "total": body["amount"],
            "fields": fields,
        }
    return {}


#: Every cash sale, whatever the game, opens the drawer at the booth with its receipt: the same
#: events the drawer's expected cash counts as taken in.
CASH_SALES = frozenset(
    kind
    for kind, receipt in KIND_OF_EVENT.items()
    if receipt in {"sale", "raffle-ticket", "rental", "voucher"}
)


def _own_lines(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    lines = [Line(str(x["text"]), qty=x.get("qty"), amount=x.get("amount")) for x in body["lines"]]
    fields = [("Buyer", body["buyer"])] if body.get("buyer") else []
    fields += [
        ("Audit numbers", f"{s['series']} {s['first']}-{s['last']}") for s in body.get("sheets", [])
    ]
    out: dict[str, Any] = {"lines": lines, "total": body["amount"], "fields": fields}
    if kind == "redemption":
        out["total_label"] = "PAID"
    return out


RENTAL_FIELDS = (
    ("Cards loaded", "faces"),
    ("Games", "games"),
    ("Cost", "cost_text"),
    ("Transaction", "transaction"),
)


def receipt(st: Station, station: str, number: int, *, reprint: bool = False) -> Receipt:
    """Receipt `number` of `station` as it prints, QR code included (signed by this station:
    only a receipt's own station prints it)."""
    row = _row(st, station, number)
    event = st.ledger.get(row["origin"], row["seq"])
    assert event is not None
    kind = KIND_OF_EVENT.get(row["type"], "test")
    body = event.body
    qr = None
    if station == st.id:
        qr = sign_payload(
            st,
            Payload(
                st.config.hall,
                station,
                number,
                kind,
                abs(int(row["amount"] or 0)),
                int(Stamp.parse(event.hlc).instant.timestamp()),
            ),
        )
    content = _content(st, kind, body)
    return Receipt(
        kind=kind,
        organisation=st.hall.organisation,
        location=st.hall.location,
        station=station,
        number=number,
        issued_at=_local(st, event.hlc),
        operator=body.get("seller") or body.get("by"),
        lines=tuple(content.get("lines", ())),
        total=content.get("total"),
        total_label=content.get("total_label", "TOTAL"),
        headline=content.get("headline"),
        fields=tuple(content.get("fields", ())),
        notes=tuple(content.get("notes", ())),
        qr=qr,
        typed_code=_typed_code(st, kind, station, number),
        training=st.hall.training,
        reprint=reprint,
        stub=tuple(content.get("stub", ())),
    )


def _typed_code(st: Station, kind: str, station: str, number: int) -> str | None:
    """A voucher's short code, printed under its QR for typing (grouped), else None."""
    if kind != "voucher":
        return None
    code = receipts_read.voucher_code_of(st.ledger.conn, station, number)
    return voucher_code.grouped(code) if code else None


def _key(st: Station) -> StationKey:
    return StationKey.from_hex((st.directory / STATION_KEY_FILE).read_text())


def sign_payload(st: Station, payload: Payload) -> str:
    key = _key(st)
    return qr_payload.encode(payload, key.sign)


def verify_payload(st: Station, text: str) -> dict[str, Any]:
    """Genuine (signed by a station of this hall) and what it is; IntegrityFailure if forged,
    altered or from another hall; BadInput if it is not a Booth receipt code at all."""
    try:
        payload, message, signature = qr_payload.decode(text)
    except InvalidPayload as exc:
        raise BadInput("payload", str(exc).removeprefix("payload: ")) from None
    if payload.hall != st.config.hall:
        raise IntegrityFailure(
            f"refused: the code is from hall {payload.hall}, not this hall ({st.config.hall})"
        )
    key = st.ledger.public_key(payload.station)
    if key is None:
        raise IntegrityFailure(f"refused: {payload.station} is not a station of this hall")
    if not key.verifies(message, signature):
        raise IntegrityFailure("refused: the signature does not match: forged or altered")
    result: dict[str, Any] = {
        "genuine": True,
        "hall": payload.hall,
        "station": payload.station,
        "number": payload.number,
        "kind": payload.kind,
        "amount": format_amount(payload.amount),
        "time": datetime.fromtimestamp(payload.time, UTC)
        .astimezone(ZoneInfo(st.hall.time_zone))
        .isoformat(timespec="seconds"),
    }
    on_file = receipts_read.receipt_kind_and_amount(st.ledger.conn, payload.station, payload.number)
    result["on_file"] = on_file is not None
    if on_file is not None and abs(int(on_file[1] or 0)) != payload.amount:
        raise IntegrityFailure(
            f"refused: receipt {payload.number} of {payload.station} is on "
            f"file for ${format_amount(abs(int(on_file[1] or 0)))}, not "
            f"${result['amount']}"
        )
    if payload.kind == "raffle-ticket":
        result["raffle"] = ticket_status(st, payload.station, payload.number)
    return result


# --- the print queue ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PrintJob:
    """A receipt claimed for printing (its PrintStarted recorded): what to send the printer."""

    number: int
    receipt: Receipt
    name: str
    kick_drawer: bool
    last_error: str | None


def claim_next_job(st: Station, after: int = 0) -> PrintJob | None:
    """The oldest receipt of this station not yet printed (numbered above `after`), its
    PrintStarted recorded first: a job started before (the process died, or the printer failed
    mid-job) may have printed, so it prints again only marked REPRINT."""
    queued = [number for number in pending(st) if number > after]
    if not queued:
        return None
    number = queued[0]
    row = _row(st, st.id, number)
    reprint = int(row["started"]) > 0
    with st.ledger.transaction():
        st.append("PrintStarted", {"receipt": number, "reprint": reprint})
    return PrintJob(
        number=number,
        receipt=receipt(st, st.id, number, reprint=reprint),
        name=f"{st.id}-{number:06d}",
        # A cash sale at the booth opens the drawer, in the same job as its receipt.
        kick_drawer=row["type"] in CASH_SALES and st.config.role == "booth",
        last_error=row["last_error"],
    )


def record_print_outcome(st: Station, job: PrintJob, error: str | None) -> None:
    """ReceiptPrinted, or PrintFailed once per receipt and distinct error (the job stays
    queued)."""
    if error is None:
        with st.ledger.transaction():
            st.append("ReceiptPrinted", {"receipt": job.number, "reprint": False})
    elif job.last_error != error:
        with st.ledger.transaction():
            st.append("PrintFailed", {"receipt": job.number, "error": error})


def send_job(printer: ReceiptPrinter, job: PrintJob) -> str | None:
    """The printer's fault, or None once the job is out. No station needed: the printer's I/O
    may run on its own thread while the station takes the next command."""
    try:
        printer.print_receipt(job.receipt, name=job.name, kick_drawer=job.kick_drawer)
    except PrinterFault as fault:
        return str(fault)
    return None


def print_pending(st: Station, printer: ReceiptPrinter | None) -> dict[str, Any]:
    """Print every receipt of this station not yet printed, in order. A printer fault leaves the
    job queued (recorded once per receipt) and stops; the station goes on working."""
    done: list[int] = []
    if printer is None:
        return {"printed": done, "queued": pending(st), "error": "no printer configured"}
    last = 0
    while (job := claim_next_job(st, after=last)) is not None:
        last = job.number
        error = send_job(printer, job)
        record_print_outcome(st, job, error)
        if error is not None:
            return {"printed": done, "queued": pending(st), "error": error}
        done.append(job.number)
    return {"printed": done, "queued": pending(st), "error": None}


def reprint(
    st: Station, number: int, printer: ReceiptPrinter | None, *, operator: str | None
) -> dict[str, Any]:
    by = st.operator(operator)
    row = _row(st, st.id, number)
    if printer is None:
        raise BadInput("printer", "no printer configured: booth printer set ...")
    with st.ledger.transaction():
        st.append("PrintStarted", {"receipt": number, "reprint": True, "by": by.badge})
    printer.print_receipt(
        receipt(st, st.id, number, reprint=True),
        name=f"{st.id}-{number:06d}-reprint-{int(row['reprints']) + 1}",
    )
    with st.ledger.transaction():
        st.append("ReceiptPrinted", {"receipt": number, "reprint": True, "by": by.badge})
    return {"receipt": number, "reprint": True}


def show(st: Station, station: str, number: int) -> Receipt:
    return receipt(st, station, number)


def receipt_json(r: Receipt) -> dict[str, Any]:
    return {
        "kind": r.kind,
        "station": r.station,
        "number": r.number,
        "issued_at": r.issued_at.isoformat(timespec="seconds"),
        "operator": r.operator,
        "total": format_amount(r.total) if r.total is not None else None,
        "headline": r.headline,
        "training": r.training,
        "reprint": r.reprint,
        "qr": r.qr,
        "typed_code": r.typed_code,
        "text": r.text_lines(48),
        "stub": list(r.stub),
    }


def parse_number(text: str) -> int:
    with checked_input("receipt"):
        if not text.isdigit() or not 0 < int(text) < 10**9:
            raise ValueError(f"{text!r} is not a receipt number")
    return int(text)
