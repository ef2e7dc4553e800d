"""Raffles on the day report and the reconciliation form: a line per raffle and one `raffles`
product line, each with gross (tickets sold less voided, at their price), prizes (the fair market
value of the prizes drawn that day, F2) and net. Hooked into pos/services/reports.py."""

from __future__ import annotations

from typing import Any

from pos.domain.money import format_amount, parse_amount
from pos.ledger.projections import raffle as raffle_read
from pos.services.station import Station

PRODUCT_LINE = "raffles"


def day_lines(st: Station, low: str, high: str) -> list[dict[str, Any]]:
    """Each raffle with tickets sold or voided or prizes drawn in [low, high)."""
    out = []
    for row in raffle_read.day_lines(st.ledger.conn, low, high):
        gross = int(row["sold_amount"]) - int(row["voided_amount"])
        prizes = int(row["prizes_value"])
        out.append(
            {
                "raffle": row["raffle"],
                "name": row["name"],
                "drawing_date": row["drawing_date"],
                "price": format_amount(int(row["price"])),
                "tickets_sold": int(row["sold"]),
                "tickets_voided": int(row["voided"]),
                "prizes_drawn": int(row["prizes_drawn"]),
                "gross": format_amount(gross),
                "prizes": format_amount(prizes),
                "net": format_amount(gross - prizes),
            }
        )
    return out


def _signed(text: str) -> int:
    """Cents of a line's amount: a day's gross is negative when it only voided tickets sold on
    an earlier day."""
    if text.startswith("-"):
        return -parse_amount(text[1:], allow_zero=True)
    return parse_amount(text, allow_zero=True)


def product_line(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The `raffles` line of the day report's `products`, in the shape of the others."""
    gross = sum(_signed(line["gross"]) for line in lines)
    prizes = sum(_signed(line["prizes"]) for line in lines)
    return {
        "line": PRODUCT_LINE,
        "tickets_sold": sum(line["tickets_sold"] - line["tickets_voided"] for line in lines),
        "gross": format_amount(gross),
        "prizes_paid": format_amount(prizes),
        "net": format_amount(gross - prizes),
    }


def add_to_day_report(st: Station, report: dict[str, Any], low: str, high: str) -> None:
    """The raffles of the day, each on its own line, and their product line."""
    lines = day_lines(st, low, high)
    report["raffles"] = lines
    report["products"].append(product_line(lines))


def station_takings(st: Station, station: str, low: str, high: str) -> int:
    """Cents a drawer took in for raffle tickets that day (voided tickets handed back)."""
    return raffle_read.station_takings(st.ledger.conn, station, low, high)


def form_rows(report: dict[str, Any]) -> list[list[str]]:
    """The reconciliation form's rows: one per raffle, gross, prizes (fair market value) and
    net in the form's columns (Serial, Form, Price, Sold, Gross, Prizes paid, Net)."""
    return [
        [
            f"Raffle {line['raffle']}",
            line["name"][:18],
            line["price"],
            str(line["tickets_sold"] - line["tickets_voided"]),
            line["gross"],
            line["prizes"],
            line["net"],
        ]
        for line in report.get("raffles", [])
    ]
