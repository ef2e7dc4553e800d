"""booth redeem, booth void, booth check, booth seal ..."""

from __future__ import annotations

from typing import Any

import click

from pos.cli.common import (
    LINE_NUMBER,
    RECEIPT_NUMBER,
    emit,
    json_option,
    operator_option,
    reads,
    state,
    winner_options,
)
from pos.domain.money import format_amount, format_money
from pos.errors import BadInput
from pos.services import seals, winners
from pos.services.w2g import Winner


def _punch(result: winners.Payout) -> str:
    return (
        f"PAY ${format_amount(result.pay)}  --  {result.say}\n{result.serial}"
        + (f"/{result.ticket}" if result.ticket else "")
        + (f"  receipt {result.receipt}" if result.receipt else "")
        + ("" if result.punched else "\nconfirm the punch: booth punch CODE")
        + (f"\nflagged for the manager: {result.flagged}" if result.flagged else "")
    )


@click.command()
@click.argument("code")
@click.option("--tier", help="The prize, where the ticket's code does not carry it (e.g. 100.00).")
@click.option("--player", help="The winner's player card, to check their age.")
@winner_options
@click.option("--punched", is_flag=True, help="C2: the ticket is punched; record who and when.")
@operator_option
@json_option
@click.pass_context
def redeem(
    ctx: click.Context,
    code: str,
    tier: str | None,
    player: str | None,
    winner: Winner | None,
    punched: bool,
    operator: str | None,
) -> None:
    """Pay a winning ticket (PUNCH NOW), or say why not."""
    with state(ctx).open_station() as st:
        result = winners.redeem(
            st, code, operator=operator, tier=tier, player=player, winner=winner, punched=punched
        )
    emit(ctx, result, lambda: _punch(result))


@click.command()
@click.argument("code")
@operator_option
@json_option
@click.pass_context
def punch(ctx: click.Context, code: str, operator: str | None) -> None:
    """Confirm a paid ticket was punched (C2): records who punched it and when."""
    with state(ctx).open_station() as st:
        result = winners.confirm_punch(st, code, operator=operator)
    emit(ctx, result, lambda: f"PUNCHED {result['punched']} by {result['by']} at {result['at']}")


@click.command()
@click.argument("code", required=False)
@click.option(
    "--sale", "receipt", type=RECEIPT_NUMBER, help="Void the sale on this receipt (managers)."
)
@click.option("--reason", required=True, help="Why: tampered, damaged, rung in error...")
@operator_option
@json_option
@click.pass_context
def void(
    ctx: click.Context, code: str | None, receipt: int | None, reason: str, operator: str | None
) -> None:
    """Void a tampered or damaged ticket by its code (C1), or a sale rung in error (--sale)."""
    if (code is None) == (receipt is None):
        raise BadInput("code", "give a ticket code or --sale RECEIPT (one of them)")
    with state(ctx).open_station() as st:
        if receipt is not None:
            voided = winners.void_sale(st, receipt, reason=reason, operator=operator)
        else:
            assert code is not None
            result = winners.void_ticket(st, code, reason=reason, operator=operator)
    if receipt is not None:
        text = (
            f"Voided sale {receipt}: {voided.qty} x {voided.serial}, "
            f"{format_money(voided.amount)} back."
        )
        emit(ctx, voided, text)
    else:
        emit(ctx, result, f"Voided ticket {result['voided']}: it will never pay.")


@click.command()
@click.argument("code")
@click.option("--tier", help="The prize shown on the ticket, where its code does not carry it.")
@json_option
@click.pass_context
def check(ctx: click.Context, code: str, tier: str | None) -> None:
    """Check a ticket without paying it (kiosks)."""
    with state(ctx).open_station() as st:
        result = winners.check_ticket(st, code, tier=tier)
    emit(ctx, result, result["say"])


@click.group()
def seal() -> None:
    """Seal cards: the sign-up sheet, the seal, its prizes."""


def _sheet_text(sheet: dict[str, Any]) -> str:
    lines = [
        f"{sheet['serial']} {sheet['name']}: seal prize ${sheet['prize']}"
        f"{' (progressive)' if sheet['progressive'] else ''}; "
        f"{sheet['tickets_left']} tickets left"
    ]
    for line in sheet["lines"]:
        mark = " WINNER" if line["winner"] else ""
        signer = (
            f"hold {line['ticket']}" + (f" ({line['player']})" if line["player"] else "")
            if line["ticket"]
            else "-"
        )
        prize = f" ${line['prize']['amount']} {line['prize']['state']}" if "prize" in line else ""
        lines.append(f"  line {line['line']:>3}: {signer}{mark}{prize}")
    if sheet["claim_until"]:
        lines.append(f"  claim by {sheet['claim_until']}")
    return "\n".join(lines)


@seal.command("sign")
@click.argument("serial")
@click.option("--ticket", required=True, help="The hold ticket's number.")
@click.option("--line", type=LINE_NUMBER, required=True)
@click.option("--player", help="The player's card.")
@operator_option
@json_option
@click.pass_context
def seal_sign(
    ctx: click.Context,
    serial: str,
    ticket: str,
    line: int,
    player: str | None,
    operator: str | None,
) -> None:
    """Sign a line of the sign-up sheet with a hold ticket."""
    with state(ctx).open_station() as st:
        result = seals.sign_line(
            st, serial, ticket=ticket, line=line, player=player, operator=operator
        )
    emit(ctx, result, lambda: _sheet_text(result))


@seal.command("sheet")
@click.argument("serial")
@json_option
@click.pass_context
@reads
def seal_sheet(ctx: click.Context, serial: str) -> None:
    """Show a seal card deal's sign-up sheet."""
    with state(ctx).open_station() as st:
        result = seals.sheet(st, serial)
    emit(ctx, result, lambda: _sheet_text(result))


@seal.command("open")
@click.argument("serial")
@click.option(
    "--line",
    "lines",
    type=LINE_NUMBER,
    multiple=True,
    required=True,
    help="A winning line under the seal (repeat for more).",
)
@operator_option
@json_option
@click.pass_context
def seal_open(
    ctx: click.Context, serial: str, lines: tuple[int, ...], operator: str | None
) -> None:
    """Open the seal of a sold-out deal and name the winning line(s)."""
    with state(ctx).open_station() as st:
        result = seals.open_seal(st, serial, lines=list(lines), operator=operator)
    emit(ctx, result, lambda: _sheet_text(result))


@seal.command("claim")
@click.argument("serial")
@click.option("--line", type=LINE_NUMBER, required=True)
@operator_option
@json_option
@click.pass_context
def seal_claim(ctx: click.Context, serial: str, line: int, operator: str | None) -> None:
    """Pay the seal prize of a winning line, within its claim window."""
    with state(ctx).open_station() as st:
        result = seals.claim_seal_prize(st, serial, line=line, operator=operator)
    emit(ctx, result, lambda: f"PAY {format_money(result.pay)}  --  line {line} of {result.serial}")
