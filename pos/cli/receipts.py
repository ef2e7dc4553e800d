"""booth receipt ..., booth printer ..., booth voucher ..."""

from __future__ import annotations

from pathlib import Path

import click

from pos.cli.common import configured_printer, emit, json_option, operator_option, reads, state
from pos.cli.file_params import OutputPath
from pos.domain.money import format_money
from pos.errors import BadInput, HardwareFailure
from pos.services import devices, print_queue, receipts, vouchers
from pos.services.outputs import replacing


@click.group()
def receipt() -> None:
    """Receipts: verify a QR code, show or reprint a receipt."""


@receipt.command("verify")
@click.argument("text")
@json_option
@click.pass_context
@reads
def receipt_verify(ctx: click.Context, text: str) -> None:
    """Say whether a receipt's QR code is genuine, and what it is (exit 4 if refused)."""
    with state(ctx).open_station() as st:
        result = receipts.verify_payload(st, text)
    emit(
        ctx,
        result,
        f"GENUINE: {result['kind']} #{result['number']} of {result['station']}, "
        f"${result['amount']}, {result['time']}"
        + ("" if result["on_file"] else " (not yet on file at this station)")
        + _raffle_text(result.get("raffle")),
    )


def _raffle_text(raffle: dict[str, object] | None) -> str:
    """A raffle ticket's line under GENUINE: its raffle, number and state now."""
    if not raffle:
        return ""
    text = f"\nraffle {raffle['raffle']} ({raffle['name']}) ticket {raffle['number']}: "
    text += str(raffle["status"]).upper()
    prize = raffle.get("prize")
    if isinstance(prize, dict):
        text += f" - won {prize['description']} (${prize['value']})"
    return text


@receipt.command("show")
@click.argument("number")
@click.option("--station", help="Whose receipt (default: this station's).")
@click.option(
    "--png",
    "png_file",
    type=OutputPath(dir_okay=False, path_type=Path),
    help="Also render it to PNG (the same layout as the paper).",
)
@json_option
@click.pass_context
@reads
def receipt_show(
    ctx: click.Context, number: str, station: str | None, png_file: Path | None
) -> None:
    """Show a receipt as it prints."""
    with state(ctx).open_station() as st:
        shown = receipts.receipt(st, station or st.id, receipts.parse_number(number))
        if png_file is not None:
            from pos.cli.adapters import load_receipt_printer

            profile = devices.device_settings(st).get("printer_profile")
            renderer = load_receipt_printer("dummy:show", st.directory, profile)
            image = renderer.png(shown)
            with replacing(png_file) as partial:
                partial.write_bytes(image)
    stub = [*shown.stub, "- - - - - - tear here - - - - - -"] if shown.stub else []
    emit(ctx, receipts.receipt_json(shown), lambda: "\n".join([*stub, *shown.text_lines(48)]))


@receipt.command("reprint")
@click.argument("number")
@operator_option
@json_option
@click.pass_context
def receipt_reprint(ctx: click.Context, number: str, operator: str | None) -> None:
    """Print a receipt again, marked REPRINT."""
    with state(ctx).open_station() as st:
        result = receipts.reprint(
            st, receipts.parse_number(number), configured_printer(st), operator=operator
        )
    emit(ctx, result, f"Receipt {result['receipt']} reprinted (marked REPRINT).")


@click.group()
def printer() -> None:
    """This station's receipt printer."""


@printer.command("set")
@click.argument("spec")
@click.option("--profile", help="Printer model: epson-tm-t20, epson-tm-t88, generic-58, ...")
@operator_option
@json_option
@click.pass_context
def printer_set(ctx: click.Context, spec: str, profile: str | None, operator: str | None) -> None:
    """Choose the printer: usb:VID:PID, net:HOST:PORT, serial:DEV, file:PATH or dir:DIR."""
    from pos.cli.adapters import load_receipt_printer

    with state(ctx).open_station() as st:
        load_receipt_printer(spec, st.directory, profile)
        result = devices.set_device(st, "printer", spec, operator=operator)
        if profile:
            devices.set_device(st, "printer_profile", profile, operator=operator)
    emit(ctx, result, f"Printer: {spec}" + (f" ({profile})" if profile else "") + ".")


@printer.command("status")
@json_option
@click.pass_context
@reads
def printer_status(ctx: click.Context) -> None:
    """The printer's state and the receipts waiting for it."""
    with state(ctx).open_station() as st:
        device = configured_printer(st)
        status = device.status() if device is not None else {"printer": None}
        queue = print_queue.queue_status(st)
    data = {**status, **queue}
    emit(
        ctx,
        data,
        f"Printer {status.get('printer') or 'not set'}: "
        f"{'online' if status.get('online') else 'NOT ready'}"
        + (f" ({status.get('problem')})" if status.get("problem") else "")
        + f"; {len(queue['queued'])} receipts queued"
        + (f"; last error: {queue['last_error']}" if queue["last_error"] else ""),
    )


@printer.command("test")
@json_option
@click.pass_context
def printer_test(ctx: click.Context) -> None:
    """Print a test page (and open the drawer)."""
    from zoneinfo import ZoneInfo

    from pos.domain.receipt import Line, Receipt

    with state(ctx).open_station() as st:
        device = configured_printer(st)
        if device is None:
            raise BadInput("printer", "no printer set: booth printer set SPEC")
        page = Receipt(
            kind="test",
            organisation=st.hall.organisation,
            location=st.hall.location,
            station=st.id,
            number=0,
            issued_at=st.clock.now().astimezone(ZoneInfo(st.hall.time_zone)),
            operator=None,
            lines=(Line("Printer test: if you can read this, it works."),),
            training=st.hall.training,
        )
        try:
            device.print_receipt(page, name=f"{st.id}-test")
            device.kick_drawer()
        except Exception as exc:
            raise HardwareFailure(f"printer test failed: {exc}") from None
    emit(ctx, {"printed": True}, "Test page sent.")


@click.group()
def voucher() -> None:
    """Vouchers: issue for cash, redeem once."""


@voucher.command("issue")
@click.argument("amount")
@operator_option
@json_option
@click.pass_context
def voucher_issue(ctx: click.Context, amount: str, operator: str | None) -> None:
    """Issue a voucher for cash taken in. Its short code (printed under its QR code, for typing
    where the QR will not scan) is `code` in --json."""
    with state(ctx).open_station() as st:
        result = vouchers.issue_voucher(st, amount, reason="cash", operator=operator)
    emit(
        ctx,
        result,
        f"Voucher #{result.voucher} for {format_money(result.amount)}; code {result.code}.",
    )


@voucher.command("redeem")
@click.argument("code")
@operator_option
@json_option
@click.pass_context
def voucher_redeem(ctx: click.Context, code: str, operator: str | None) -> None:
    """Pay a voucher once, from its QR code or the short code printed under it (typed: dashes
    and spaces optional, any case). A typo in a short code exits 2, a voucher already paid or
    not on file here 1, a QR code forged or of another hall 4."""
    with state(ctx).open_station() as st:
        result = vouchers.redeem_voucher(st, code, operator=operator)
    emit(
        ctx,
        result,
        f"PAY {format_money(result.paid)} for voucher #{result.voucher} of {result.station}.",
    )
