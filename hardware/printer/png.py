"""A receipt drawn as a PNG at the printer's resolution: for screens, the demo and
`booth receipt show`.

`Canvas` draws the way a thermal printer prints: characters in 12 x 24-dot cells (font A),
double width and height by scaling the dots, lines 30 dots apart (ESC 2), raster images dot for
dot, the QR code as python-escpos draws it. The ESC/POS interpreter (escpos_image.py) draws the
bytes sent to the printer on the same Canvas, so the PNG of a receipt and the image read back
from its print job are the same picture.

The font is DejaVu Sans Mono when fonts-dejavu-core is installed, else Pillow's default font.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from hardware.printer.layout import Cut, QrCode, Row, TextRow, qr_image, rows
from hardware.printer.profiles import PrinterProfile, get_profile
from pos.domain.receipt import Receipt

FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/local/share/fonts"),
)
FONT_FILES = {False: "DejaVuSansMono.ttf", True: "DejaVuSansMono-Bold.ttf"}
CELL_HEIGHT = 24  # font A: 12 x 24 dots
LINE_SPACING = 30  # the default line spacing (ESC 2), in dots
FEED_LINES_AT_CUT = 6  # python-escpos feeds 6 lines before cutting
MARGIN = 8  # white dots above the first line and below the cut, as paper leaves the printer

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@dataclass(frozen=True)
class Style:
    bold: bool = False
    double_width: bool = False
    double_height: bool = False
    underline: bool = False
    invert: bool = False


def render_png(receipt: Receipt, profile: PrinterProfile | str | None = None) -> bytes:
    """The receipt as PNG bytes, `profile.image_width_px` wide, as the paper will look."""
    return to_png(render_image(receipt, profile))


def render_image(receipt: Receipt, profile: PrinterProfile | str | None = None) -> Image.Image:
    profile = get_profile(profile)
    return draw_rows(rows(receipt, profile), profile)


def draw_rows(rows_: list[Row], profile: PrinterProfile, *, cut: bool = True) -> Image.Image:
    canvas = Canvas(profile)
    for row in rows_:
        if isinstance(row, TextRow):
            style = Style(row.bold, row.double_width, row.double_height)
            canvas.text_line([(ch, style) for ch in row.text], row.align)
        elif isinstance(row, Cut):
            canvas.feed(FEED_LINES_AT_CUT)
            if profile.has_cutter:
                canvas.cut()
        else:
            draw_qr(canvas, row)
    if cut:
        canvas.feed(FEED_LINES_AT_CUT)
        if profile.has_cutter:
            canvas.cut()
    return canvas.finish()


def draw_qr(canvas: Canvas, code: QrCode) -> None:
    """A QR code with the blank line before and the two after that python-escpos leaves."""
    canvas.feed(1)
    canvas.image(qr_image(code.data, code.module_px), "center")
    canvas.feed(2)


def to_png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


class Canvas:
    """A strip of thermal paper `profile.image_width_px` dots wide, printed line by line."""

    def __init__(self, profile: PrinterProfile) -> None:
        self.width = profile.image_width_px
        self.columns = profile.columns
        self.cell = profile.cell_px
        self._strips: list[Image.Image] = [_blank(self.width, MARGIN)]

    @property
    def height(self) -> int:
        return sum(strip.height for strip in self._strips)

    def feed(self, lines: int = 1, dots: int | None = None) -> None:
        """Feed `lines` lines of paper (or exactly `dots`)."""
        height = dots if dots is not None else lines * LINE_SPACING
        if height > 0:
            self._strips.append(_blank(self.width, height))

    def text_line(self, chars: list[tuple[str, Style]], align: str = "left") -> None:
        """Print one line of styled characters (already no wider than the paper)."""
        if not chars:
            self.feed(1)
            return
        tall = max(2 if style.double_height else 1 for _, style in chars)
        height = CELL_HEIGHT * tall
        used = sum(self.cell * (2 if style.double_width else 1) for _, style in chars)
        if align == "center":
            x = max(0, (self.width - used) // 2)
        elif align == "right":
            x = max(0, self.width - used)
        else:
            x = 0
        strip = _blank(self.width, max(LINE_SPACING, height + LINE_SPACING - CELL_HEIGHT))
        for char, style in chars:
            glyph = _glyph(char, style.bold, self.cell)
            if style.underline:
                glyph = glyph.copy()
                ImageDraw.Draw(glyph).line([(0, CELL_HEIGHT - 2), (self.cell, CELL_HEIGHT - 2)], 0)
            if style.invert:
                glyph = glyph.point(lambda v: 255 - v)
            w = self.cell * (2 if style.double_width else 1)
            h = CELL_HEIGHT * (2 if style.double_height else 1)
            if (w, h) != glyph.size:
                glyph = glyph.resize((w, h), Image.Resampling.NEAREST)
            strip.paste(glyph, (x, height - h))  # characters stand on the line's baseline
            x += w
        self._strips.append(strip)

    def image(self, image: Image.Image, align: str = "left") -> None:
        """Print a raster image dot for dot (mode "1" or "L", black = 0)."""
        image = image.convert("L")
        if image.width > self.width:
            image = image.crop((0, 0, self.width, image.height))
        if align == "center":
            x = (self.width - image.width) // 2
        elif align == "right":
            x = self.width - image.width
        else:
            x = 0
        strip = _blank(self.width, image.height)
        strip.paste(image, (x, 0))
        self._strips.append(strip)

    def cut(self) -> None:
        """Mark where the cutter (or the tear bar) parts the paper: a dotted line."""
        strip = _blank(self.width, 9)
        draw = ImageDraw.Draw(strip)
        for x in range(0, self.width, 8):
            draw.line([(x, 4), (x + 3, 4)], fill=0)
        self._strips.append(strip)

    def finish(self) -> Image.Image:
        strips = [*self._strips, _blank(self.width, MARGIN)]
        out = Image.new("L", (self.width, sum(s.height for s in strips)), 255)
        y = 0
        for strip in strips:
            out.paste(strip, (0, y))
            y += strip.height
        return out.convert("1")


def _blank(width: int, height: int) -> Image.Image:
    return Image.new("L", (width, height), 255)


@cache
def font(bold: bool = False) -> Font:
    """DejaVu Sans Mono 20 px (12 x 24 cells), else Pillow's default font."""
    for directory in FONT_DIRS:
        path = directory / FONT_FILES[bold]
        if path.exists():
            return ImageFont.truetype(str(path), 20)
    # Pillow's own font is proportional: the largest size whose widest letters fit a cell.
    for size in range(20, 9, -1):
        fallback = ImageFont.load_default(size)
        if max(fallback.getlength(c) for c in "MWmw@") <= 12:
            return fallback
    return ImageFont.load_default()


@cache
def _glyph(char: str, bold: bool, cell: int) -> Image.Image:
    """One character cell, black on white, without anti-aliasing (thermal dots are on or off)."""
    image = _blank(cell, CELL_HEIGHT)
    if char.strip():
        draw = ImageDraw.Draw(image)
        draw.fontmode = "1"
        face = font(bold)
        is_bold_face = (
            bold
            and isinstance(face, ImageFont.FreeTypeFont)
            and "Bold" in str(getattr(face, "path", ""))
        )
        width = draw.textlength(char, font=face)
        x = max(0, (cell - width) / 2)
        draw.text((x, 0), char, font=face, fill=0)
        if bold and not is_bold_face:
            draw.text((x + 1, 0), char, font=face, fill=0)  # double strike
    return image
