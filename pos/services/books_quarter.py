"""The state's figures for a quarter (Virginia Form 102) or a year (Form 101), from the ledger.

The figures are computed once, as keys (`receipts.instant`, `prizes.bingo`, `expenses.rent`,
`cash.end`, `fee.amount`...); a template file (pos/templates/*.json) lays them out in the order
of a state's form, with its line numbers and words, and may add lines that sum others. Another
state's form is another template. Every figure carries the events behind it (the CSV lists
them). What only a person knows (the bank balance, an expense not entered yet, receipts not
deposited) is listed as a gap, never guessed: such a line has no amount.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import date, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from pos.domain import books
from pos.domain.money import dollars, format_amount
from pos.domain.rulebook import RULES
from pos.errors import BadInput
from pos.ledger.projections import bingo_games as games_read
from pos.ledger.projections import bingo_paper as paper_read
from pos.ledger.projections import books as books_read
from pos.ledger.projections import raffle as raffle_read
from pos.services import bingo_report, books_cash, books_deposits
from pos.services.current_session import hall_date
from pos.services.inputs import read_input_text
from pos.services.outputs import replacing
from pos.services.settings import rulebook_settings
from pos.services.station import Station

TEMPLATES = {"quarter": "va_form102.json", "annual": "va_form101.json"}
TEMPLATE_LIMIT = 1_000_000  # a form's layout is a few KB


def load_template(report: str, path: Path | None = None) -> dict[str, Any]:
    """A form's layout: the built-in Virginia form, or a file given for another state."""
    if path is not None:
        text = read_input_text(path, "template", limit=TEMPLATE_LIMIT)
    else:
        text = (resources.files("pos") / "templates" / TEMPLATES[report]).read_text()
    try:
        template: dict[str, Any] = json.loads(text)
    except ValueError as error:
        raise BadInput("template", f"{path}: {error}") from None
    if not isinstance(template, dict):
        raise BadInput("template", f"{path}: not a JSON object")
    if not isinstance(template.get("sections"), list):
        raise BadInput("template", f"{path or TEMPLATES[report]}: no sections")
    return template


def period_of(report: str, year: int, q: int | None) -> books.Period:
    if not 2000 <= year <= 2200:
        raise BadInput("year", f"{year} is not a year this hall could report")
    if report == "annual":
        return books.annual(year)
    if q not in (1, 2, 3, 4):
        raise BadInput("quarter", f"{q} is not 1, 2, 3 or 4")
    return books.quarter(year, q)


def _src(event: str, kind: str, cents: int, detail: str) -> dict[str, Any]:
    return {"event": event, "kind": kind, "amount": cents, "detail": detail}


def _bingo_and_raffles(
    st: Station,
    period: books.Period,
    sessions: list[str],
    add: Callable[[str, int, dict[str, Any] | None], None],
    gaps: list[dict[str, Any]],
) -> None:
    """The bingo session's receipts and prizes (the figures of the day report's bingo lines:
    paper and packs not returned, progressive paper, decision entries and fees, treasure chest
    entries; bingo prizes paid, chests opened with a prize), and the raffles' (tickets sold less
    voided, prizes claimed at their fair market value), each under the game type
    pos.domain.books.PRODUCT_LINES names for its product."""
    conn = st.ledger.conn

    def line(kind: str) -> str:
        return books.game_type(kind) or "bingo"  # every kind here is in PRODUCT_LINES

    progressive = {s.series for s in paper_read.all_series(conn) if s.progressive}
    for sale in paper_read.paper_sales(conn, sessions):
        if sale.returned:
            continue
        what = f"pack {sale.pack}" if sale.pack else f"paper {sale.series}"
        audits = " ".join(f"{i['series']} {i['first']}-{i['last']}" for i in sale.sheets)
        add(
            f"receipts.{line(bingo_report.paper_product(sale, progressive))}",
            sale.amount,
            _src(
                f"{sale.origin}:{sale.seq}",
                "PaperSold",
                sale.amount,
                f"{what} x{sale.qty} ({audits}) {sale.session}",
            ),
        )
    for origin, seq, kind, session, game, count, cents in games_read.decision_events(
        conn, sessions
    ):
        unit = "faces" if kind == "DecisionEntered" else "cards"
        add(
            f"receipts.{line('decision-bingo')}",
            cents,
            _src(f"{origin}:{seq}", kind, cents, f"decision game {game}, {count} {unit} {session}"),
        )
    for origin, seq, session, game, qty, cents in games_read.chest_sale_events(conn, sessions):
        add(
            f"receipts.{line('treasure-chest')}",
            cents,
            _src(f"{origin}:{seq}", "ChestSold", cents, f"chest game {game}, {qty} {session}"),
        )
    for prize in games_read.prizes_paid(conn, sessions):
        kind = bingo_report.prize_product(prize)
        if kind is None:
            continue  # the day report counts it on no line either
        add(
            f"prizes.{line(kind)}",
            prize.amount,
            _src(
                f"{prize.origin}:{prize.seq}",
                "BingoPrizePaid",
                prize.amount,
                f"game {prize.game} {prize.name} ({prize.kind}) {prize.session}",
            ),
        )
    for origin, seq, session, game, cents in games_read.chest_prize_events(conn, sessions):
        add(
            f"prizes.{line('treasure-chest')}",
            cents,
            _src(f"{origin}:{seq}", "ChestOpened", cents, f"chest game {game} {session}"),
        )
    # raffles are counted by the hall's days, as the day report counts them
    low, _ = books_cash.day_bounds(st, period.start)
    _, high = books_cash.day_bounds(st, period.end)
    for origin, seq, kind, raffle, ticket, cents in raffle_read.ticket_events(conn, low, high):
        add(
            f"receipts.{line('raffle')}",
            cents,
            _src(f"{origin}:{seq}", kind, cents, f"raffle {raffle} ticket {ticket}"),
        )
    for origin, seq, raffle, place, description, value, basis in raffle_read.prize_claims(
        conn, low, high
    ):
        add(
            f"prizes.{line('raffle')}",
            value,
            _src(
                f"{origin}:{seq}",
                "RafflePrizeClaimed",
                value,
                f"raffle {raffle} place {place}: {description} (fair market value: {basis})",
            ),
        )
    # the day report counts a raffle prize when it is drawn; the form, once it is handed over
    for raffle, place, description, value, ticket in raffle_read.prizes_unclaimed(conn, low, high):
        gaps.append(
            {
                "line": "prizes.raffle",
                "what": f"raffle {raffle} prize {place} ({description}, "
                f"${format_amount(int(value))}) was drawn for ticket {ticket} but is not "
                f"recorded as claimed: `booth raffle claim {raffle} --place {place}`",
            }
        )


def _figures(
    st: Station, period: books.Period, wanted: set[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """key -> {"amount": cents or None, "sources": [...]}, and the gaps."""
    conn = st.ledger.conn
    held = books_read.sessions_between(conn, period.start.isoformat(), period.end.isoformat())
    sessions = [s for s, _ in held]
    figures: dict[str, dict[str, Any]] = {}

    def add(key: str, cents: int, source: dict[str, Any] | None) -> None:
        line = figures.setdefault(key, {"amount": 0, "sources": []})
        line["amount"] += cents
        if source is not None:
            line["sources"].append(source)

    for game_type, _ in books.GAME_TYPES:
        add(f"receipts.{game_type}", 0, None)
        add(f"prizes.{game_type}", 0, None)
    unmapped: set[str] = set()
    for origin, seq, game, serial, cents, session in books_read.sales_events(conn, sessions):
        gt = books.game_type(game)
        if gt is None:
            unmapped.add(game)
            continue
        add(
            f"receipts.{gt}",
            cents,
            _src(f"{origin}:{seq}", "TicketsSold", cents, f"{serial} {session}"),
        )
    for origin, seq, cents, session in books_read.rental_events(conn, sessions):
        gt = books.game_type("device-rental") or "bingo"
        add(f"receipts.{gt}", cents, _src(f"{origin}:{seq}", "DeviceRented", cents, session))
    for origin, seq, game, serial, cents, session in books_read.prize_events(conn, sessions):
        gt = books.game_type(game)
        if gt is None:
            unmapped.add(game)
            continue
        add(
            f"prizes.{gt}",
            cents,
            _src(f"{origin}:{seq}", "prize paid", cents, f"{serial} {session}"),
        )
    gaps: list[dict[str, Any]] = []
    _bingo_and_raffles(st, period, sessions, add, gaps)
    add("prizes.by_check", 0, None)
    for key in books.EXPENSE_CATEGORIES:
        if key != "prizes-by-check":
            add(f"expenses.{key}", 0, None)
    add("proceeds.use", 0, None)
    paid = books_read.disbursements(conn, period.start.isoformat(), period.end.isoformat())
    for d in paid:
        category = d["category"]
        key = {"prizes-by-check": "prizes.by_check", "use-of-proceeds": "proceeds.use"}.get(
            category, f"expenses.{category}"
        )
        detail = (
            f"check {d['check_number']} to {d['payee']} on {d['paid_on']}, invoice {d['invoice']}"
        )
        add(
            key,
            int(d["amount"]),
            _src(f"{d['origin']}:{d['seq']}", "DisbursementRecorded", int(d["amount"]), detail),
        )
    for key, on in (("cash.end", period.end), ("cash.start", period.start - timedelta(days=1))):
        if key not in wanted:
            continue
        found = books_read.bank_balance(conn, on.isoformat())
        if found is None:
            figures[key] = {"amount": None, "sources": []}
            what = (
                f"the charitable gaming account's balance on {on.isoformat()} (from the bank "
                f"statement): `booth bank balance --on {on.isoformat()} --amount ...`"
            )
            gaps.append({"line": key, "what": what})
        else:
            cents, by, origin, seq = found
            figures[key] = {
                "amount": int(cents),
                "sources": [_src(f"{origin}:{seq}", "BankBalanceRecorded", int(cents), f"by {by}")],
            }
    # what only a person can fill: deals taken in by the period's end whose invoice has no
    # check recorded yet (their cost is known only from the invoice)
    _, high = books_cash.day_bounds(st, period.end)
    entered = books_read.invoices_paid(conn)
    for serial, name, invoice, supplier in books_read.deals_received_between(conn, "", high):
        if invoice and invoice.strip().upper() in entered:
            continue
        what = (
            f"deal {serial} ({name}) was taken in on invoice {invoice or '(none)'} from "
            f"{supplier or '(supplier?)'}; its cost is not entered as a disbursement"
        )
        gaps.append({"line": "expenses.supplies", "what": what})
    today = hall_date(st, st.clock.now())
    for r in books_deposits.reminders(st, today):
        if period.start.isoformat() <= r["game_date"] <= period.end.isoformat():
            gaps.append(
                {
                    "line": "cash.end",
                    "what": f"session {r['session']}'s receipts (${r['amount']}) "
                    f"are not recorded as deposited (due {r['due']})",
                }
            )
    for game in sorted(unmapped):
        gaps.append(
            {
                "line": "receipts",
                "what": f"sales of kind {game!r} have no form line "
                "(pos.domain.books.PRODUCT_LINES)",
            }
        )
    rules = rulebook_settings(st)
    electronic = figures["receipts.electronic"]["amount"]
    gross_other = (
        sum(figures[f"receipts.{gt}"]["amount"] for gt, _ in books.GAME_TYPES) - electronic
    )
    adjusted = max(electronic - figures["prizes.electronic"]["amount"], 0)
    figures["fee.base"] = {"amount": gross_other, "sources": []}
    figures["fee.electronic_adjusted"] = {"amount": adjusted, "sources": []}
    figures["fee.amount"] = {
        "amount": books.audit_fee(
            gross_other,
            adjusted,
            rate_bp=rules.audit_fee_basis_points,
            additional_bp=rules.audit_fee_additional_basis_points,
        ),
        "sources": [],
    }
    figures["_sessions"] = {"amount": len(sessions), "sources": [], "list": sessions}
    return figures, gaps


def _resolve(line: dict[str, Any], values: dict[str, int | None]) -> int | None:
    if "sum" not in line and "less" not in line:
        return values.get(line["key"], 0)
    parts = [values.get(k) for k in line.get("sum", [])]
    minus = [values.get(k) for k in line.get("less", [])]
    if any(v is None for v in parts + minus):
        return None
    return sum(v or 0 for v in parts) - sum(v or 0 for v in minus)


def state_report(
    st: Station, report: str, year: int, q: int | None = None, template_path: Path | None = None
) -> dict[str, Any]:
    """The form's lines, in the template's order, each with its amount (None: a gap only a
    person can fill) and its source events; the due date; the gaps; the fee's rates."""
    period = period_of(report, year, q)
    template = load_template(report, template_path)
    wanted = {
        k
        for section in template["sections"]
        for line in section["lines"]
        for k in (line["key"], *line.get("sum", []), *line.get("less", []))
    }
    figures, gaps = _figures(st, period, wanted)
    values: dict[str, int | None] = {k: v["amount"] for k, v in figures.items()}
    sections = []
    for section in template["sections"]:
        lines = []
        for line in section["lines"]:
            amount = _resolve(line, values)
            values[line["key"]] = amount
            found = figures.get(line["key"], {"sources": []})
            sources = found["sources"] if "sum" not in line and "less" not in line else []
            lines.append(
                {
                    "number": str(line.get("number", "")),
                    "key": line["key"],
                    "label": line["label"],
                    "amount": format_amount(amount) if amount is not None else None,
                    "cents": amount,
                    "sources": sources,
                    "computed": [*line.get("sum", []), *(f"-{k}" for k in line.get("less", []))],
                }
            )
        sections.append({"title": section["title"], "lines": lines})
    rules = rulebook_settings(st)
    return {
        "training": st.hall.training,
        "organisation": st.hall.organisation,
        "location": st.hall.location,
        "form": template.get("form", ""),
        "title": template.get("title", ""),
        "state": template.get("state", ""),
        "report": report,
        "period": period.label,
        "start": period.start.isoformat(),
        "end": period.end.isoformat(),
        "due": period.due.isoformat(),
        "sessions": figures["_sessions"]["list"],
        "sections": sections,
        "gaps": gaps,
        "fee_rates": {
            "basis_points": rules.audit_fee_basis_points,
            "additional_basis_points": rules.audit_fee_additional_basis_points,
            "citation": _citation(rule="FEE"),
        },
    }


def _citation(*, rule: str) -> str:
    """The citation the figures rest on, from the rulebook."""
    return RULES[rule].citation


def lines_of(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for section in result["sections"] for line in section["lines"]]


# -- output --------------------------------------------------------------------------------------

HEADER_ROW = 6  # the xlsx: title rows above, then the lines from the row after this one


def write_xlsx(result: dict[str, Any], path: Path) -> Path:
    """The form's lines in the form's order: column A the line number, B its words, C the amount
    (blank where only a person can fill it, with the reason in D). A second sheet lists the
    gaps, a third each line's source events."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    sheet = book.active
    sheet.title = f"Form {result['form']}"[:31]
    sheet["A1"] = ("TRAINING - NOT REAL FIGURES - " if result["training"] else "") + result["title"]
    sheet["A1"].font = Font(bold=True, size=13)
    sheet["A2"] = f"{result['organisation']}, {result['location']}"
    sheet["A3"] = f"Period {result['period']}: {result['start']} to {result['end']}"
    sheet["A4"] = f"Due {result['due']}"
    sheet.append([])
    row = HEADER_ROW
    for col, text in enumerate(("Line", "Description", "Amount ($)", "Note"), start=1):
        cell = sheet.cell(row=row, column=col, value=text)
        cell.font = Font(bold=True)
    gap_lines = {g["line"] for g in result["gaps"]}
    for section in result["sections"]:
        row += 1
        sheet.cell(row=row, column=2, value=section["title"]).font = Font(bold=True)
        for line in section["lines"]:
            row += 1
            sheet.cell(row=row, column=1, value=line["number"])
            sheet.cell(row=row, column=2, value=line["label"])
            if line["cents"] is None:
                sheet.cell(row=row, column=4, value="GAP: only a person can fill this (see Gaps)")
            else:
                cell = sheet.cell(row=row, column=3, value=line["cents"] / 100)
                cell.number_format = "#,##0.00"
                if line["key"] in gap_lines:
                    sheet.cell(row=row, column=4, value="see Gaps")
    sheet.column_dimensions["A"].width = 6
    sheet.column_dimensions["B"].width = 70
    sheet.column_dimensions["C"].width = 14
    sheet.column_dimensions["D"].width = 40
    gaps = book.create_sheet("Gaps")
    gaps.append(["Line", "What a person must fill in"])
    for g in result["gaps"]:
        gaps.append([g["line"], g["what"]])
    sources = book.create_sheet("Sources")
    sources.append(["Line", "Key", "Event", "Kind", "Amount ($)", "Detail"])
    for line in lines_of(result):
        for s in line["sources"]:
            sources.append(
                [line["number"], line["key"], s["event"], s["kind"], s["amount"] / 100, s["detail"]]
            )
    workbook = io.BytesIO()  # whole in memory first: a zip half-written to a full disk
    book.save(workbook)  # complains again when it is collected
    with replacing(path) as partial:
        partial.write_bytes(workbook.getvalue())
    return path


def write_csv(result: dict[str, Any], path: Path) -> Path:
    """One row per source event of each line (a line without events: one row, no event)."""
    with replacing(path) as partial, partial.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["line", "key", "label", "line_amount", "event", "kind", "amount", "detail"]
        )
        for line in lines_of(result):
            amount = line["amount"] if line["amount"] is not None else "GAP"
            if not line["sources"]:
                writer.writerow(
                    [
                        line["number"],
                        line["key"],
                        line["label"],
                        amount,
                        "",
                        "",
                        "",
                        "computed: " + " ".join(line["computed"]) if line["computed"] else "",
                    ]
                )
            for s in line["sources"]:
                writer.writerow(
                    [
                        line["number"],
                        line["key"],
                        line["label"],
                        amount,
                        s["event"],
                        s["kind"],
                        format_amount(s["amount"]),
                        s["detail"],
                    ]
                )
    return path


def write_pdf(result: dict[str, Any], path: Path) -> Path:
    """The summary to sign: the form's lines, the gaps, the fee, a signature line."""
    from xml.sax.saxutils import escape

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    story: list[Any] = []
    if result["training"]:
        story.append(
            Paragraph(
                "<font color='red'><b>TRAINING - NOT REAL FIGURES</b></font>", styles["Title"]
            )
        )
    story.append(Paragraph(escape(result["title"]), styles["Title"]))
    story.append(
        Paragraph(
            f"{escape(result['organisation'])}, {escape(result['location'])}<br/>"
            f"Period {result['period']} ({result['start']} to {result['end']}), "
            f"{len(result['sessions'])} sessions. Due {result['due']}.",
            styles["Normal"],
        )
    )
    story.append(Spacer(1, 8))
    rows: list[list[str]] = [["Line", "Description", "Amount"]]
    bold: list[int] = []
    for section in result["sections"]:
        bold.append(len(rows))
        rows.append(["", section["title"], ""])
        for line in section["lines"]:
            shown = dollars(line["amount"]) if line["amount"] is not None else "GAP - to fill"
            rows.append([line["number"], line["label"][:80], shown])
    style = [
        ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6f2")),
        ("FONTSIZE", (0, 0), (-1, -1), 8),
        ("ALIGN", (2, 1), (2, -1), "RIGHT"),
    ]
    for index in bold:
        style += [
            ("FONTNAME", (0, index), (-1, index), "Helvetica-Bold"),
            ("BACKGROUND", (0, index), (-1, index), colors.HexColor("#f0f0f0")),
        ]
    story.append(Table(rows, colWidths=[36, 380, 90], style=TableStyle(style), repeatRows=1))
    story.append(Spacer(1, 8))
    rates = result["fee_rates"]
    story.append(
        Paragraph(
            f"Audit and administration fee: {rates['basis_points'] / 100:.2f}% plus "
            f"{rates['additional_basis_points'] / 100:.2f}% ({escape(rates['citation'])}).",
            styles["Normal"],
        )
    )
    if result["gaps"]:
        story.append(Paragraph("Gaps only a person can fill (not guessed)", styles["Heading3"]))
        for g in result["gaps"]:
            story.append(Paragraph(f"&bull; {escape(g['what'])}", styles["Normal"]))
    story.append(Spacer(1, 24))
    story.append(
        Paragraph(
            "Signed: ______________________________ &nbsp; Title: ________________ &nbsp; "
            "Date: ____________",
            styles["Normal"],
        )
    )
    with replacing(path) as partial:
        SimpleDocTemplate(str(partial), pagesize=letter, title=result["title"]).build(story)
    return path


def due_next(st: Station, today: date | None = None) -> list[dict[str, str]]:
    """The state's reports due next (the manager screen and the day report say so)."""
    when = today or hall_date(st, st.clock.now())
    return [
        {
            "report": p.report,
            "form": "101" if p.report == "annual" else "102",
            "period": p.label,
            "due": p.due.isoformat(),
            "days_left": str((p.due - when).days),
        }
        for p in books.due_next(when)
    ]


def final_report(
    st: Station, year: int, q: int, template_path: Path | None = None, *, operator: str | None
) -> dict[str, Any]:
    """The manager produces the quarter's report to sign and file: its figures, recorded as
    produced (QuarterReported), so that a session opened later into the quarter says so
    (GAMEDATE) and is an exception."""
    by = st.operator(operator, "manager")
    result = state_report(st, "quarter", year, q, template_path)
    with st.ledger.transaction():
        st.append("QuarterReported", {"quarter": result["period"], "by": by.badge})
    return result | {"reported_by": by.badge}
