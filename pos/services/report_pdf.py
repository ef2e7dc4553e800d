"""The day report and the reconciliation form as PDF (reportlab), with a chart of sales per
hour and product. Layout only: every figure comes from `reports.day_report`."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from pos.domain.money import amount_cents, dollars
from pos.services.bingo_print import form_flowables
from pos.services.outputs import replacing
from pos.services.raffle_report import form_rows as raffle_form_rows
from pos.services.reports import deadlines


def _chart(report: dict[str, Any]) -> Any:
    from reportlab.graphics.charts.barcharts import VerticalBarChart
    from reportlab.graphics.charts.legends import Legend
    from reportlab.graphics.shapes import Drawing, String
    from reportlab.lib import colors

    series = ["pull-tab", "seal-card", "event", "rentals"]
    palette = [
        colors.HexColor("#1f5fa8"),
        colors.HexColor("#e08a00"),
        colors.HexColor("#2e8b57"),
        colors.HexColor("#8a2be2"),
    ]
    hours = report["hourly"] or [{"hour": 0}]
    drawing = Drawing(480, 200)
    chart = VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = 40, 30, 330, 150
    chart.data = [[amount_cents(h.get(name, "0.00")) / 100 for h in hours] for name in series]
    chart.categoryAxis.categoryNames = [f"{h['hour']:02d}:00" for h in hours]
    chart.categoryAxis.style = "stacked"
    chart.valueAxis.valueMin = 0
    chart.valueAxis.labelTextFormat = "$%d"
    for index, colour in enumerate(palette):
        chart.bars[index].fillColor = colour
    drawing.add(chart)
    legend = Legend()
    legend.x, legend.y = 385, 160
    legend.alignment = "right"  # the swatch first, then its name
    legend.columnMaximum = 4
    legend.colorNamePairs = list(
        zip(palette, ["pull-tabs", "seal cards", "event games", "rentals"], strict=True)
    )
    drawing.add(legend)
    drawing.add(String(40, 188, "Sales per hour (hall time), by product", fontSize=10))
    return drawing


def write_day_pdf(report: dict[str, Any], path: Path) -> Path:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    story: list[Any] = []
    if report["training"]:
        story.append(
            Paragraph(
                "<font color='red'><b>TRAINING - NOT REAL FIGURES</b></font>", styles["Title"]
            )
        )
    story.append(
        Paragraph(f"{escape(report['organisation'])}: day report {report['date']}", styles["Title"])
    )
    story.append(
        Paragraph(
            f"{escape(report['location'])}; sessions {', '.join(report['sessions']) or 'none'}",
            styles["Normal"],
        )
    )
    story.append(Spacer(1, 8))
    summary = [
        ["Gross", "Prizes paid", "Net", "Rentals", "Voids", "Blocked"],
        [
            dollars(report["gross"]),
            dollars(report["prizes_paid"]),
            dollars(report["net"]),
            f"{report['rentals']['count']} / {dollars(report['rentals']['gross'])}",
            f"{report['voids']['count']} / {dollars(report['voids']['amount'])}",
            str(len(report["blocked_purchases"])),
        ],
    ]
    grid = TableStyle(
        [
            ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
            ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6f2")),
            ("FONTSIZE", (0, 0), (-1, -1), 8),
        ]
    )
    story.append(Table(summary, style=grid))
    story.append(Spacer(1, 10))
    story.append(_chart(report))
    story.append(Spacer(1, 10))
    rows = [
        ["Serial", "Game", "Name", "Sold", "Gross", "Prizes", "Net", "Ideal gross", "Ideal net"]
    ]
    rows += [
        [
            d["serial"],
            d["game"],
            d["name"][:18],
            str(d["tickets_sold"]),
            d["gross"],
            d["prizes_paid"],
            d["net"],
            d["ideal_gross"],
            d["ideal_net"],
        ]
        for d in report["deals"]
    ]
    story.append(Table(rows, style=grid, repeatRows=1))
    story += form_flowables(report)  # issue #18: the bingo session's lines
    if report.get("raffles"):  # issue #18: each raffle's line
        story.append(Spacer(1, 10))
        header = ["Raffle", "Name", "Price", "Sold", "Gross", "Prizes", "Net"]
        story.append(Table([header, *raffle_form_rows(report)], style=grid))
    story.append(Spacer(1, 10))
    cash = [["Drawer", "Expected", "Counted", "Over/short"]] + [
        [c["station"], c["expected"], c["counted"] or "-", c["over_short"] or "-"]
        for c in report["cash"]
    ]
    story.append(Table(cash, style=grid))
    if report.get("counts"):  # two-person counts: verified or not
        story.append(Spacer(1, 6))
        counts = [["Count", "Counted", "By", "Expected", "Variance", "Verified"]] + [
            [c["drawer"], c["counted"], c["counted_by"], c["expected"], c["variance"],
             f"by {c['verified_by']}" if c["status"] == "verified" else "NOT VERIFIED"]
            for c in report["counts"]
        ]  # fmt: skip
        story.append(Table(counts, style=grid))
    for warning in report.get("warnings", []):  # a drawer counted before its events are in
        story.append(Paragraph(f"WARNING: {warning['message']}", styles["Normal"]))
    if report["exceptions"]:
        story.append(Spacer(1, 10))
        story.append(Paragraph("Exceptions", styles["Heading3"]))
        for item in report["exceptions"]:
            story.append(Paragraph(f"{item['kind']}: {item['detail']}", styles["Normal"]))
    if report.get("unpunched"):
        story.append(Spacer(1, 10))
        story.append(Paragraph("Winners paid, punch not confirmed (C2)", styles["Heading3"]))
        for item in report["unpunched"]:
            story.append(
                Paragraph(
                    f"{item['ticket']} ${item['amount']} paid by {item['paid_by']}",
                    styles["Normal"],
                )
            )
    if report.get("rule_records"):
        story.append(Spacer(1, 10))
        story.append(Paragraph("Where each rule's record begins", styles["Heading3"]))
        for note in report["rule_records"]:
            story.append(Paragraph(note, styles["Normal"]))
    with replacing(path) as partial:
        SimpleDocTemplate(str(partial), pagesize=letter, title="Booth day report").build(story)
    return path


def write_form_pdf(report: dict[str, Any], path: Path) -> Path:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    sign_by, deposit_by = deadlines(date.fromisoformat(report["date"]))
    if report.get("deposit_by"):  # by the hall's rulebook (its holiday calendar)
        deposit_by = date.fromisoformat(report["deposit_by"])
    story: list[Any] = []
    if report["training"]:
        story.append(Paragraph("<font color='red'><b>TRAINING</b></font>", styles["Title"]))
    story.append(Paragraph("Instant bingo, pull-tab and seal card reconciliation", styles["Title"]))
    story.append(
        Paragraph(
            f"{escape(report['organisation'])}, {escape(report['location'])}; game date "
            f"{report['date']}; sessions {', '.join(report['sessions'])}",
            styles["Normal"],
        )
    )
    rows = [["Serial", "Form", "Price", "Sold", "Gross", "Prizes paid", "Net"]]
    rows += [
        [
            d["serial"],
            d["form"],
            d["price"],
            str(d["tickets_sold"]),
            d["gross"],
            d["prizes_paid"],
            d["net"],
        ]
        for d in report["deals"]
    ]
    rows.append(
        [
            "Totals",
            "",
            "",
            str(sum(d["tickets_sold"] for d in report["deals"])),
            report["gross"],
            report["prizes_paid"],
            report["net"],
        ]
    )
    rows.append(
        [
            "Device rentals",
            "",
            "",
            str(report["rentals"]["count"]),
            report["rentals"]["gross"],
            "",
            report["rentals"]["gross"],
        ]
    )
    rows += raffle_form_rows(report)
    story.append(Spacer(1, 8))
    story.append(
        Table(
            rows,
            style=TableStyle(
                [
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                    ("FONTSIZE", (0, 0), (-1, -1), 8),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde6f2")),
                ]
            ),
        )
    )
    story += form_flowables(report)  # issue #18: the bingo session's lines
    story.append(Spacer(1, 12))
    story.append(
        Paragraph(
            f"Voids: {report['voids']['count']} totalling "
            f"${report['voids']['amount']}. Blocked purchases: "
            f"{len(report['blocked_purchases'])}.",
            styles["Normal"],
        )
    )
    story.append(
        Paragraph(
            f"<b>Sign within 48 hours of the session: by {sign_by}.</b> "
            f"<b>Deposit the receipts by {deposit_by}</b> (second business "
            "day).",
            styles["Normal"],
        )
    )
    story.append(Spacer(1, 30))
    story.append(
        Paragraph(
            "Game manager: ______________________________ "
            "Signature: ______________________ Date: ____________",
            styles["Normal"],
        )
    )
    with replacing(path) as partial:
        SimpleDocTemplate(str(partial), pagesize=letter, title="Reconciliation form").build(story)
    return path


def write_house_sheet_pdf(sheet: dict[str, Any], path: Path) -> Path:
    """The house-rules sheet to post (rule A): each posted rule with its version and the date it
    was posted, then the switches. Layout only: everything comes from `settings.house_sheet`."""
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

    styles = getSampleStyleSheet()
    story: list[Any] = []
    if sheet["training"]:
        story.append(Paragraph("<font color='red'><b>TRAINING</b></font>", styles["Title"]))
    story.append(Paragraph("House rules", styles["Title"]))
    story.append(
        Paragraph(
            f"{escape(sheet['organisation'])}, {escape(sheet['location'])}; printed "
            f"{sheet['printed_on']}",
            styles["Normal"],
        )
    )
    story.append(Spacer(1, 10))
    if not sheet["rules"]:
        story.append(Paragraph("No house rules have been posted.", styles["Normal"]))
    for rule in sheet["rules"]:
        story.append(
            Paragraph(
                f"{escape(rule['key'])} (version {rule['version']}, posted {rule['posted_on']})",
                styles["Heading3"],
            )
        )
        for paragraph in rule["text"].split("\n\n"):
            story.append(Paragraph(escape(paragraph).replace("\n", "<br/>"), styles["Normal"]))
    story.append(Spacer(1, 10))
    story.append(Paragraph("Practices", styles["Heading3"]))
    for switch in sheet["switches"]:
        state = "yes" if switch["on"] else "no"
        story.append(Paragraph(f"{escape(switch['meaning'])}: <b>{state}</b>", styles["Normal"]))
    with replacing(path) as partial:
        SimpleDocTemplate(
            str(partial),
            pagesize=letter,
            title="House rules",
            author=sheet["organisation"],
        ).build(story)
    return path
