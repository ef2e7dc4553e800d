"""booth deal ..., booth house ..., booth rules ..."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

from pos.cli.common import emit, json_option, operator_option, reads, state
from pos.cli.file_params import InputPath, OutputPath
from pos.domain.rulebook import rules_table
from pos.errors import BadInput
from pos.services import deals as deal_service
from pos.services import settings as settings_service


def _deal_text(d: dict[str, Any]) -> str:
    lines = [
        f"{d['serial']}  {d['name']} ({d['game']}, form {d['form']}, {d['manufacturer']})",
        f"  state {d['state']}" + (f", bin {d['bin']} at {d['holder']}" if d["bin"] else ""),
        *(
            ["  MARKED TAMPERED: never goes into play, sells or pays (rule C1)"]
            if d.get("tampered")
            else []
        ),
        f"  {d['tickets']} tickets at ${d['price']}: ideal gross ${d['ideal_gross']}, "
        f"prizes ${d['total_prizes']}, ideal net ${d['ideal_net']}",
        f"  sold {d['tickets_sold']} (left {d['tickets_left']}), gross ${d['gross']}, "
        f"prizes paid ${d['prizes_paid']}, net so far ${d['net']}",
    ]
    for tier in d["tiers"]:
        lines.append(
            f"    ${tier['amount']:>9} x {tier['count']:<4} paid {tier['paid']:<4} "
            f"left {tier['left']}"
        )
    if d["keep_until"]:
        lines.append(f"  closed with {d['unsold']} unsold; keep until {d['keep_until']}")
    if d.get("offered_in") or d.get("close_note"):
        lines.append(f"  offered in: {', '.join(d['offered_in']) or 'no session'}")
        lines.append(f"  efforts: {d['close_note'] or '-'}")
    if d.get("close_override"):
        lines.append(f"  closed by override: {d['close_override']}")
    return "\n".join(lines)


@click.group()
def deal() -> None:
    """Deals of pull-tabs, seal cards and event games."""


@deal.command("receive")
@click.option(
    "--flare",
    "flare_file",
    type=InputPath(dir_okay=False, path_type=Path),
    help="The flare as JSON or TOML (the interchange format).",
)
@click.option("--serial")
@click.option("--game", type=click.Choice(["pull-tab", "seal-card", "event"]))
@click.option("--name")
@click.option("--form")
@click.option("--manufacturer")
@click.option("--tickets")
@click.option("--price", help="Ticket price, e.g. 1.00")
@click.option(
    "--prize",
    "prizes",
    multiple=True,
    metavar="AMOUNTxCOUNT",
    help="A prize tier, e.g. 500.00x1 (repeat for each tier).",
)
@click.option("--supplier-name")
@click.option("--supplier-address")
@click.option("--invoice")
@click.option(
    "--sheet-and-seal-present", is_flag=True, help="Seal cards: sheet and seal confirmed."
)
@click.option("--tampered", is_flag=True, help="The deal arrived marked, defaced or tampered.")
@operator_option
@json_option
@click.pass_context
def deal_receive(
    ctx: click.Context,
    /,
    flare_file: Path | None,
    prizes: tuple[str, ...],
    operator: str | None,
    **fields: Any,
) -> None:
    """Take in a deal from its flare, checked against the rulebook."""
    if flare_file is not None:
        flare = deal_service.read_flare_file(flare_file)
        if fields.get("tampered"):
            flare = dataclasses.replace(flare, tampered=True)
    else:
        flare = deal_service.flare_from_mapping(_flare_from_options(prizes, fields))
    with state(ctx).open_station() as st:
        result = deal_service.receive_deal(st, flare, operator=operator)
    emit(ctx, result, lambda: "Received\n" + _deal_text(result))


def _typed_amount(text: str, field: str) -> str:
    """An amount typed as people write it ("$1,000.00") in the flare's form ("1000.00");
    anything else is left for the flare's own checks to name."""
    value = text.strip()
    if not value.startswith("$") and "," not in value:
        return value
    from pos.domain.money import format_amount
    from pos.domain.typed import parse_typed_amount
    from pos.services.inputs import checked_input

    with checked_input(field):
        return format_amount(parse_typed_amount(value, field, allow_zero=True))


def _flare_from_options(prizes: tuple[str, ...], fields: dict[str, Any]) -> dict[str, Any]:
    tiers = []
    for text in prizes:
        amount, sep, count = text.lower().partition("x")
        if not sep:
            raise BadInput("prize", f"{text!r} is not AMOUNTxCOUNT (e.g. 500.00x1)")
        tiers.append({"amount": _typed_amount(amount, "prize"), "count": count.strip()})
    data: dict[str, Any] = {
        key: fields[key]
        for key in ("serial", "game", "name", "form", "manufacturer", "tickets", "price", "invoice")
        if fields.get(key) is not None
    }
    if data.get("price") is not None:
        data["price"] = _typed_amount(str(data["price"]), "price")
    data["prizes"] = tiers
    data["supplier"] = {
        "name": fields.get("supplier_name") or "",
        "address": fields.get("supplier_address") or "",
    }
    data["sheet_and_seal_present"] = bool(fields.get("sheet_and_seal_present"))
    data["tampered"] = bool(fields.get("tampered"))
    return data


@deal.command("open")
@click.argument("serial")
@click.option("--bin", "bin_name", required=True, help="This station's drawer or dispenser column.")
@operator_option
@json_option
@click.pass_context
def deal_open(ctx: click.Context, serial: str, bin_name: str, operator: str | None) -> None:
    """Put a deal in play in one of this station's bins."""
    with state(ctx).open_station() as st:
        result = deal_service.open_deal(st, serial, bin_name=bin_name, operator=operator)
    emit(ctx, result, lambda: "In play\n" + _deal_text(result))


@deal.command("close")
@click.argument("serial")
@click.option("--unsold", required=True, help="The unsold tickets counted.")
@click.option("--note", help="With tickets unsold: the efforts made to sell them (C4).")
@click.option(
    "--override", is_flag=True, help="Close before a scheduled session selling its tickets."
)
@click.option("--reason", help="Why, with --override (recorded).")
@operator_option
@json_option
@click.pass_context
def deal_close(
    ctx: click.Context,
    serial: str,
    unsold: str,
    note: str | None,
    override: bool,
    reason: str | None,
    operator: str | None,
) -> None:
    """Close a deal, recording its unsold count, keep-until date and, with tickets unsold, the
    sessions it was offered in and the efforts made (C4)."""
    if override and not (reason or "").strip():
        raise BadInput("reason", "say why the manager overrides (--reason TEXT)")
    if reason is not None and not override:
        raise BadInput("reason", "--reason goes with --override")
    with state(ctx).open_station() as st:
        result = deal_service.close_deal(
            st,
            serial,
            unsold=unsold,
            operator=operator,
            note=note,
            override_reason=reason if override else None,
        )
    emit(ctx, result, lambda: "Closed\n" + _deal_text(result))


@deal.command("show")
@click.argument("serial")
@json_option
@click.pass_context
@reads
def deal_show(ctx: click.Context, serial: str) -> None:
    """A deal's flare, sales, prizes paid and what is left."""
    with state(ctx).open_station() as st:
        result = deal_service.deal_summary(st, serial)
    emit(ctx, result, lambda: _deal_text(result))


@deal.command("list")
@json_option
@click.pass_context
@reads
def deal_list(ctx: click.Context) -> None:
    """Every deal on file here, with its state."""
    with state(ctx).open_station() as st:
        rows = deal_service.list_deals(st)
    emit(
        ctx,
        rows,
        lambda: (
            "\n".join(
                f"{r['serial']:<12} {r['state']:<13} {r['game']:<10} {r['name']:<24} "
                f"{r['sold']}/{r['tickets']} sold"
                + (f"  bin {r['bin']}@{r['holder']}" if r["bin"] else "")
                for r in rows
            )
            or "No deals yet."
        ),
    )


@click.group()
def house() -> None:
    """The hall's posted house rules."""


@house.command("set")
@click.argument("key")
@click.argument("value")
@operator_option
@json_option
@click.pass_context
def house_set(ctx: click.Context, key: str, value: str, operator: str | None) -> None:
    """Turn a house rule on or off (e.g. commingling on), or set a sign-on setting
    (sign-on badge|badge-and-pin, lock-minutes N)."""
    from pos.services import signon

    with state(ctx).open_station() as st:
        if key.strip().lower() in signon.HOUSE_SETTINGS:
            result = signon.set_house_setting(st, key, value, operator=operator)
            emit(ctx, result, f"House setting {result['key']} is {result['value']}.")
            return
        result = settings_service.set_house_rule(st, key, value, operator=operator)
    emit(ctx, result, f"House rule {result['key']} is {result['value']}.")


@house.command("show")
@json_option
@click.pass_context
@reads
def house_show(ctx: click.Context) -> None:
    """The house rules and what each means."""
    from pos.services import signon

    with state(ctx).open_station() as st:
        rules = settings_service.house_rules(st)
        chosen = signon.house_settings(st)
    emit(
        ctx,
        {**rules, **chosen},
        lambda: "\n".join(
            [
                f"{key:<22} {'on ' if on else 'off'}  {settings_service.HOUSE_RULES[key].meaning}"
                for key, on in rules.items()
            ]
            + [
                f"{key:<22} {value}  ({signon.HOUSE_SETTINGS[key]})"
                for key, value in chosen.items()
            ]
        ),
    )


@house.command("post")
@click.argument("key")
@click.option("--text", help="The rule as the hall writes it.")
@click.option(
    "--file",
    "text_file",
    type=InputPath(dir_okay=False, path_type=Path),
    help="Read the rule's text from a UTF-8 file.",
)
@operator_option
@json_option
@click.pass_context
def house_post(
    ctx: click.Context, key: str, text: str | None, text_file: Path | None, operator: str | None
) -> None:
    """Post a house rule's text (rule A): a new version, dated today; every version is kept."""
    with state(ctx).open_station() as st:
        result = settings_service.post_house_rule(
            st, key, text=text, file=text_file, operator=operator
        )
    emit(
        ctx,
        result,
        f"House rule {result['key']} version {result['version']} posted {result['posted_on']}.",
    )


@house.command("posted")
@click.option("--all", "every_version", is_flag=True, help="Every version, not only the current.")
@json_option
@click.pass_context
@reads
def house_posted(ctx: click.Context, every_version: bool) -> None:
    """The posted house rules' text, each with its version and the date it was posted."""
    with state(ctx).open_station() as st:
        rows = settings_service.posted_house_rules(st, every_version=every_version)
    emit(
        ctx,
        rows,
        lambda: (
            "\n\n".join(
                f"{r['key']} (version {r['version']}, posted {r['posted_on']})\n{r['text']}"
                for r in rows
            )
            or "No house rules posted yet."
        ),
    )


@house.command("sheet")
@click.option("--pdf", "pdf_file", type=OutputPath(dir_okay=False, path_type=Path), required=True)
@json_option
@click.pass_context
@reads
def house_sheet(ctx: click.Context, pdf_file: Path) -> None:
    """The printable house-rules sheet (PDF): the posted rules and the practices."""
    from pos.services.report_pdf import write_house_sheet_pdf

    with state(ctx).open_station() as st:
        sheet = settings_service.house_sheet(st)
    write_house_sheet_pdf(sheet, pdf_file)
    result = {"pdf": str(pdf_file), "rules": len(sheet["rules"])}
    emit(ctx, result, f"House-rules sheet written to {pdf_file} ({result['rules']} rules).")


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
@reads
def rules(ctx: click.Context) -> None:
    """The rulebook: each rule, its citation, and the hall's settings."""
    if ctx.invoked_subcommand is not None:
        return
    with state(ctx).open_station() as st:
        table = rules_table(settings_service.rulebook_settings(st))
    emit(
        ctx,
        table,
        lambda: "\n".join(f"{r['id']:<5} {r['citation']:<34} {r['sentence']}" for r in table),
    )


@rules.command("set")
@click.argument("key")
@click.argument("value")
@operator_option
@json_option
@click.pass_context
def rules_set(ctx: click.Context, key: str, value: str, operator: str | None) -> None:
    """Change a rulebook setting where the law changed (e.g. prize_cap 2000.00)."""
    with state(ctx).open_station() as st:
        result = settings_service.set_rulebook_setting(st, key, value, operator=operator)
    emit(ctx, result, f"Rulebook setting {result['key']} is now {result['value']}.")
