"""The bingo session on paper (issue #18): the game program for the wall (PDF, reportlab) and its
short form for the receipt printer, the progressive posting (I3), the decision bingo
announcement (G5), and the bingo part of the reconciliation form. Layout only: every figure
comes from pos.services.bingo_program, bingo_games and bingo_report.

What it offers:

- `program_pdf(st, view, path)`                  the program for the wall: games, prizes, the
                                                 decision amounts (G5), progressive prize, calls
                                                 and paper price (I3, I4), products, house rules
- `program_receipt(st, view)` -> Receipt         the short form for the receipt printer
- `posting_pdf(st, views, path)`                 the progressive posting (I3)
- `announcement_receipt(st, view)` -> Receipt    a decision game's prize, before it is paid (G5)
- `form_flowables(report)`                       the bingo lines and paper audit numbers for the
                                                 reconciliation form (report_pdf calls it)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape
from zoneinfo import ZoneInfo

from pos.domain.money import amount_cents
from pos.domain.receipt import Line, Receipt
from pos.services.bingo_games import DecisionView, ProgressiveView
from pos.services.bingo_program import ProgramView
from pos.services.outputs import replacing
from pos.services.station import Station


def _now(st: Station) -> Any:
    return st.clock.now().astimezone(ZoneInfo(st.hall.time_zone))


def _game_detail(g: Any) -> str:
    parts = []
    if g.pattern:
        parts.append(g.pattern)
    if g.paper:
        parts.append(f"paper {g.paper}")
    if g.kind == "decision":
        parts.append(f"${g.entry} per card face; ${g.fee} per card for each 3 numbers called")
    if g.kind == "progressive":
        parts.append(f"sheet ${g.price}; now ${g.pool} in {g.calls} numbers")
    if g.kind == "treasure-chest" and g.price:
        parts.append(f"entry ${g.price}")
    return "; ".join(parts)


def program_pdf(st: Station, view: ProgramView, path: Path) -> Path:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    cell = styles["BodyText"]
    story: list[Any] = []
    if st.hall.training:
        story.append(Paragraph("<font color='red'><b>TRAINING</b></font>", styles["Title"]))
    story.append(Paragraph(f"{escape(view.name)}: game program", styles["Title"]))
    story.append(
        Paragraph(
            f"{escape(st.hall.organisation)}, {escape(st.hall.location)}; version "
            f"{view.version}, printed {_now(st):%Y-%m-%d %H:%M}",
            styles["Normal"],
        )
    )
    story.append(Spacer(1, 10))
    rows: list[list[Any]] = [["#", "Game", "Prize", "Pattern, paper, price"]]
    for g in view.games:
        rows.append(
            [
                str(g.number),
                Paragraph(f"<b>{escape(g.title)}</b> ({escape(g.kind)})", cell),
                Paragraph(escape(g.prize), cell),
                Paragraph(escape(_game_detail(g)), cell),
            ]
        )
    story.append(
        Table(
            rows,
            colWidths=[24, 150, 150, 200],
            repeatRows=1,
            style=TableStyle(
                [
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6f2")),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ]
            ),
        )
    )
    if view.products:
        story.append(Spacer(1, 10))
        story.append(Paragraph("On sale", styles["Heading3"]))
        for p in view.products:
            price = f" ${p.price}" if p.price else ""
            story.append(Paragraph(f"{escape(p.name)}{price}: {escape(p.detail or p.kind)}", cell))
    rules = [(g.title, g.house_rules) for g in view.games if g.house_rules]
    if view.house_rules or rules:
        story.append(Spacer(1, 10))
        story.append(Paragraph("House rules", styles["Heading3"]))
        for paragraph in view.house_rules.split("\n\n") if view.house_rules else []:
            story.append(Paragraph(escape(paragraph).replace("\n", "<br/>"), cell))
        for title, text in rules:
            story.append(Paragraph(f"<b>{escape(title)}</b>: {escape(text)}", cell))
    with replacing(path) as partial:
        SimpleDocTemplate(str(partial), pagesize=letter, title=f"Program {view.name}").build(story)
    return path


def program_receipt(st: Station, view: ProgramView) -> Receipt:
    """The program's short form for the receipt printer."""
    lines = []
    for g in view.games:
        lines.append(Line(f"{g.number}. {g.title}: {g.prize}"))
        detail = _game_detail(g)
        if detail:
            lines.append(Line(f"   {detail}"))
    notes = [f"On sale: {p.name}" + (f" ${p.price}" if p.price else "") for p in view.products]
    return Receipt(
        kind="program",
        organisation=st.hall.organisation,
        location=st.hall.location,
        station=st.id,
        number=view.version,
        issued_at=_now(st),
        operator=None,
        lines=tuple(lines),
        headline=f"PROGRAM {view.name} v{view.version}",
        notes=tuple(notes),
        training=st.hall.training,
    )


def announcement_receipt(st: Station, view: DecisionView) -> Receipt:
    """G5: the decision game's prize, announced before it is paid."""
    return Receipt(
        kind="program",
        organisation=st.hall.organisation,
        location=st.hall.location,
        station=st.id,
        number=view.game,
        issued_at=_now(st),
        operator=None,
        lines=(
            Line(f"Entries: {view.faces} faces", amount=amount_cents(view.entries)),
            Line(f"Fees: {view.rounds} rounds", amount=amount_cents(view.fees)),
            Line("Retained by the organisation (G4)", amount=amount_cents(view.retained)),
        ),
        total=amount_cents(view.prize),
        total_label="PRIZE",
        headline=f"DECISION BINGO, GAME {view.game}",
        notes=(view.announcement,),
        training=st.hall.training,
    )


def posting_pdf(st: Station, views: list[ProgressiveView], path: Path) -> Path:
    """I3: each progressive game, its prize and the number of bingo numbers to be called."""
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

    styles = getSampleStyleSheet()
    story: list[Any] = []
    if st.hall.training:
        story.append(Paragraph("<font color='red'><b>TRAINING</b></font>", styles["Title"]))
    story.append(Paragraph("Progressive bingo", styles["Title"]))
    story.append(
        Paragraph(
            f"{escape(st.hall.organisation)}, {escape(st.hall.location)}; posted "
            f"{_now(st):%Y-%m-%d %H:%M}",
            styles["Normal"],
        )
    )
    for v in views:
        story.append(Spacer(1, 12))
        story.append(Paragraph(escape(v.name), styles["Heading1"]))
        story.append(
            Paragraph(
                f"<b>Prize ${v.prize}</b> for {escape(v.pattern or 'the pattern')} within "
                f"<b>{v.calls} numbers</b>. Paper {escape(v.paper)}"
                + (f" at ${v.price} a sheet" if v.price else "")
                + ", sold separately from admission packs. Not won within the numbers: one more "
                "number next session, and the game continues as a regular game.",
                styles["Normal"],
            )
        )
    with replacing(path) as partial:
        SimpleDocTemplate(str(partial), pagesize=letter, title="Progressive bingo").build(story)
    return path


def form_flowables(report: dict[str, Any]) -> list[Any]:
    """The bingo session's lines (gross, prizes, net), the decision excess retained and the
    paper reconciled by audit number, for the reconciliation form."""
    bingo = report.get("bingo")
    if not bingo:
        return []
    from reportlab.lib import colors
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    cell = styles["BodyText"]
    cell.fontSize = 7
    cell.leading = 8
    grid = TableStyle(
        [
            ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
            ("FONTSIZE", (0, 0), (-1, -1), 8),
            ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6f2")),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ]
    )
    out: list[Any] = [Spacer(1, 10), Paragraph("Bingo session", styles["Heading3"])]
    rows: list[list[Any]] = [["Line", "Sold", "Gross", "Prizes paid", "Net", "Audit numbers"]]
    for line in bingo["lines"]:
        label = line["line"]
        if line["line"] == "treasure chest":
            label = "treasure chest / raffle sales (H4)"
        if line.get("devices"):
            label += f" (with {line['devices']} device rentals, ${line['devices_gross']})"
        rows.append(
            [
                label,
                str(line["tickets_sold"]),
                line["gross"],
                line["prizes_paid"],
                line["net"],
                Paragraph(escape(", ".join(line.get("audit_numbers", [])) or "-"), cell),
            ]
        )
    rows.append(["Bingo totals", "", bingo["gross"], bingo["prizes_paid"], bingo["net"], ""])
    out.append(Table(rows, colWidths=[150, 40, 60, 60, 60, 150], style=grid))
    retained = next((x["retained"] for x in bingo["lines"] if "retained" in x), "0.00")
    out.append(
        Paragraph(
            f"Decision bingo: excess above the prize limit retained by the organisation "
            f"(G4): ${retained}.",
            styles["Normal"],
        )
    )
    # Every movement of paper is a column of the sum the form prints (issue #28).
    columns = ("opening", "received", "sold", "returned", "voided", "closing")
    paper_rows: list[list[Any]] = [
        [
            "Session",
            "Series",
            "Opening",
            "+ Received",
            "- Sold",
            "+ Returned",
            "- Voided",
            "= Closing",
        ]
    ]
    for session, series_lines in bingo["paper"].items():
        for r in series_lines:
            c = r["counts"]
            paper_rows.append(
                [
                    session,
                    r["series"],
                    *(
                        Paragraph(f"{c[name]}: {escape(', '.join(r[name]) or '-')}", cell)
                        for name in columns
                    ),
                ]
            )
    if len(paper_rows) > 1:
        out.append(Spacer(1, 6))
        out.append(Paragraph("Bingo paper by audit number", styles["Heading4"]))
        out.append(
            Paragraph(
                "Closing = opening + received - sold + returned - voided: each sheet counted "
                "once per movement.",
                cell,
            )
        )
        out.append(Table(paper_rows, colWidths=[55, 35, 75, 65, 75, 60, 60, 75], style=grid))
    return out
