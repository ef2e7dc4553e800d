"""A receipt as ESC/POS bytes, made by python-escpos itself.

The receipt is "printed" on an `escpos.printer.Dummy` built with the profile's python-escpos
profile, and its `.output` is the job: the same code path a `Usb` or `Network` printer would
run, without a device. Nothing here reads the clock or the environment, so the same receipt
and profile always give the same bytes (the golden tests in tests/printer hold them).

Layout (see layout.py): initialise; the drawer kick when asked; the TRAINING/REPRINT banner
bold and double height; the lines of `Receipt.text_lines(columns)`; the headline double size;
the QR code, native (`GS ( k`) where the profile says so, else a raster image (`GS v 0`) through
python-escpos's image path; feed and cut.
"""

from __future__ import annotations

from typing import Any

from escpos.constants import QR_ECLEVEL_M, QR_MODEL_2
from escpos.printer import Dummy

from hardware.printer.layout import Cut, QrCode, Row, TextRow, rows
from hardware.printer.profiles import PrinterProfile, get_profile
from pos.domain.receipt import Receipt

#: The drawer kick connector pin: 2 on nearly every drawer cable (5 for a second drawer).
DRAWER_PIN = 2


def render_receipt(
    receipt: Receipt, profile: PrinterProfile | str | None = None, *, kick_drawer: bool = False
) -> bytes:
    """The print job for `receipt` on `profile` (a PrinterProfile or a name in PROFILES).
    `kick_drawer`: open the cash drawer as the receipt starts printing (cash sales)."""
    profile = get_profile(profile)
    return render_rows(rows(receipt, profile), profile, kick_drawer=kick_drawer)


def render_rows(
    rows_: list[Row], profile: PrinterProfile, *, kick_drawer: bool = False, cut: bool = True
) -> bytes:
    printer = _dummy(profile)
    printer.hw("INIT")
    if kick_drawer:
        printer.cashdraw(DRAWER_PIN)
    style = _Style(printer)
    for row in rows_:
        if isinstance(row, TextRow):
            style.apply(row)
            printer.textln(row.text)
        elif isinstance(row, Cut):
            style.reset()
            printer.cut()  # a two-part ticket: the stub comes off, the buyer's part follows
        else:
            _qr(printer, style, row)
    style.reset()
    if cut:
        printer.cut()  # feeds past the tear bar first; no cutter command where the profile has none
    return bytes(printer.output)


def kick_drawer_bytes(profile: PrinterProfile | str | None = None, pin: int = DRAWER_PIN) -> bytes:
    """The job that only opens the cash drawer (ESC p), for a drawer opened without a receipt."""
    printer = _dummy(get_profile(profile))
    printer.cashdraw(pin)
    return bytes(printer.output)


def _dummy(profile: PrinterProfile) -> Dummy:
    return Dummy(profile=profile.escpos_profile)


def _qr(printer: Dummy, style: _Style, code: QrCode) -> None:
    style.reset()
    if code.native:
        # The same vertical space python-escpos leaves around an image QR code.
        printer.set(align="center")
        style.align = "center"
        printer.ln()
        printer.qr(code.data, ec=QR_ECLEVEL_M, size=code.module_px, model=QR_MODEL_2, native=True)
        printer.ln(2)
    else:
        # python-escpos renders it with the qrcode package, centres it to the profile's width
        # and sends it as a GS v 0 raster image.
        printer.qr(
            code.data,
            ec=QR_ECLEVEL_M,
            size=code.module_px,
            model=QR_MODEL_2,
            native=False,
            image_arguments={"impl": "bitImageRaster", "center": True},
        )


class _Style:
    """The text style last sent, so each row sends only what changes."""

    def __init__(self, printer: Dummy) -> None:
        self.printer = printer
        self.align = "left"
        self.bold = False
        self.size = (False, False)

    def apply(self, row: TextRow) -> None:
        changes: dict[str, Any] = {}
        size = (row.double_width, row.double_height)
        if size != self.size:
            # ESC ! also clears emphasis: say bold again after a size change.
            changes.update(
                normal_textsize=size == (False, False),
                double_width=row.double_width,
                double_height=row.double_height,
                bold=row.bold,
            )
        elif row.bold != self.bold:
            changes["bold"] = row.bold
        if row.align != self.align:
            changes["align"] = row.align
        if changes:
            self.printer.set(**changes)
        self.align, self.bold, self.size = row.align, row.bold, size

    def reset(self) -> None:
        self.apply(TextRow(""))
