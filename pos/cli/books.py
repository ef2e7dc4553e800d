"""The bookkeeper's commands: blind counts verified by a second person (booth drawer count,
booth drawer verify, booth drawer variances), deposits (booth deposit ...), disbursements by
check (booth disbursement ...), the bank balance (booth bank balance) and the state's reports
(booth report quarter, booth report annual)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from pos.cli.books_text import count_text
from pos.cli.common import YEAR, emit, json_option, operator_option, reads, state
from pos.cli.file_params import InputPath, OutputPath
from pos.cli.reports import drawer, report
from pos.domain.money import dollars
from pos.services import books_cash, books_deposits, books_quarter, read_access

# -- counts ---------------------------------------------------------------------------------------


def _count_options(func: Any) -> Any:
    func = click.option("--session", help="The session (default: the open or latest one).")(func)
    func = click.option(
        "--session-cash", is_flag=True, help="The whole session's cash, not one drawer."
    )(func)
    return click.option("--station", help="Whose drawer or cash box (default: this station's).")(
        func
    )


def _blind_count(
    ctx: click.Context,
    record: Callable[..., dict[str, Any]],
    amount: str,
    *,
    station: str | None,
    session_cash: bool,
    session: str | None,
    operator: str | None,
    verb: str = "Counted",
) -> None:
    with state(ctx).open_station() as st:
        result = record(
            st,
            amount,
            station=station,
            session=session,
            whole_session=session_cash,
            operator=operator,
        )
    emit(ctx, result, lambda: count_text(result, verb))


@drawer.command("count")
@click.argument("amount")
@_count_options
@operator_option
@json_option
@click.pass_context
def drawer_count(
    ctx: click.Context,
    amount: str,
    station: str | None,
    session_cash: bool,
    session: str | None,
    operator: str | None,
) -> None:
    """Record a blind count of a drawer, a kiosk's cash box or the session's cash; what the
    ledger expected is shown only once the count is recorded, and a second person verifies it."""
    _blind_count(
        ctx,
        books_cash.count,
        amount,
        station=station,
        session_cash=session_cash,
        session=session,
        operator=operator,
    )


@drawer.command("verify")
@click.argument("amount")
@_count_options
@operator_option
@json_option
@click.pass_context
def drawer_verify(
    ctx: click.Context,
    amount: str,
    station: str | None,
    session_cash: bool,
    session: str | None,
    operator: str | None,
) -> None:
    """A second person (another badge) counts the same cash to the same figure (COUNT2)."""
    _blind_count(
        ctx,
        books_cash.verify,
        amount,
        station=station,
        session_cash=session_cash,
        session=session,
        operator=operator,
        verb="Verified",
    )


@drawer.command("variances")
@json_option
@click.pass_context
@reads
def drawer_variances(ctx: click.Context) -> None:
    """Every count on file: the running list of who is short and how often, per station."""
    with state(ctx).open_station() as st:
        result = books_cash.running_list(st)

    def text() -> str:
        lines = [f"{len(result['counts'])} counts, {result['not_verified']} not verified."]
        lines += [
            f"  {p['person']:<8} {p['counts']:>3} counts, short {p['short']} times "
            f"(${p['short_total']}), over {p['over']} times (${p['over_total']}), net {p['net']}"
            for p in result["people"]
        ]
        lines += [
            f"  {s['station']:<24} {s['counts']:>3} counts, short {s['short']}, net {s['net']}"
            for s in result["stations"]
        ]
        return "\n".join(lines)

    emit(ctx, result, text)


# -- deposits -------------------------------------------------------------------------------------


@click.group()
def deposit() -> None:
    """Deposits of the session's receipts (11VAC20-20-80 D)."""


@deposit.command("record")
@click.option("--bag", required=True, help="The deposit bag's number.")
@click.option("--session", "sessions", multiple=True, required=True, help="A session it holds.")
@click.option("--cash", default="0.00", show_default=True)
@click.option("--checks", default="0.00", show_default=True)
@click.option("--taken-by", required=True, metavar="BADGE", help="Who took it to the bank.")
@click.option("--on", "on", help="The day it was deposited (default: today).")
@click.option(
    "--receipts",
    type=click.Choice(["session", "weekly"]),
    default="session",
    show_default=True,
    help="weekly: electronic gaming receipts (at least every 7 days).",
)
@operator_option
@json_option
@click.pass_context
def deposit_record(
    ctx: click.Context,
    bag: str,
    sessions: tuple[str, ...],
    cash: str,
    checks: str,
    taken_by: str,
    on: str | None,
    receipts: str,
    operator: str | None,
) -> None:
    """Record a deposit: bag, sessions, cash and checks, who took it."""
    with state(ctx).open_station() as st:
        result = books_deposits.record(
            st,
            bag=bag,
            sessions=list(sessions),
            cash=cash,
            checks=checks,
            taken_by=taken_by,
            on=on,
            receipts=receipts,
            operator=operator,
        )
    emit(ctx, result, lambda: _deposit_text(result))


def _deposit_text(d: dict[str, Any]) -> str:
    text = (
        f"Bag {d['bag']}: ${d['total']} (cash ${d['cash']}, checks ${d['checks']}) for "
        f"{', '.join(d['sessions'])}, taken by {d['taken_by']} on {d['on']}; due by {d['due']}"
    )
    if d["late"]:
        text += " - LATE (exception)"
    if d["short"]:
        text += f" - SHORT by ${d['short_by']} of ${d['should_hold']} (exception)"
    if d["credited"] is not None:
        text += f"; bank credited ${d['credited']} on {d['credited_on']}" + (
            "" if d["reconciled"] else " - DOES NOT MATCH (exception)"
        )
    return text


@deposit.command("confirm")
@click.argument("bag")
@click.option("--credited", required=True, help="The amount the bank credited.")
@click.option("--on", "on", help="The day the bank credited it (default: today).")
@operator_option
@json_option
@click.pass_context
def deposit_confirm(
    ctx: click.Context, bag: str, credited: str, on: str | None, operator: str | None
) -> None:
    """Record the bank's confirmation of a deposit and reconcile it."""
    with state(ctx).open_station() as st:
        result = books_deposits.confirm(st, bag, credited=credited, on=on, operator=operator)
    emit(ctx, result, lambda: _deposit_text(result))


@deposit.command("list")
@json_option
@click.pass_context
@reads
def deposit_list(ctx: click.Context) -> None:
    """Deposits on file, and the sessions whose receipts are due at the bank."""
    cli = state(ctx)
    with cli.open_station() as st:
        result = read_access.deposit_list(st, cli.read_by)

    def text() -> str:
        lines = [_deposit_text(d) for d in result["deposits"]] or ["No deposits recorded."]
        lines += [
            f"{'OVERDUE' if d['overdue'] else 'Due'}: session {d['session']} ("
            + (f"${d['amount']}, {d['basis']}" if d["amount"] is not None else "not counted yet")
            + f") by {d['due']}"
            + (
                f" (not business days: {', '.join(d['not_business_days'])})"
                if d["not_business_days"]
                else ""
            )
            for d in result["due"]
        ]
        return "\n".join(lines)

    emit(ctx, result, text)


# -- disbursements and the bank -------------------------------------------------------------------


@click.group()
def disbursement() -> None:
    """Expenses paid by check from the charitable gaming account (11VAC20-20-80 B)."""


@disbursement.command("record")
@click.option("--payee", required=True)
@click.option("--amount", required=True)
@click.option("--check", "check_number", required=True, help="The check's number.")
@click.option("--on", "on", help="The check's date (default: today).")
@click.option(
    "--category",
    required=True,
    help="prizes-by-check, supplies, rent, equipment, advertising, fees, other, use-of-proceeds.",
)
@click.option("--invoice", default="", help="The invoice's reference.")
@click.option("--note", default="")
@operator_option
@json_option
@click.pass_context
def disbursement_record(
    ctx: click.Context,
    payee: str,
    amount: str,
    check_number: str,
    on: str | None,
    category: str,
    invoice: str,
    note: str,
    operator: str | None,
) -> None:
    """A manager records a check paid from the gaming account, with the invoice's reference."""
    with state(ctx).open_station() as st:
        result = books_deposits.disburse(
            st,
            payee=payee,
            amount=amount,
            check=check_number,
            on=on,
            category=category,
            invoice=invoice,
            note=note,
            operator=operator,
        )
    emit(
        ctx,
        result,
        f"Check {result['check']} ${result['amount']} to {result['payee']} on {result['on']} "
        f"({result['category']}, invoice {result['invoice'] or '-'}).",
    )


@disbursement.command("list")
@click.option("--from", "start", help="First day (YYYY-MM-DD).")
@click.option("--to", "end", help="Last day (YYYY-MM-DD).")
@json_option
@click.pass_context
@reads
def disbursement_list(ctx: click.Context, start: str | None, end: str | None) -> None:
    """Checks paid from the gaming account."""
    with state(ctx).open_station() as st:
        rows = books_deposits.disbursements(st, start, end)
    emit(
        ctx,
        rows,
        lambda: (
            "\n".join(
                f"{d['on']} check {d['check']:<8} {'$' + d['amount']:>11} {d['category']:<16} "
                f"{d['payee']} (invoice {d['invoice'] or '-'})"
                for d in rows
            )
            or "No disbursements recorded."
        ),
    )


@click.group()
def bank() -> None:
    """The charitable gaming bank account."""


@bank.command("balance")
@click.option("--on", "on", required=True, help="The statement's day (YYYY-MM-DD).")
@click.option("--amount", required=True, help="The balance on the statement.")
@operator_option
@json_option
@click.pass_context
def bank_balance(ctx: click.Context, on: str, amount: str, operator: str | None) -> None:
    """Record the account's balance as the bank statement shows it (money on hand)."""
    with state(ctx).open_station() as st:
        result = books_deposits.record_balance(st, on=on, amount=amount, operator=operator)
    emit(ctx, result, f"Bank balance ${result['amount']} on {result['on']} recorded.")


# -- the state's reports --------------------------------------------------------------------------


def _outputs(func: Any) -> Any:
    for name, help_text in (
        ("--xlsx", "Also write the form as xlsx."),
        ("--pdf", "Also write the summary to sign as PDF."),
        ("--csv", "Also write each line's source events as CSV."),
    ):
        func = click.option(name, type=OutputPath(dir_okay=False, path_type=Path), help=help_text)(
            func
        )
    return click.option(
        "--template",
        type=InputPath(dir_okay=False, exists=True, path_type=Path),
        help="Another state's form layout (JSON, as pos/templates/va_form102.json).",
    )(func)


def _state_text(r: dict[str, Any]) -> str:
    lines = [
        ("TRAINING - " if r["training"] else "") + f"{r['title']}: {r['period']} "
        f"({r['start']} to {r['end']}), due {r['due']}; {len(r['sessions'])} sessions"
    ]
    for section in r["sections"]:
        lines.append(f"  {section['title']}")
        for line in section["lines"]:
            shown = (
                f"{dollars(line['amount']):>13}" if line["amount"] is not None else "  GAP (fill)"
            )
            lines.append(f"    {line['number']:>4} {line['label'][:62]:<62} {shown}")
    if r["gaps"]:
        lines.append("Gaps only a person can fill:")
        lines += [f"  - {g['what']}" for g in r["gaps"]]
    return "\n".join(lines)


def _write(result: dict[str, Any], xlsx: Path | None, pdf: Path | None, csv: Path | None) -> None:
    if xlsx:
        books_quarter.write_xlsx(result, xlsx)
    if pdf:
        books_quarter.write_pdf(result, pdf)
    if csv:
        books_quarter.write_csv(result, csv)


@report.command("quarter")
@click.option("--year", type=YEAR, required=True)
@click.option("--quarter", "q", type=click.IntRange(1, 4), required=True)
@_outputs
@json_option
@click.pass_context
@reads
def report_quarter(
    ctx: click.Context,
    year: int,
    q: int,
    template: Path | None,
    csv: Path | None,
    pdf: Path | None,
    xlsx: Path | None,
) -> None:
    """The quarter's figures for the state's quarterly report (Virginia Form 102)."""
    with state(ctx).open_station() as st:
        result = books_quarter.state_report(st, "quarter", year, q, template)
    _write(result, xlsx, pdf, csv)
    emit(ctx, result, lambda: _state_text(result))


@report.command("annual")
@click.option("--year", type=YEAR, required=True)
@_outputs
@json_option
@click.pass_context
@reads
def report_annual(
    ctx: click.Context,
    year: int,
    template: Path | None,
    csv: Path | None,
    pdf: Path | None,
    xlsx: Path | None,
) -> None:
    """The year's figures for the state's annual report (Virginia Form 101)."""
    with state(ctx).open_station() as st:
        result = books_quarter.state_report(st, "annual", year, None, template)
    _write(result, xlsx, pdf, csv)
    emit(ctx, result, lambda: _state_text(result))


@report.command("quarter-final")
@click.option("--year", type=YEAR, required=True)
@click.option("--quarter", "q", type=click.IntRange(1, 4), required=True)
@_outputs
@operator_option
@json_option
@click.pass_context
def report_quarter_final(
    ctx: click.Context,
    year: int,
    q: int,
    template: Path | None,
    csv: Path | None,
    pdf: Path | None,
    xlsx: Path | None,
    operator: str | None,
) -> None:
    """The quarter's final report, to sign and file (Form 102): recorded as produced, so a
    session opened into the quarter afterwards has to say so (rule GAMEDATE)."""
    with state(ctx).open_station() as st:
        result = books_quarter.final_report(st, year, q, template, operator=operator)
    _write(result, xlsx, pdf, csv)
    emit(
        ctx,
        result,
        lambda: _state_text(result) + f"\nRecorded as produced by {result['reported_by']}.",
    )
