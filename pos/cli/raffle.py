"""booth raffle ...: raffles (11VAC15-40-60 F), their numbered two-part tickets and drawings."""

from __future__ import annotations

from typing import Any

import click

from pos.cli.common import emit, json_option, operator_option, reads, state, winner_options
from pos.domain.money import format_money
from pos.services import raffle as raffle_service
from pos.services.w2g import Winner


def _raffle_text(r: dict[str, Any]) -> str:
    lines = [
        f"{r['raffle']}  {r['name']}: drawing {r['drawing_date']}, tickets ${r['price']} "
        f"(held by {r['held_by']})",
        f"  sold {r['tickets_sold']}, voided {r['tickets_voided']}, last number "
        f"{r['last_ticket'] or '-'}, gross ${r['gross']}",
    ]
    if r["stubs"] is not None:
        lines.append(
            f"  stubs in the receptacle: {r['stubs']} (counted by {r['stubs_counted_by']}; "
            f"witnesses {', '.join(r['witnesses'])})"
        )
    for p in r["prizes"]:
        state_text = (
            f"won by {p['ticket']}" + (" - claimed" if p["claimed"] else "")
            if p["ticket"]
            else "not drawn"
        )
        lines.append(
            f"  {p['place']:>2}. {p['description']} ${p['value']} ({p['basis']}): {state_text}"
        )
    return "\n".join(lines)


@click.group()
def raffle() -> None:
    """Raffles: numbered two-part tickets, the drawing, the prizes (rule F)."""


@raffle.command("create")
@click.argument("raffle_id", metavar="RAFFLE")
@click.option("--name", required=True, help="What the raffle is called on its tickets.")
@click.option("--drawing", "drawing_date", required=True, help="The drawing's date, YYYY-MM-DD.")
@click.option("--price", required=True, help="A ticket's price, e.g. 5.00.")
@click.option(
    "--prize",
    "prizes",
    multiple=True,
    metavar="DESCRIPTION;VALUE;BASIS",
    help="A prize in drawing order, at fair market value with its basis (F2), e.g. "
    "'Handmade quilt;250.00;appraisal by Riverside Quilters' (repeat for each prize).",
)
@operator_option
@json_option
@click.pass_context
def raffle_create(
    ctx: click.Context,
    raffle_id: str,
    name: str,
    drawing_date: str,
    price: str,
    prizes: tuple[str, ...],
    operator: str | None,
) -> None:
    """Take in a raffle here: its drawing date, ticket price and prizes (managers)."""
    terms = raffle_service.parse_terms(
        raffle_id, name=name, drawing_date=drawing_date, price=price, prizes=list(prizes)
    )
    with state(ctx).open_station() as st:
        result = raffle_service.create(st, terms, operator=operator)
    emit(ctx, result, lambda: "Raffle created\n" + _raffle_text(result))


@raffle.command("sell")
@click.argument("raffle_id", metavar="RAFFLE")
@click.option("--qty", default="1", show_default=True, help="How many tickets.")
@click.option("--buyer", help="The buyer's player card or badge, recorded with the sale.")
@operator_option
@json_option
@click.pass_context
def raffle_sell(
    ctx: click.Context, raffle_id: str, qty: str, buyer: str | None, operator: str | None
) -> None:
    """Sell numbered tickets: each prints as its stub and the buyer's part (signed QR code)."""
    with state(ctx).open_station() as st:
        result = raffle_service.sell(st, raffle_id, qty=qty, buyer=buyer, operator=operator)
    emit(
        ctx,
        result,
        lambda: (
            f"Sold {result.qty} x {result.raffle} ({result.name}) for "
            f"{format_money(result.amount)}: tickets "
            + ", ".join(f"{t.number} (receipt {t.receipt})" for t in result.tickets)
        ),
    )


@raffle.command("void")
@click.argument("raffle_id", metavar="RAFFLE")
@click.argument("ticket")
@click.option("--reason", required=True, help="Why: misprinted, rung in error...")
@operator_option
@json_option
@click.pass_context
def raffle_void(
    ctx: click.Context, raffle_id: str, ticket: str, reason: str, operator: str | None
) -> None:
    """Void a ticket before the drawing (managers): its number never wins."""
    with state(ctx).open_station() as st:
        result = raffle_service.void_ticket(st, raffle_id, ticket, reason=reason, operator=operator)
    emit(
        ctx,
        result,
        f"Voided {result['raffle']} ticket {result['ticket']}: ${result['refund']} back; "
        "keep its stub out of the receptacle.",
    )


@raffle.command("stubs")
@click.argument("raffle_id", metavar="RAFFLE")
@click.option("--count", "stubs", required=True, help="Stubs placed in the receptacle.")
@click.option(
    "--witness",
    "witnesses",
    multiple=True,
    metavar="BADGE",
    help="A witness of the drawing (a staff badge; repeat).",
)
@operator_option
@json_option
@click.pass_context
def raffle_stubs(
    ctx: click.Context,
    raffle_id: str,
    stubs: str,
    witnesses: tuple[str, ...],
    operator: str | None,
) -> None:
    """Start the drawing: the stubs in the receptacle must equal the tickets sold (F1)."""
    with state(ctx).open_station() as st:
        result = raffle_service.count_stubs(
            st, raffle_id, stubs=stubs, witnesses=list(witnesses), operator=operator
        )
    emit(
        ctx,
        result,
        f"{result['raffle']}: {result['stubs']} stubs in the receptacle = tickets sold "
        f"({result['tickets_sold']} sold, {result['tickets_voided']} voided); witnesses "
        f"{', '.join(result['witnesses'])}. Draw.",
    )


@raffle.command("draw")
@click.argument("raffle_id", metavar="RAFFLE")
@click.argument("ticket")
@click.option("--place", help="The prize drawn for (default: the next not drawn).")
@operator_option
@json_option
@click.pass_context
def raffle_draw(
    ctx: click.Context, raffle_id: str, ticket: str, place: str | None, operator: str | None
) -> None:
    """Record a number drawn: it wins the prize if it was sold and not voided (F1)."""
    with state(ctx).open_station() as st:
        result = raffle_service.draw(st, raffle_id, ticket, place=place, operator=operator)
    emit(
        ctx,
        result,
        f"{result['raffle']} prize {result['place']} ({result['prize']}, ${result['value']}): "
        f"ticket {result['ticket']} WINS (sold on receipt {result['receipt']} at "
        f"{result['sold_by']})",
    )


@raffle.command("claim")
@click.argument("raffle_id", metavar="RAFFLE")
@click.option("--place", required=True, help="The prize claimed (its place: 1, 2...).")
@click.option("--code", help="The QR code of the buyer's part presented (checked).")
@winner_options
@operator_option
@json_option
@click.pass_context
def raffle_claim(
    ctx: click.Context,
    raffle_id: str,
    place: str,
    code: str | None,
    winner: Winner | None,
    operator: str | None,
) -> None:
    """Hand a prize drawn to its winner, with identity where Form W-2G needs it."""
    with state(ctx).open_station() as st:
        result = raffle_service.claim(
            st, raffle_id, place=place, code=code, winner=winner, operator=operator
        )
    emit(
        ctx,
        result,
        f"{result.raffle} prize {result.place} ({result.prize}, {format_money(result.value)}) "
        f"claimed by ticket {result.ticket}" + (" - W-2G data recorded" if result.w2g else ""),
    )


@raffle.command("show")
@click.argument("raffle_id", metavar="RAFFLE")
@json_option
@click.pass_context
@reads
def raffle_show(ctx: click.Context, raffle_id: str) -> None:
    """A raffle: its prizes and their values, tickets sold, stubs, numbers drawn, claims."""
    with state(ctx).open_station() as st:
        result = raffle_service.show(st, raffle_id)
    emit(ctx, result, lambda: _raffle_text(result))


@raffle.command("list")
@json_option
@click.pass_context
@reads
def raffle_list(ctx: click.Context) -> None:
    """Every raffle on file here."""
    with state(ctx).open_station() as st:
        result = raffle_service.list_raffles(st)
    emit(ctx, result, lambda: "\n".join(_raffle_text(r) for r in result) or "No raffles.")
