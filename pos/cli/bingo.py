"""booth program ..., booth paper ..., booth bingo ...: the bingo session (issue #18)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pos.cli.common import (
    GAME_NUMBER,
    VERSION_NUMBER,
    buyer_options,
    configured_printer,
    emit,
    json_option,
    manager_decision_options,
    operator_option,
    reads,
    state,
    winner_options,
)
from pos.cli.file_params import InputPath, OutputPath
from pos.domain.money import format_amount, format_money
from pos.domain.receipt import Receipt
from pos.errors import BadInput, HardwareFailure
from pos.services import bingo_games as games
from pos.services import bingo_paper as paper_service
from pos.services import bingo_print
from pos.services import bingo_program as program_service
from pos.services.ports import PrinterFault
from pos.services.station import Station
from pos.services.w2g import Winner


def _to_printer(st: Station, receipt: Receipt, name: str) -> None:
    printer = configured_printer(st)
    if printer is None:
        raise BadInput("printer", "no printer set: booth printer set SPEC")
    try:
        printer.print_receipt(receipt, name=name)
    except PrinterFault as fault:
        raise HardwareFailure(f"printer: {fault}") from None


# --- booth program ------------------------------------------------------------------------------


@click.group()
def program() -> None:
    """The bingo session's game program (rules A, G5, H1, I3, I4, J4)."""


def _program_text(view: program_service.ProgramView) -> str:
    lines = [f"Program {view.name} (version {view.version})"]
    for g in view.games:
        extra = []
        if g.pattern:
            extra.append(g.pattern)
        if g.paper:
            extra.append(f"paper {g.paper}")
        if g.price:
            extra.append(f"${g.price}")
        if g.entry is not None:
            extra.append(f"${g.entry} a face, ${g.fee} per 3 numbers a card")
        if g.calls is not None:
            extra.append(f"now ${g.pool} in {g.calls} numbers")
        lines.append(f"  {g.number:>2}. {g.title} [{g.kind}] {g.prize}  {'; '.join(extra)}")
    for p in view.products:
        lines.append(f"  on sale: {p.kind} {p.name}" + (f" ${p.price}" if p.price else ""))
    if view.house_rules:
        lines.append(f"  house rules: {view.house_rules[:60]}")
    return "\n".join(lines)


@program.command("create")
@click.option(
    "--file",
    "program_file",
    type=InputPath(dir_okay=False, path_type=Path),
    required=True,
    help="The program as JSON or TOML (pos.domain.bingo_program's format).",
)
@operator_option
@json_option
@click.pass_context
def program_create(ctx: click.Context, program_file: Path, operator: str | None) -> None:
    """Define a game program, or the next version of one of the same name."""
    parsed = program_service.read_program_file(program_file)
    with state(ctx).open_station() as st:
        view = program_service.create_program(st, parsed, operator=operator)
    emit(ctx, view.to_dict(), lambda: _program_text(view))


@program.command("edit")
@click.argument("name")
@click.option("--game", "game_number", type=GAME_NUMBER, help="The game to change, by its number.")
@click.option(
    "--set",
    "changes",
    multiple=True,
    metavar="FIELD=VALUE",
    help="A field of the game (prize=150.00, pattern=..., calls=51); FIELD= clears it.",
)
@click.option("--house-rules", help="New house rules text for the program.")
@operator_option
@json_option
@click.pass_context
def program_edit(
    ctx: click.Context,
    name: str,
    game_number: int | None,
    changes: tuple[str, ...],
    house_rules: str | None,
    operator: str | None,
) -> None:
    """A new version of a program with one game's fields (or the house rules) changed."""
    fields: dict[str, Any] = {}
    for text in changes:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise BadInput("set", f"{text!r} is not FIELD=VALUE")
        fields[key.strip()] = value
    with state(ctx).open_station() as st:
        view = program_service.edit_program(
            st, name, game=game_number, changes=fields, house_rules=house_rules, operator=operator
        )
    emit(ctx, view.to_dict(), lambda: _program_text(view))


@program.command("show")
@click.argument("name", required=False)
@click.option(
    "--version", "version", type=VERSION_NUMBER, help="One version (default: the latest)."
)
@click.option("--all", "every", is_flag=True, help="Every version of every program.")
@json_option
@click.pass_context
@reads
def program_show(ctx: click.Context, name: str | None, version: int | None, every: bool) -> None:
    """The program in effect (or a named one, or every version with --all)."""
    with state(ctx).open_station() as st:
        if every:
            views = program_service.program_history(st, name)
            emit(
                ctx,
                [v.to_dict() for v in views],
                lambda: "\n".join(_program_text(v) for v in views) or "No programs yet.",
            )
            return
        view = program_service.show_program(st, name, version)
    emit(ctx, view.to_dict(), lambda: _program_text(view))


@program.command("print")
@click.argument("name", required=False)
@click.option(
    "--version", "version", type=VERSION_NUMBER, help="One version (default: the latest)."
)
@click.option(
    "--pdf",
    "pdf_file",
    type=OutputPath(dir_okay=False, path_type=Path),
    help="The program for the wall, as PDF.",
)
@click.option("--print", "to_printer", is_flag=True, help="Its short form on the receipt printer.")
@json_option
@click.pass_context
@reads
def program_print(
    ctx: click.Context,
    name: str | None,
    version: int | None,
    pdf_file: Path | None,
    to_printer: bool,
) -> None:
    """Print the program: a PDF for the wall and/or the short form on the receipt printer."""
    if pdf_file is None and not to_printer:
        raise BadInput("pdf", "say where: --pdf FILE and/or --print")
    with state(ctx).open_station() as st:
        view = program_service.show_program(st, name, version)
        if pdf_file is not None:
            bingo_print.program_pdf(st, view, pdf_file)
        if to_printer:
            _to_printer(
                st, bingo_print.program_receipt(st, view), f"{st.id}-program-{view.version}"
            )
    emit(
        ctx,
        {
            "name": view.name,
            "version": view.version,
            "pdf": str(pdf_file) if pdf_file else None,
            "printed": to_printer,
        },
        f"Program {view.name} version {view.version}"
        + (f" written to {pdf_file}" if pdf_file else "")
        + (" and printed" if to_printer else "")
        + ".",
    )


# --- booth paper --------------------------------------------------------------------------------


@click.group()
def paper() -> None:
    """Bingo paper by audit number, admission packs and their sales (rule I2)."""


def _sale_text(sale: paper_service.SaleView) -> str:
    head = "Returned" if sale.returned else "Sold"
    return (
        f"{head} {sale.qty} x {sale.what} for {format_money(sale.amount)} (receipt "
        f"{sale.receipt}, session {sale.session}): " + ", ".join(sale.audit_numbers)
    )


@paper.command("receive")
@click.option("--series", required=True)
@click.option("--manufacturer", required=True)
@click.option("--faces", required=True, help='The paper: "6-on", "9-on", "1-on"...')
@click.option("--first", required=True, help="The first audit (serial) number.")
@click.option("--last", required=True, help="The last audit (serial) number.")
@click.option("--invoice", required=True)
@click.option("--supplier", help="The supplier's name and address.")
@click.option("--cost", help="What the invoice charges for it.")
@click.option("--progressive", is_flag=True, help="Paper for a progressive game (I2).")
@operator_option
@json_option
@click.pass_context
def paper_receive(
    ctx: click.Context,
    series: str,
    manufacturer: str,
    faces: str,
    first: str,
    last: str,
    invoice: str,
    supplier: str | None,
    cost: str | None,
    progressive: bool,
    operator: str | None,
) -> None:
    """Take in bingo paper from its invoice, by series and audit numbers."""
    with state(ctx).open_station() as st:
        lot = paper_service.receive_paper(
            st,
            series=series,
            manufacturer=manufacturer,
            faces=faces,
            first=first,
            last=last,
            invoice=invoice,
            supplier=supplier,
            cost=cost,
            progressive=progressive,
            operator=operator,
        )
    emit(
        ctx,
        lot,
        f"Received {lot.sheets} sheets of {lot.series} ({lot.faces}"
        f"{', progressive' if lot.progressive else ''}), audit {lot.first}-{lot.last}.",
    )


@paper.command("issue")
@click.argument("series")
@click.option("--first", required=True)
@click.option("--last", required=True)
@click.option("--to", "to", required=True, help="The station that sells them.")
@operator_option
@json_option
@click.pass_context
def paper_issue(
    ctx: click.Context, series: str, first: str, last: str, to: str, operator: str | None
) -> None:
    """Move paper in stock to another station (the booth that sells it)."""
    with state(ctx).open_station() as st:
        result = paper_service.issue_paper(
            st, series, first=first, last=last, to=to, operator=operator
        )
    emit(ctx, result, f"{series} {result['first']}-{result['last']} issued to {to}.")


@paper.command("void")
@click.argument("series")
@click.option("--first", required=True)
@click.option("--last", required=True)
@click.option("--reason", required=True)
@operator_option
@json_option
@click.pass_context
def paper_void(
    ctx: click.Context, series: str, first: str, last: str, reason: str, operator: str | None
) -> None:
    """Void damaged sheets in stock: counted as voided in the session's reconciliation."""
    with state(ctx).open_station() as st:
        result = paper_service.void_paper(
            st, series, first=first, last=last, reason=reason, operator=operator
        )
    emit(ctx, result, f"{series} {result['first']}-{result['last']} voided.")


@paper.command("pack")
@click.argument("name")
@click.option("--price", required=True)
@click.option(
    "--item",
    "items",
    multiple=True,
    required=True,
    metavar="SERIES:COUNT",
    help="Sheets of a series in each pack (repeat).",
)
@click.option("--games", default="", help='What it plays, e.g. "6-on, 9 games + 2 specials".')
@operator_option
@json_option
@click.pass_context
def paper_pack(
    ctx: click.Context,
    name: str,
    price: str,
    items: tuple[str, ...],
    games: str,
    operator: str | None,
) -> None:
    """Define an admission pack from paper on file (never with progressive paper: I2)."""
    parsed = paper_service.parse_items(list(items))
    with state(ctx).open_station() as st:
        view = paper_service.define_pack(
            st, name, price=price, items=parsed, games=games, operator=operator
        )
    emit(
        ctx, view, f"Pack {view.name}: {format_money(view.price)}, {view.games or 'no games text'}."
    )


@paper.command("packs")
@json_option
@click.pass_context
@reads
def paper_packs(ctx: click.Context) -> None:
    """The admission packs defined."""
    with state(ctx).open_station() as st:
        views = paper_service.list_packs(st)
    emit(
        ctx,
        views,
        lambda: (
            "\n".join(
                f"{v.name:<16} ${v.price:>8}  {v.games}  "
                + ", ".join(f"{i['count']} x {i['series']}" for i in v.items)
                for v in views
            )
            or "No packs yet."
        ),
    )


@paper.command("sell")
@click.option("--pack", "pack_name", help="An admission pack, by name.")
@click.option("--series", help="Sheets of one series on their own (progressive paper...).")
@click.option("--qty", default="1")
@click.option("--price", help="Paper sold apart: its price when the program lists none.")
@buyer_options
@operator_option
@json_option
@click.pass_context
def paper_sell(
    ctx: click.Context,
    pack_name: str | None,
    series: str | None,
    qty: str,
    price: str | None,
    buyer: str | None,
    manager: str | None,
    reason: str | None,
    operator: str | None,
) -> None:
    """Sell packs or paper by audit number, from this station's stock."""
    if bool(pack_name) == bool(series):
        raise BadInput("pack", "give either --pack NAME or --series SERIES")
    with state(ctx).open_station() as st:
        if pack_name:
            sale = paper_service.sell_pack(
                st,
                pack_name,
                qty=qty,
                buyer=buyer,
                operator=operator,
                manager=manager,
                reason=reason,
            )
        else:
            assert series is not None
            sale = paper_service.sell_paper(
                st,
                series,
                qty=qty,
                price=price,
                buyer=buyer,
                operator=operator,
                manager=manager,
                reason=reason,
            )
    emit(ctx, sale, lambda: _sale_text(sale))


@paper.command("return")
@click.argument("receipt")
@operator_option
@json_option
@click.pass_context
def paper_return(ctx: click.Context, receipt: str, operator: str | None) -> None:
    """Return a sale's paper to stock (a sale rung in error, paper handed back unplayed)."""
    with state(ctx).open_station() as st:
        sale = paper_service.return_sale(st, receipt, operator=operator)
    emit(ctx, sale, lambda: _sale_text(sale))


@paper.command("stock")
@json_option
@click.pass_context
@reads
def paper_stock(ctx: click.Context) -> None:
    """Paper on file per series, station and state, with its audit numbers."""
    with state(ctx).open_station() as st:
        lines = paper_service.paper_stock(st)
    emit(
        ctx,
        lines,
        lambda: (
            "\n".join(
                f"{s.series:<10} {s.holder:<10} {s.state:<7} {s.sheets:>6}  {s.first}-{s.last}"
                for s in lines
            )
            or "No paper on file."
        ),
    )


@paper.command("reconcile")
@click.option("--session", required=True, help="The session, YYYY-MM-DD/N.")
@json_option
@click.pass_context
@reads
def paper_reconcile(ctx: click.Context, session: str) -> None:
    """A session's paper by audit number: opening, received, sold, returned, voided, closing."""
    with state(ctx).open_station() as st:
        lines = paper_service.reconcile_paper(st, session)
    emit(
        ctx,
        [line.to_dict() for line in lines],
        lambda: (
            "\n".join(paper_service.reconciliation_text(r) for r in lines)
            or "No paper moved in that session."
        ),
    )


# --- booth bingo --------------------------------------------------------------------------------


@click.group()
def bingo() -> None:
    """The session's games at the booth: prizes, decision bingo, progressive, treasure chest."""


@bingo.command("pay")
@click.option("--game", "game_number", required=True, help="The game's number on the program.")
@click.option("--amount", required=True, help="The prize, split evenly between the winners.")
@click.option("--winners", default="1", help="How many winners share it.")
@click.option("--player", "players", multiple=True, help="A winner's player card (repeat; rule D).")
@manager_decision_options
@winner_options
@click.option(
    "--winners-file",
    type=InputPath(dir_okay=False, path_type=Path),
    help="Each winner's W-2G data, in order (JSON list of {name, address, tin, id}, null for "
    "a winner under the threshold).",
)
@operator_option
@json_option
@click.pass_context
def bingo_pay(
    ctx: click.Context,
    game_number: str,
    amount: str,
    winners: str,
    players: tuple[str, ...],
    winner: Winner | None,
    winners_file: Path | None,
    manager: str | None,
    reason: str | None,
    operator: str | None,
) -> None:
    """Pay a bingo game's prize: limit checked, claimed on the game date, W-2G at the threshold,
    no named winner working the session (D)."""
    identities: list[Winner | None] = [winner] if winner else []
    if winners_file is not None:
        identities = games.read_winners_file(winners_file)
    with state(ctx).open_station() as st:
        paid = games.pay_prize(
            st,
            game=game_number,
            amount=amount,
            winners=winners,
            identities=identities,
            players=list(players),
            operator=operator,
            manager=manager,
            reason=reason,
        )
    emit(
        ctx,
        paid,
        f"Paid ${format_amount(paid.amount)} for game {paid.game} ({paid.title})"
        + (
            f" split {', '.join('$' + format_amount(s) for s in paid.shares)}"
            if len(paid.shares) > 1
            else ""
        )
        + f": receipt {paid.receipt}.",
    )


def _decision_text(view: games.DecisionView) -> str:
    return (
        f"Decision game {view.game}: {view.faces} faces (${view.entries}), {view.rounds} rounds "
        f"of fees (${view.fees}); paid in ${view.paid_in}; prize ${view.prize}, retained "
        f"${view.retained} (limit ${view.limit})"
        + (f"\nANNOUNCED: {view.announcement}" if view.announced else "")
    )


@bingo.group("decision")
def decision() -> None:
    """Decision bingo (rule G): entries, fees per three numbers, the prize announced."""


@decision.command("enter")
@click.option("--game", "game_number", required=True)
@click.option("--faces", required=True, help="Card faces entered at the program's price.")
@buyer_options
@operator_option
@json_option
@click.pass_context
def decision_enter(
    ctx: click.Context,
    game_number: str,
    faces: str,
    buyer: str | None,
    manager: str | None,
    reason: str | None,
    operator: str | None,
) -> None:
    """Sell decision bingo entries: the program's price per card face (G2); not to anyone
    working the session (D)."""
    with state(ctx).open_station() as st:
        view = games.decision_enter(
            st,
            game=game_number,
            faces=faces,
            buyer=buyer,
            operator=operator,
            manager=manager,
            reason=reason,
        )
    emit(ctx, view, lambda: _decision_text(view))


@decision.command("fees")
@click.option("--game", "game_number", required=True)
@click.option("--cards", required=True, help="Cards in play for this set of three numbers.")
@operator_option
@json_option
@click.pass_context
def decision_fees(ctx: click.Context, game_number: str, cards: str, operator: str | None) -> None:
    """Collect a round of fees: the program's fee per card in play per three numbers (G3)."""
    with state(ctx).open_station() as st:
        view = games.decision_fees(st, game=game_number, cards=cards, operator=operator)
    emit(ctx, view, lambda: _decision_text(view))


@decision.command("announce")
@click.option("--game", "game_number", required=True)
@click.option("--print", "to_printer", is_flag=True, help="Also print the announcement.")
@operator_option
@json_option
@click.pass_context
def decision_announce(
    ctx: click.Context, game_number: str, to_printer: bool, operator: str | None
) -> None:
    """Announce the prize before it is paid: the fees, capped at the limit (G4, G5)."""
    with state(ctx).open_station() as st:
        view = games.decision_announce(st, game=game_number, operator=operator)
        if to_printer:
            _to_printer(
                st,
                bingo_print.announcement_receipt(st, view),
                f"{st.id}-decision-{view.session}-{view.game}",
            )
    emit(ctx, view, view.announcement)


@decision.command("show")
@click.option("--game", "game_number", required=True)
@click.option("--session")
@json_option
@click.pass_context
@reads
def decision_show(ctx: click.Context, game_number: str, session: str | None) -> None:
    """A decision game's entries, fees, prize and retained excess."""
    with state(ctx).open_station() as st:
        view = games.decision_status(st, game=game_number, session=session)
    emit(ctx, view, lambda: _decision_text(view))


@bingo.group("progressive")
def progressive() -> None:
    """Progressive bingo (rule I): results, calls and prize carried across sessions."""


def _progressive_text(view: games.ProgressiveView) -> str:
    return (
        f"{view.name} (game {view.game}): ${view.prize} in {view.calls} numbers"
        + (f"; paper {view.paper} at ${view.price}" if view.price else "")
        + ("; not won: played on as a regular game (I6)" if view.continues_as_regular else "")
    )


@progressive.command("result")
@click.option("--game", "game_number", required=True)
@click.option("--won/--not-won", required=True, help="Won within the calls, or not.")
@operator_option
@json_option
@click.pass_context
def progressive_result(
    ctx: click.Context, game_number: str, won: bool, operator: str | None
) -> None:
    """Record whether the progressive prize was won within its calls this session."""
    with state(ctx).open_station() as st:
        view = games.progressive_result(st, game=game_number, won=won, operator=operator)
    emit(ctx, view, lambda: _progressive_text(view))


@progressive.command("posting")
@click.argument("name", required=False)
@click.option(
    "--pdf",
    "pdf_file",
    type=OutputPath(dir_okay=False, path_type=Path),
    help="Also write the posting as PDF.",
)
@json_option
@click.pass_context
@reads
def progressive_posting(ctx: click.Context, name: str | None, pdf_file: Path | None) -> None:
    """What rule I3 posts: each progressive game's prize and number of calls now."""
    with state(ctx).open_station() as st:
        views = games.progressive_posting(st, name)
        if pdf_file is not None:
            bingo_print.posting_pdf(st, views, pdf_file)
    emit(ctx, views, lambda: "\n".join(_progressive_text(v) for v in views))


@bingo.group("chest")
def chest() -> None:
    """The Treasure Chest Raffle (rule H)."""


def _chest_text(view: games.ChestView) -> str:
    return (
        f"{view.title} (game {view.game}): {view.sold} sold, ${view.gross}; participants "
        f"{len(view.participants)}; outcomes {len(view.outcomes)}; prizes ${view.prizes}"
    )


@chest.command("sell")
@click.option("--game", "game_number", required=True)
@click.option("--qty", default="1")
@buyer_options
@operator_option
@json_option
@click.pass_context
def chest_sell(
    ctx: click.Context,
    game_number: str,
    qty: str,
    buyer: str | None,
    manager: str | None,
    reason: str | None,
    operator: str | None,
) -> None:
    """Sell treasure chest entries at the program's price (H4: treasure chest/raffle sales);
    not to anyone working the session (D)."""
    with state(ctx).open_station() as st:
        view = games.chest_sell(
            st,
            game=game_number,
            qty=qty,
            buyer=buyer,
            operator=operator,
            manager=manager,
            reason=reason,
        )
    emit(ctx, view, lambda: _chest_text(view))


@chest.command("participant")
@click.option("--game", "game_number", required=True)
@click.option("--via", required=True, help="The game of this session whose winner takes part.")
@click.option("--player", help="The participant's player card (checked for rule D).")
@manager_decision_options
@operator_option
@json_option
@click.pass_context
def chest_participant(
    ctx: click.Context,
    game_number: str,
    via: str,
    player: str | None,
    manager: str | None,
    reason: str | None,
    operator: str | None,
) -> None:
    """Record the participant, chosen through another game of the same session (H3), not
    working it (D)."""
    with state(ctx).open_station() as st:
        view = games.chest_participant(
            st,
            game=game_number,
            via=via,
            player=player,
            operator=operator,
            manager=manager,
            reason=reason,
        )
    emit(ctx, view, lambda: _chest_text(view))


@chest.command("show")
@click.option("--game", "game_number", required=True)
@click.option("--session")
@json_option
@click.pass_context
@reads
def chest_show(ctx: click.Context, game_number: str, session: str | None) -> None:
    """A treasure chest game's entries sold, its participants, the keys' outcomes and prizes."""
    with state(ctx).open_station() as st:
        view = games.chest_status(st, game=game_number, session=session)
    emit(ctx, view, lambda: _chest_text(view))


@chest.command("open")
@click.option("--game", "game_number", required=True)
@click.option("--opened/--not-opened", required=True, help="Did the participant's key open it?")
@click.option("--keys-tried", default="1")
@click.option("--every-key-tried", is_flag=True, help="Not opened: every key was tried (H5).")
@click.option("--prize", help="The prize paid when opened.")
@operator_option
@json_option
@click.pass_context
def chest_open(
    ctx: click.Context,
    game_number: str,
    opened: bool,
    keys_tried: str,
    every_key_tried: bool,
    prize: str | None,
    operator: str | None,
) -> None:
    """Record the outcome of trying the keys (H5)."""
    with state(ctx).open_station() as st:
        view = games.chest_outcome(
            st,
            game=game_number,
            opened=opened,
            keys_tried=keys_tried,
            every_key_tried=every_key_tried,
            prize=prize,
            operator=operator,
        )
    emit(ctx, view, lambda: _chest_text(view))
