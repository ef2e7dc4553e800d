"""Ticket codes: what a scanned winning ticket says about itself.

The default format is `SERIAL`, `SERIAL/TICKET` or `SERIAL/TICKET/TIER` (tier in cents, e.g.
`A123456/0042/10000`). Manufacturers print other layouts: a hall registers a codec for each, and
`decode` tries them in order. Decoding never raises anything but InvalidTicketCode.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_SERIAL = r"[A-Z0-9][A-Z0-9-]{0,31}"
_DEFAULT = re.compile(rf"({_SERIAL})(?:/([0-9]{{1,6}})(?:/([0-9]{{1,9}}))?)?", re.ASCII)
_MAX_TEXT = 128


class InvalidTicketCode(ValueError):
    """A scan that is not a ticket code (garbled, partial, or of no known format)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"code: {message}")
        self.field = "code"


@dataclass(frozen=True)
class TicketCode:
    serial: str
    ticket: str | None = None  # the ticket number as printed, leading zeros kept
    tier: int | None = None  # the prize in cents, where the ticket carries it

    def __str__(self) -> str:
        parts = [self.serial]
        if self.ticket is not None:
            parts.append(self.ticket)
            if self.tier is not None:
                parts.append(str(self.tier))
        return "/".join(parts)


Codec = Callable[
    [str], TicketCode | None
]  # None: "not my format"; raise InvalidTicketCode: mine but bad


def default_codec(text: str) -> TicketCode | None:
    match = _DEFAULT.fullmatch(text.upper())
    if match is None:
        return None
    serial, ticket, tier = match.groups()
    cents = int(tier) if tier is not None else None
    if cents == 0:
        raise InvalidTicketCode(f"{text!r} names a prize tier of $0.00")
    return TicketCode(serial, ticket, cents)


CODECS: list[Codec] = [default_codec]


def _as_text(data: str | bytes) -> str:
    if isinstance(data, bytes):
        try:
            data = data.decode("ascii")
        except UnicodeDecodeError:
            raise InvalidTicketCode(f"{data[:40]!r} is not text a scanner sends") from None
    text = data.strip()
    if not text:
        raise InvalidTicketCode("the scan is empty")
    if len(text) > _MAX_TEXT:
        raise InvalidTicketCode(f"{text[:40]!r}... is too long to be a ticket code")
    if not text.isprintable():
        raise InvalidTicketCode(f"{text[:40]!r} holds control characters: a garbled scan")
    return text


def decode(data: str | bytes, codecs: list[Codec] | None = None) -> TicketCode:
    text = _as_text(data)
    for codec in codecs if codecs is not None else CODECS:
        code = codec(text)
        if code is not None:
            return code
    raise InvalidTicketCode(
        f"{text[:40]!r} is not a ticket code (expected SERIAL, SERIAL/TICKET or SERIAL/TICKET/TIER)"
    )
