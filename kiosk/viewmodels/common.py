"""What every screen shares: colours, money, refusals with their rule, outcomes, the status bar."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from kiosk.runtime import DeviceState, StationInfo
from pos.domain.money import amount_cents, format_money
from pos.domain.rulebook import RULES
from pos.errors import BadInput, BoothError, NotPermitted, RuleRefused
from pos.services import money_path
from pos.services.station import Station

T = TypeVar("T")

# High-contrast palette (hex). Text on OK/ERROR/INFO is white, on WARN it is dark.
BACKGROUND = "#0F1419"
PANEL = "#1C242C"
PANEL_HI = "#26313B"
TEXT = "#FFFFFF"
MUTED = "#B8C4CE"
OK = "#1A823B"  # white on it: 4.88:1
WARN = "#F2B705"
ERROR = "#C62828"
INFO = "#1F6FEB"
OFF = "#56636E"
CHANGE_FG = "#5BE37D"  # change due: light green on PANEL, contrast above 4.5:1
LEVEL_COLOURS = {"ok": OK, "warn": WARN, "error": ERROR, "off": OFF, "info": INFO}


def luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance of a #RRGGBB colour."""
    text = hex_colour.lstrip("#")
    channels = []
    for i in (0, 2, 4):
        c = int(text[i : i + 2], 16) / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = channels
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: str, bg: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21); body text needs at least 4.5."""
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def money(cents: int) -> str:
    return format_money(cents)


#: "12.50", as services return amounts -> 1250: the one reading, pos.domain.money's.
cents = amount_cents


@dataclass(frozen=True)
class Refusal:
    """A refusal told in plain words, with the rule it rests on."""

    headline: str
    message: str
    rule: str | None = None
    citation: str | None = None

    @property
    def cited(self) -> str:
        if not self.rule:
            return ""
        return f"Rule {self.rule}: {self.citation}" if self.citation else f"Rule {self.rule}"


def refusal(error: BoothError, headline: str | None = None) -> Refusal:
    """A service's error as a screen shows it: the sentence without its "(rule X)" tail."""
    if isinstance(error, RuleRefused):
        tail = f" (rule {error.rule})"
        message = error.message.removesuffix(tail)
        rule = RULES.get(error.rule)
        default = "Not allowed" if isinstance(error, NotPermitted) else "Refused"
        return Refusal(
            headline or default, _sentence(message), error.rule, rule.citation if rule else None
        )
    if isinstance(error, BadInput):
        return Refusal(headline or "Please check", _sentence(error.message))
    return Refusal(headline or "Something went wrong", _sentence(error.message))


def plain(error: BadInput) -> str:
    """A BadInput's sentence without its field's name in front ("pin: that PIN is not right"
    reads "That PIN is not right")."""
    return _sentence(error.message.removeprefix(f"{error.field}: "))


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


@dataclass(frozen=True)
class Outcome:
    """The result of a command: a headline in large type, a detail line, a colour."""

    ok: bool
    headline: str
    detail: str = ""
    colour: str = OK
    refusal: Refusal | None = None
    shout: str = ""  # PUNCH NOW: the one instruction shown largest
    data: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str) -> Any:
        return dict(self.data).get(key)


def refused(error: BoothError, headline: str | None = None) -> Outcome:
    why = refusal(error, headline)
    return Outcome(False, why.headline, why.message, ERROR, why)


def attempt(fn: Callable[[], Outcome], headline: str | None = None) -> Outcome:
    """Run a command's view-model; a BoothError becomes a refusal outcome."""
    try:
        return fn()
    except BoothError as error:
        return refused(error, headline)


def once(st: Station, attempt_id: str, run: Callable[[], Outcome], headline: str) -> Outcome:
    """A write button's command, exactly once per `attempt_id` (the screen keeps it until the
    answer is shown): a double tap, or a retry after a lost answer, records nothing more."""

    def repeated(claim: money_path.Claim) -> Outcome:
        return Outcome(
            True,
            "Already recorded",
            f"That tap repeated the one before ({claim.events()}); nothing more was recorded.",
            OK,
        )

    return money_path.once(st, attempt_id, lambda: attempt(run, headline), repeated)


@dataclass(frozen=True)
class StatusBarVM:
    station: str
    operator: str
    printer: str
    printer_colour: str
    scanner: str
    scanner_colour: str
    sync: str
    training: bool
    link: str = ""
    link_colour: str = OFF
    bills: str = ""  # empty: no acceptor part (booth and manager)
    bills_colour: str = OFF


def status_bar(state: DeviceState, info: StationInfo | None, operator: str | None) -> StatusBarVM:
    where = info.station if info else "starting"
    link, link_level = state.link, state.link_level
    if state.clock:  # Booth sets no clock: the bar says so until someone does (hall-setup.md)
        link = f"{link} · {state.clock}"
        link_level = "error" if link_level == "error" else "warn"
    if state.upgrade:  # this station holds what only a newer Booth reads
        link = f"{link} · {state.upgrade}"
        link_level = "error" if link_level == "error" else "warn"
    return StatusBarVM(
        station=where,
        operator=operator or "nobody logged in",
        printer=state.printer,
        printer_colour=LEVEL_COLOURS.get(state.printer_level, OFF),
        scanner=state.scanner,
        scanner_colour=LEVEL_COLOURS.get(state.scanner_level, OFF),
        sync=state.sync,
        training=bool(info and info.training),
        link=link,
        link_colour=LEVEL_COLOURS.get(link_level, OFF),
        bills=state.bills,
        bills_colour=LEVEL_COLOURS.get(state.bills_level, OFF),
    )


def ago(then: datetime | None, now: datetime) -> str:
    if then is None:
        return "never"
    seconds = int((now - then).total_seconds())
    if seconds < 60:
        return "just now" if seconds >= -60 else "in the future"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min ago"
    return f"{seconds // 86400} days ago"
