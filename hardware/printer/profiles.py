"""Printer profiles: paper width, characters per line, dots per line, native QR or an image.

`escpos_profile` names a python-escpos (escpos-printer-db) profile: it chooses the code pages,
the cutter commands and the width python-escpos centres images to. `native_qr` is Booth's own
choice and overrides the database: the database claims `qrCode` for models that print the
`GS ( k` command as garbage (python-escpos #113, #598; escpos-printer-db #64), so only a model
we know prints it natively gets it; every other prints the code as a raster image.
"""

from __future__ import annotations

from dataclasses import dataclass

from escpos.capabilities import get_profile as get_escpos_profile

from hardware.printer.errors import BadPrinterSpec


@dataclass(frozen=True)
class PrinterProfile:
    name: str
    width_mm: int  # paper width: 58 or 80
    columns: int  # characters per line in font A (12 x 24 dots)
    native_qr: bool  # print QR codes with GS ( k; else as a raster image
    escpos_profile: str  # python-escpos profile name ("TM-T20II", "POS-5890", "default"...)
    image_width_px: int  # printable dots per line: 384 (58 mm), 512 or 576 (80 mm)

    def __post_init__(self) -> None:
        if self.width_mm not in (58, 80):
            raise BadPrinterSpec(f"printer profile {self.name}: paper {self.width_mm} mm")
        if not 16 <= self.columns <= 64:
            raise BadPrinterSpec(f"printer profile {self.name}: {self.columns} columns")
        if self.image_width_px % 8 or not 256 <= self.image_width_px <= 832:
            raise BadPrinterSpec(
                f"printer profile {self.name}: {self.image_width_px} dots is not a printer width"
            )
        if self.image_width_px // self.columns < 8:
            raise BadPrinterSpec(
                f"printer profile {self.name}: {self.columns} columns do not fit "
                f"{self.image_width_px} dots"
            )

    @property
    def has_cutter(self) -> bool:
        """Whether python-escpos sends a cut (GS V) to this model; else the paper is torn."""
        features = get_escpos_profile(self.escpos_profile).features
        return bool(features.get("paperFullCut") or features.get("paperPartCut"))

    @property
    def cell_px(self) -> int:
        """Dots per character cell (12 for font A on every profile here)."""
        return self.image_width_px // self.columns


PROFILES: dict[str, PrinterProfile] = {
    profile.name: profile
    for profile in (
        # Epson TM-T20 (II/III): 203 dpi, 72 mm printed of 80 mm paper, 576 dots, 48 columns.
        PrinterProfile("epson-tm-t20", 80, 48, True, "TM-T20II", 576),
        # Epson TM-T88 (IV/V/VI): 180 dpi, 512 dots, so font A gives 42 columns, not 48.
        PrinterProfile("epson-tm-t88", 80, 42, True, "TM-T88V", 512),
        # The anonymous 58 mm "POS-58/5890" printers: no GS ( k (it prints as text), no cutter.
        PrinterProfile("generic-58", 58, 32, False, "POS-5890", 384),
        # Star TSP100/TSP143 in ESC/POS emulation: 203 dpi, 576 dots; QR as an image.
        PrinterProfile("star-tsp100", 80, 48, False, "TSP600", 576),
    )
}

DEFAULT_PROFILE = "epson-tm-t20"


def get_profile(name: str | PrinterProfile | None = None) -> PrinterProfile:
    """The profile called `name` (None: the default); raises BadPrinterSpec naming it."""
    if isinstance(name, PrinterProfile):
        return name
    key = (name or DEFAULT_PROFILE).strip().lower()
    try:
        return PROFILES[key]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise BadPrinterSpec(f"unknown printer profile {name!r} (known: {known})") from None
