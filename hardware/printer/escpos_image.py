"""ESC/POS bytes back to paper: a small interpreter for the commands Booth's print jobs use.

It reads what render.py (through python-escpos) emits and draws it on png.Canvas, the canvas
the PNG rendering uses: text with its code page, emphasis, double width/height, alignment,
underline and reverse; line feeds and ESC d feeds; raster images (GS v 0); native QR codes
(GS ( k: the stored data is kept, and drawn again with the qrcode package at the module size
and error correction level the job asked for); the drawer kick and the cut. Anything else is
refused with UnsupportedEscPos naming the command and its offset, so a test notices a job
carrying something it did not expect.

No maintained ESC/POS renderer on PyPI fits (the known ones are PHP's escpos-tools and npm
packages), hence this one, kept to what the project prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache

import qrcode
import qrcode.constants
from escpos.capabilities import get_profile as escpos_profile
from escpos.codepages import CodePages
from PIL import Image

from hardware.printer.errors import UnsupportedEscPos
from hardware.printer.layout import QR_BORDER
from hardware.printer.png import LINE_SPACING, Canvas, Style
from hardware.printer.profiles import PrinterProfile, get_profile

ESC, GS, DLE, FS = 0x1B, 0x1D, 0x10, 0x1C
LF, CR, HT = 0x0A, 0x0D, 0x09

QR_EC_LEVELS = {
    48: qrcode.constants.ERROR_CORRECT_L,
    49: qrcode.constants.ERROR_CORRECT_M,
    50: qrcode.constants.ERROR_CORRECT_Q,
    51: qrcode.constants.ERROR_CORRECT_H,
}
ALIGNS = {0: "left", 48: "left", 1: "center", 49: "center", 2: "right", 50: "right"}


@dataclass
class Printout:
    """What a print job put on paper."""

    image: Image.Image
    lines: list[str] = field(default_factory=list)  # each printed text line, right-stripped
    qr_codes: list[str] = field(default_factory=list)  # data of each native QR code printed
    images: int = 0  # raster images printed (an image QR code is one)
    drawer_kicks: list[int] = field(default_factory=list)  # pins kicked (ESC p m)
    cuts: int = 0


def to_image(data: bytes, profile: PrinterProfile | str | None = None) -> Image.Image:
    """The paper that `data` prints on `profile`."""
    return interpret(data, profile).image


def interpret(data: bytes, profile: PrinterProfile | str | None = None) -> Printout:
    """Run a print job on a simulated `profile` printer; raises UnsupportedEscPos."""
    return _Interpreter(get_profile(profile), data).run()


@dataclass
class _QrState:
    size: int = 3
    ec: int = 48
    model: int = 50
    data: bytes | None = None


class _Interpreter:
    def __init__(self, profile: PrinterProfile, data: bytes) -> None:
        self.profile = profile
        self.data = data
        self.pos = 0
        self.canvas = Canvas(profile)
        self.out = Printout(image=Image.new("1", (1, 1)))
        self._init()

    def _init(self) -> None:
        self.style = Style()
        self.align = "left"
        self.codepage: str | None = None
        self.line: list[tuple[str, Style]] = []
        self.line_spacing = LINE_SPACING
        self.qr = _QrState()

    # -- reading --------------------------------------------------------------------------

    def _take(self, count: int, what: str) -> bytes:
        if self.pos + count > len(self.data):
            raise UnsupportedEscPos(
                f"ESC/POS job ends inside {what} at offset {self.pos} "
                f"(needs {count} bytes, {len(self.data) - self.pos} left)"
            )
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk

    def _byte(self, what: str) -> int:
        return self._take(1, what)[0]

    def _unknown(self, prefix: str, byte: int, at: int) -> UnsupportedEscPos:
        shown = chr(byte) if 0x20 < byte < 0x7F else f"0x{byte:02x}"
        return UnsupportedEscPos(
            f"ESC/POS command {prefix} {shown} at offset {at} is not supported"
        )

    # -- running --------------------------------------------------------------------------

    def run(self) -> Printout:
        while self.pos < len(self.data):
            at = self.pos
            byte = self._byte("text")
            if byte == ESC:
                self._esc(at)
            elif byte == GS:
                self._gs(at)
            elif byte == DLE:
                self._dle(at)
            elif byte == LF:
                self._print_line(feed_empty=True)
            elif byte == CR:
                continue
            elif byte == HT:
                self._char(" ")
            elif byte < 0x20 or byte == 0x7F:
                raise self._unknown("control", byte, at)
            else:
                self._char(self._decode(byte))
        self._print_line(feed_empty=False)
        self.out.image = self.canvas.finish()
        return self.out

    def _decode(self, byte: int) -> str:
        if byte < 0x80:
            return chr(byte)
        if self.codepage is None:
            return "?"
        return _codepage_chars(self.codepage)[byte - 0x80]

    def _char(self, char: str) -> None:
        width = sum(2 if s.double_width else 1 for _, s in self.line)
        if width + (2 if self.style.double_width else 1) > self.profile.columns:
            self._print_line(feed_empty=False)  # the printer wraps a full line
        self.line.append((char, self.style))

    def _print_line(self, *, feed_empty: bool) -> None:
        if self.line:
            self.canvas.text_line(self.line, self.align)
            self.out.lines.append("".join(ch for ch, _ in self.line).rstrip())
            self.line = []
        elif feed_empty:
            self.canvas.feed(dots=self.line_spacing)

    def _esc(self, at: int) -> None:
        command = self._byte("ESC")
        if command == ord("@"):
            self._print_line(feed_empty=False)
            self._init()
        elif command == ord("!"):
            mode = self._byte("ESC !")
            self.style = replace(
                self.style,
                bold=bool(mode & 0x08),
                double_height=bool(mode & 0x10),
                double_width=bool(mode & 0x20),
                underline=bool(mode & 0x80),
            )
        elif command in (ord("E"), ord("G")):
            self.style = replace(self.style, bold=bool(self._byte("ESC E") & 1))
        elif command == ord("-"):
            self.style = replace(self.style, underline=self._byte("ESC -") in (1, 2, 49, 50))
        elif command == ord("a"):
            value = self._byte("ESC a")
            self.align = ALIGNS.get(value, self.align)
        elif command == ord("t"):
            self._codepage(self._byte("ESC t"), at)
        elif command in (ord("M"), ord("{"), ord("V"), ord("c")):
            # font, upside down, rotation, panel buttons (ESC c 5 n): no effect on this paper
            if command == ord("c"):
                self._byte("ESC c")
            self._byte("ESC")
        elif command == ord("d"):
            self._print_line(feed_empty=False)
            self.canvas.feed(self._byte("ESC d"))
        elif command == ord("J"):
            self._print_line(feed_empty=False)
            self.canvas.feed(dots=self._byte("ESC J"))
        elif command == ord("2"):
            self.line_spacing = LINE_SPACING
        elif command == ord("3"):
            self.line_spacing = self._byte("ESC 3")
        elif command == ord("p"):
            pin = self._byte("ESC p")
            self._take(2, "ESC p")
            self.out.drawer_kicks.append(5 if pin in (1, 49) else 2)
        else:
            raise self._unknown("ESC", command, at)

    def _gs(self, at: int) -> None:
        command = self._byte("GS")
        if command == ord("!"):
            size = self._byte("GS !")
            self.style = replace(
                self.style, double_width=(size >> 4) > 0, double_height=(size & 0x0F) > 0
            )
        elif command == ord("B"):
            self.style = replace(self.style, invert=bool(self._byte("GS B") & 1))
        elif command == ord("b"):
            self._byte("GS b")  # smoothing
        elif command == ord("V"):
            self._print_line(feed_empty=False)
            mode = self._byte("GS V")
            if mode in (65, 66, 97, 98):
                self.canvas.feed(dots=self._byte("GS V"))
            self.canvas.cut()
            self.out.cuts += 1
        elif command == ord("v"):
            self._raster(at)
        elif command == ord("("):
            function = self._byte("GS (")
            if function != ord("k"):
                raise self._unknown("GS (", function, at)
            self._two_d_code(at)
        else:
            raise self._unknown("GS", command, at)

    def _dle(self, at: int) -> None:
        command = self._byte("DLE")
        if command == 0x04:  # DLE EOT n: a real-time status request, nothing printed
            self._byte("DLE EOT")
        else:
            raise self._unknown("DLE", command, at)

    def _codepage(self, number: int, at: int) -> None:
        pages = escpos_profile(self.profile.escpos_profile).codePages
        name = pages.get(number, pages.get(str(number)))
        if name is None:
            raise UnsupportedEscPos(
                f"ESC t {number} at offset {at}: no such code page on {self.profile.name}"
            )
        self.codepage = str(name)

    def _raster(self, at: int) -> None:
        if self._byte("GS v") != ord("0"):
            raise self._unknown("GS v", self.data[self.pos - 1], at)
        density = self._byte("GS v 0")
        header = self._take(4, "GS v 0")
        width_bytes = header[0] | header[1] << 8
        height = header[2] | header[3] << 8
        bits = self._take(width_bytes * height, "GS v 0 image")
        self._print_line(feed_empty=False)
        image = Image.frombytes("1", (width_bytes * 8, height), bits, "raw", "1;I")
        if density & 1:  # double width dots
            image = image.resize((image.width * 2, image.height), Image.Resampling.NEAREST)
        if density & 2:  # double height dots
            image = image.resize((image.width, image.height * 2), Image.Resampling.NEAREST)
        self.canvas.image(image, self.align)
        self.out.images += 1

    def _two_d_code(self, at: int) -> None:
        size = self._take(2, "GS ( k")
        length = size[0] | size[1] << 8
        body = self._take(length, "GS ( k")
        if len(body) < 2 or body[0] != 0x31:
            raise UnsupportedEscPos(
                f"GS ( k at offset {at}: symbol {body[:1]!r} is not a QR code (cn 49)"
            )
        function, args = body[1], body[2:]
        if function == 0x41:  # select the model
            self.qr.model = args[0] if args else 50
            if self.qr.model != 50:
                raise UnsupportedEscPos(f"GS ( k at offset {at}: QR model {self.qr.model - 48}")
        elif function == 0x43:  # module size
            self.qr.size = args[0]
        elif function == 0x45:  # error correction level
            self.qr.ec = args[0]
        elif function == 0x50:  # store the data (m = 48)
            self.qr.data = bytes(args[1:])
        elif function == 0x51:  # print the stored symbol
            self._print_line(feed_empty=False)
            if self.qr.data is None:
                raise UnsupportedEscPos(f"GS ( k at offset {at}: print with no data stored")
            text = self.qr.data.decode("utf-8")
            self.canvas.image(_native_qr(text, self.qr.size, self.qr.ec), self.align)
            self.out.qr_codes.append(text)
        elif function == 0x52:  # transmit the size information: no paper
            pass
        else:
            raise UnsupportedEscPos(f"GS ( k at offset {at}: QR function 0x{function:02x}")


def _native_qr(text: str, size: int, ec: int) -> Image.Image:
    if not 1 <= size <= 16 or ec not in QR_EC_LEVELS:
        raise UnsupportedEscPos(f"QR code with module size {size}, level {ec}")
    code = qrcode.QRCode(
        version=None, box_size=size, border=QR_BORDER, error_correction=QR_EC_LEVELS[ec]
    )
    code.add_data(text)
    code.make(fit=True)
    image: Image.Image = code.make_image().get_image()
    return image.convert("1")


@cache
def _codepage_chars(name: str) -> str:
    """Characters 0x80-0xFF of a code page, from python-escpos's own tables."""
    page = CodePages.get_encoding(name)
    if "data" in page:
        chars = "".join(page["data"])
    elif "python_encode" in page:
        chars = bytes(range(0x80, 0x100)).decode(page["python_encode"], errors="replace")
    else:
        chars = "?" * 128
    return chars.ljust(128, "?")[:128]
