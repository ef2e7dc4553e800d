"""A receipt as printable rows: the one layout the ESC/POS bytes and the PNG both draw.

The text is `Receipt.text_lines(columns)` line for line; this module only adds how each line is
printed: the TRAINING/REPRINT banner bold and double height, the organisation bold, the headline
("PUNCH NOW", "VOID") double size, then the QR code and the cut. A line wider than the paper
(the training banner on 32 columns) is wrapped here, so printer and screen wrap it alike.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Literal

import qrcode
import qrcode.constants
from PIL import Image

from hardware.printer.profiles import PrinterProfile
from pos.domain.receipt import Receipt

Align = Literal["left", "center", "right"]

#: QR error correction: level M, as qr_payload.py sizes its payload for.
QR_EC = qrcode.constants.ERROR_CORRECT_M
#: The module size wanted, in dots, by paper width; smaller when a long code would not fit.
QR_MODULE_PX = {58: 5, 80: 6}
#: Quiet zone python-escpos draws around an image QR code, in modules.
QR_BORDER = 1


@dataclass(frozen=True)
class TextRow:
    text: str
    align: Align = "left"
    bold: bool = False
    double_width: bool = False
    double_height: bool = False


@dataclass(frozen=True)
class QrCode:
    data: str
    module_px: int
    native: bool


#: Under a stub, where a printer without a cutter leaves the paper to be torn.
TEAR_LINE = "- - - - - - tear here - - - - - -"


@dataclass(frozen=True)
class Cut:
    """The paper is cut here: between a two-part ticket's stub and the buyer's part."""


Row = TextRow | QrCode | Cut


def rows(receipt: Receipt, profile: PrinterProfile) -> list[Row]:
    """The receipt's printable rows for `profile`, top to bottom (the cut follows)."""
    width = profile.columns
    lines = receipt.text_lines(width)
    banner = receipt.banner()
    out: list[Row] = stub_rows(receipt, width)
    for mark in banner:
        for part in _wrap(mark.strip(), width):
            out.append(TextRow(part, "center", bold=True, double_height=True))
    # text_lines wraps each mark as _wrap does: skip exactly the lines the banner took there.
    body = lines[sum(len(_wrap(mark.strip(), width)) for mark in banner) :]
    headline_at = _headline_index(receipt, body)
    for index, line in enumerate(body):
        if index == headline_at:
            text = line.strip()
            double_width = len(text) <= width // 2
            for part in _wrap(text, width // 2 if double_width else width):
                out.append(
                    TextRow(
                        part, "center", bold=True, double_width=double_width, double_height=True
                    )
                )
        elif len(line) > width:
            out.extend(TextRow(part, "center") for part in _wrap(line.strip(), width))
        else:
            out.append(TextRow(line.rstrip(), bold=index == 0))  # index 0: the organisation
    if receipt.qr:
        out.append(QrCode(receipt.qr, qr_module_px(profile, receipt.qr), profile.native_qr))
    out.extend(code_rows(receipt, width))
    return out


def code_rows(receipt: Receipt, width: int) -> list[Row]:
    """Under the QR code, a voucher's short code for typing: its label, then the code in
    double size where it fits (bold, normal width where it does not)."""
    lines = receipt.code_lines()
    if not lines:
        return []
    *labels, code = lines
    out: list[Row] = [TextRow(part, "center") for label in labels for part in _wrap(label, width)]
    double_width = len(code) <= width // 2
    out.append(TextRow(code, "center", bold=True, double_width=double_width, double_height=True))
    return out


def stub_rows(receipt: Receipt, width: int) -> list[Row]:
    """A two-part ticket's stub, then the cut: the banner, the stub's lines (its number, the
    line starting "No.", double size), as the buyer's part prints them."""
    if not receipt.stub:
        return []
    out: list[Row] = []
    for mark in receipt.banner():
        for part in _wrap(mark.strip(), width):
            out.append(TextRow(part, "center", bold=True, double_height=True))
    for line in receipt.stub:
        if line.startswith("No. "):
            double_width = len(line) <= width // 2
            out.append(
                TextRow(line, "center", bold=True, double_width=double_width, double_height=True)
            )
        else:
            out.extend(TextRow(part, "center") for part in _wrap(line, width))
    out.append(TextRow(TEAR_LINE.center(width)[:width].rstrip()))
    out.append(Cut())
    return out


def text_of(rows_: list[Row]) -> list[str]:
    """The text rows as a printer prints them (stripped of padding): for comparisons."""
    return [row.text.strip() for row in rows_ if isinstance(row, TextRow)]


def _headline_index(receipt: Receipt, body: list[str]) -> int | None:
    """Where text_lines put the headline: just before the notes (checked, not assumed)."""
    if not receipt.headline:
        return None
    index = len(body) - len(receipt.notes) - 1
    if 0 <= index < len(body) and body[index].strip() == receipt.headline.strip():
        return index
    return None


def _wrap(text: str, width: int) -> list[str]:
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def qr_version(data: str) -> int:
    """The smallest version that holds `data` at level M (sized only: no matrix is drawn)."""
    code = qrcode.QRCode(version=None, error_correction=QR_EC, border=QR_BORDER)
    code.add_data(data)
    return int(code.best_fit())


def qr_module_px(profile: PrinterProfile, data: str) -> int:
    """Dots per module: QR_MODULE_PX for the paper, less if the code would be wider than the
    line (a long payload), at least 2."""
    modules = 17 + 4 * qr_version(data) + 2 * QR_BORDER
    wanted = QR_MODULE_PX[profile.width_mm]
    return max(2, min(wanted, profile.image_width_px // modules))


def qr_image(data: str, module_px: int) -> Image.Image:
    """The QR code as python-escpos draws it for `qr(native=False)`: version fitted, level M,
    a one-module border; mode "1", black modules 0. The ESC/POS interpreter draws a native
    code the same way, so paper, PNG and the bytes read back all agree."""
    code = qrcode.QRCode(version=None, box_size=module_px, border=QR_BORDER, error_correction=QR_EC)
    code.add_data(data)
    code.make(fit=True)
    image: Image.Image = code.make_image().get_image()
    return image.convert("1")
