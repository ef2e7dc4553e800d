"""booth report ..., booth export, booth drawer count."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import click

from pos.cli.books_text import books_day_text
from pos.cli.common import emit, json_option, reads, state
from pos.cli.file_params import OutputPath
from pos.cli.progress import progress_bar
from pos.services import export as export_service
from pos.services import read_access, reports


def _day_text(r: dict[str, Any]) -> str:
    """The day report for the terminal; a part withheld from the reader (read_access) is left
    out and named at the end."""
    lines = [
        ("TRAINING - " if r["training"] else "") + f"{r['organisation']}: day {r['date']} "
        f"(sessions {', '.join(r['sessions']) or 'none'})",
    ]
    if "gross" in r:
        lines += [
            f"  gross ${r['gross']}  prizes ${r['prizes_paid']}  net ${r['net']}",
            f"  rentals {r['rentals']['count']} (${r['rentals']['gross']}); voids "
            f"{r['voids']['count']} (${r['voids']['amount']})"
            + (
                f"; blocked purchases {len(r['blocked_purchases'])}"
                if "blocked_purchases" in r
                else ""
            ),
        ]
    for d in r.get("deals", []):
        lines.append(
            f"  {d['serial']:<10} {d['game']:<9} sold {d['tickets_sold']:>5} gross "
            f"${d['gross']:>9} prizes ${d['prizes_paid']:>9} net ${d['net']:>9}"
        )
    for f in r.get("raffles", []):
        lines.append(
            f"  raffle {f['raffle']:<10} sold {f['tickets_sold'] - f['tickets_voided']:>5} gross "
            f"${f['gross']:>9} prizes ${f['prizes']:>9} net ${f['net']:>9}"
        )
    for b in r.get("bingo", {}).get("lines", []):  # issue #18: the bingo session
        if b["gross"] != "0.00" or b["prizes_paid"] != "0.00":
            lines.append(
                f"  {b['line']:<31} gross ${b['gross']:>9} prizes ${b['prizes_paid']:>9} "
                f"net ${b['net']:>9}"
            )
    if "gross" not in r:  # a seller's view: their own station's sales
        for s in r.get("stations", []):
            lines.append(
                f"  station {s['station']}: {s['sales']} sales, gross ${s['gross']}, prizes "
                f"${s['prizes_paid']}"
            )
    for c in r.get("cash", []):
        expected = "(shown once counted)" if c["expected"] is None else f"${c['expected']:>9}"
        lines.append(
            f"  drawer {c['station']:<10} expected {expected} counted "
            f"{('$' + c['counted']) if c['counted'] else '-':>10} over/short "
            f"{c['over_short'] or '-'}"
        )
    for w in r.get("warnings", []):
        lines.append(f"  ! WARNING: {w['message']}")
    for s in r.get("stations", []):
        if not s["closed"]:
            lines.append(
                f"  station {s['station']} has not closed"
                + (
                    f" (closed without it: {s['missing_at_close'][0]})"
                    if s["missing_at_close"]
                    else ""
                )
            )
    lines += books_day_text(r)
    for e in r.get("exceptions", []):
        lines.append(f"  ! {e['kind']}: {e['detail']}")
    if r.get("unpunched"):
        lines.append(f"Winners paid, punch not confirmed (C2): {len(r['unpunched'])}")
    for u in r.get("unpunched", []):
        lines.append(f"  ! {u['ticket']} ${u['amount']} paid by {u['paid_by']} ({u['payment']})")
    for note in r.get("rule_records", []):
        lines.append(f"  note: {note}")
    if r.get("withheld"):
        lines.append(f"  not shown to this badge: {', '.join(r['withheld'])}")
    return "\n".join(lines)


@click.group()
def report() -> None:
    """Reports: the day, the reconciliation form, a deal's life, retention."""


@report.command("day")
@click.option("--date", "day", help="Game date (default: today in the hall's time zone).")
@click.option("--session", help="One session instead of the whole day.")
@click.option(
    "--csv",
    "csv_dir",
    type=OutputPath(file_okay=False, path_type=Path),
    help="Also write CSV files here.",
)
@click.option(
    "--pdf",
    "pdf_file",
    type=OutputPath(dir_okay=False, path_type=Path),
    help="Also write the report, with its chart, as PDF.",
)
@json_option
@click.pass_context
@reads
def report_day(
    ctx: click.Context,
    day: str | None,
    session: str | None,
    csv_dir: Path | None,
    pdf_file: Path | None,
) -> None:
    """The day's totals per deal, product, station and operator, and its exceptions."""
    cli = state(ctx)
    with cli.open_station() as st:
        result = read_access.day_report(st, cli.read_by, day, session)
        document = (
            read_access.day_document(st, cli.read_by, day, session) if csv_dir or pdf_file else None
        )
    if csv_dir and document:
        reports.write_csv(document, csv_dir)
    if pdf_file and document:
        from pos.services.report_pdf import write_day_pdf

        write_day_pdf(document, pdf_file)
    emit(ctx, result, lambda: _day_text(result))


@report.command("form")
@click.option("--date", "day")
@click.option("--session")
@click.option("--pdf", "pdf_file", type=OutputPath(dir_okay=False, path_type=Path), required=True)
@json_option
@click.pass_context
@reads
def report_form(ctx: click.Context, day: str | None, session: str | None, pdf_file: Path) -> None:
    """The reconciliation form for the game manager to sign (48 hours; deposit dates)."""
    from pos.services.report_pdf import write_form_pdf

    cli = state(ctx)
    with cli.open_station() as st:
        result = read_access.day_document(st, cli.read_by, day, session)
    write_form_pdf(result, pdf_file)
    sign_by, deposit_by = reports.deadlines(date.fromisoformat(result["date"]))
    if result.get("deposit_by"):  # by the hall's rulebook (its holiday calendar)
        deposit_by = date.fromisoformat(result["deposit_by"])
    emit(
        ctx,
        {
            "pdf": str(pdf_file),
            "sign_by": sign_by.isoformat(),
            "deposit_by": deposit_by.isoformat(),
        },
        f"Form written to {pdf_file}: sign by {sign_by}, deposit by {deposit_by}.",
    )


@report.command("deal")
@click.argument("serial")
@json_option
@click.pass_context
@reads
def report_deal(ctx: click.Context, serial: str) -> None:
    """A deal's whole life: flare, sessions, redemptions, voids."""
    with state(ctx).open_station() as st:
        result = export_service.deal_history(st, serial)
    emit(
        ctx,
        result,
        lambda: "\n".join(
            [
                f"{result['serial']} {result['name']}: {result['state']}, sold "
                f"{result['tickets_sold']} of {result['tickets']}, net ${result['net']}"
            ]
            + [
                f"  session {s['session']}: {s['qty']} sold, ${s['gross']}"
                for s in result["sessions"]
            ]
            + [f"  paid {r['ticket']} ${r['amount']} by {r['by']}" for r in result["redemptions"]]
            + [f"  void {v['kind']} {v['reason']}" for v in result["voids"]]
        ),
    )


@report.command("retention")
@json_option
@click.pass_context
@reads
def report_retention(ctx: click.Context) -> None:
    """Closed deals: unsold counts and keep-until dates (C4; 3 years after the fiscal year)."""
    with state(ctx).open_station() as st:
        rows = export_service.retention(st)
    emit(
        ctx,
        rows,
        lambda: (
            "\n".join(
                f"{r['serial']:<12} {r['name']:<24} unsold {r['unsold']:>5}  keep until "
                f"{r['keep_until']}"
                for r in rows
            )
            or "No closed deals."
        ),
    )


@click.command()
@click.option(
    "--inspector",
    "directory",
    type=OutputPath(file_okay=False, path_type=Path),
    required=True,
    help="An empty directory for the export.",
)
@json_option
@click.pass_context
@reads
def export(ctx: click.Context, directory: Path) -> None:
    """Export everything for an inspector: events, keys, tables, how to verify."""
    cli = state(ctx)
    with cli.open_station() as st, progress_bar(ctx, "Exporting") as progress:
        result = export_service.export_inspector(
            st, directory, operator=cli.read_by.badge, progress=progress
        )
    emit(
        ctx,
        result,
        f"Exported {result['events']} events and {result['tables']} tables to "
        f"{result['directory']} (verified: {'yes' if result['verified'] else 'NO'}).",
    )


@click.group()
def drawer() -> None:
    """Cash drawers."""
