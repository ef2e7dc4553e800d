"""Receipt content: what a receipt says, as data. Printers and screens lay it out.

Every receipt carries its station's sequential number and a QR payload any station can verify
offline (see qr_payload.py). Training halls print TRAINING; a second print says REPRINT.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from datetime import datetime

from pos.domain.money import format_money

KINDS = (
    "sale",
    "redemption",
    "void",
    "rental",
    "voucher",
    "voucher-redeemed",
    "seal-sheet",
    "device-faces",
    "raffle-ticket",
    "program",
    "test",
)


@dataclass(frozen=True)
class Line:
    text: str
    qty: int | None = None
    amount: int | None = None  # cents

    def shown_amount(self) -> str:
        return format_money(self.amount) if self.amount is not None else ""


@dataclass(frozen=True)
class Receipt:
    kind: str
    organisation: str
    location: str
    station: str
    number: int
    issued_at: datetime  # aware, in the hall's time zone
    operator: str | None
    lines: tuple[Line, ...] = ()
    total: int | None = None  # cents
    total_label: str = "TOTAL"
    headline: str | None = None  # "PUNCH NOW", "VOID"...
    fields: tuple[tuple[str, str], ...] = ()  # labelled facts, e.g. ("Cards loaded", "12")
    notes: tuple[str, ...] = ()
    grid: tuple[tuple[str, ...], ...] = ()  # fixed-width rows, e.g. bingo faces
    qr: str | None = None
    # A voucher's short code (grouped, "K7QX-4RMP-WTAC9"), printed under its QR code for a
    # player whose QR will not scan to type (see voucher_code.py).
    typed_code: str | None = None
    training: bool = False
    reprint: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    # A two-part ticket's stub (a raffle's, F1): printed first and cut off, the same number
    # as the part the buyer keeps (the lines above, with the QR code).
    stub: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"receipt kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.issued_at.tzinfo is None:
            raise ValueError("a receipt's time must be aware")

    def code_lines(self) -> list[str]:
        """What prints under the QR code: a voucher's short code, to type where the QR will not
        scan (the printer sets the code itself large)."""
        if not self.typed_code:
            return []
        return ["Will not scan? Type this code:", self.typed_code]

    def banner(self) -> list[str]:
        """The lines that must stand out at the top: TRAINING, REPRINT."""
        marks = []
        if self.training:
            marks.append("*** TRAINING - NOT A REAL TRANSACTION ***")
        if self.reprint:
            marks.append("*** REPRINT ***")
        return marks

    def text_lines(self, width: int) -> list[str]:
        """The receipt as plain text of `width` columns: the layout every renderer follows."""
        out: list[str] = []
        for text in [*self.banner(), self.organisation, self.location]:
            out.extend(line.center(width) for line in textwrap.wrap(text, width))
        out.append("-" * width)
        out.extend(_pair(f"{self.kind.upper()} #{self.number}", self.station, width))
        out.extend(
            _pair(
                f"{self.issued_at:%Y-%m-%d %H:%M:%S}",
                f"by {self.operator}" if self.operator else "",
                width,
            )
        )
        out.append("-" * width)
        for line in self.lines:
            label = f"{line.qty} x {line.text}" if line.qty is not None else line.text
            out.extend(_pair(label, line.shown_amount(), width))
        for label, value in self.fields:
            out.extend(_pair(f"{label}:", value, width))
        for row in self.grid:
            out.append(" ".join(row).center(width)[:width])
        if self.total is not None:
            out.append("=" * width)
            out.extend(_pair(self.total_label, format_money(self.total), width))
        if self.headline:
            out.append(self.headline.center(width))
        for note in self.notes:
            out.extend(textwrap.wrap(note, width))
        return out


def _pair(left: str, right: str, width: int) -> list[str]:
    """`left` and `right` on one line of `width`, or, when they do not fit, `left` wrapped on
    its own lines and `right` flush right below: never cut off."""
    if len(left) + len(right) + 1 <= width:
        return [f"{left:<{width - len(right) - 1}} {right}".rstrip() if right else left]
    lines = textwrap.wrap(left, width) or [""]
    if right:
        lines.append(right.rjust(width))
    return lines
