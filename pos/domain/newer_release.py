"""What a station holds from a newer Booth, and what it may then still do.

The contract between releases (from this one on): a station never stops on a setting or an
event kind it does not know. It keeps them, counts them and says so ("booth-1 holds 12 events
from a newer Booth: upgrade it"). A hall-wide setting names the functions it governs
(`governs`); a station that does not know the setting refuses those functions, saying why,
until it is upgraded, so a rule the hall tightened is never silently weakened by it.

A setting's meaning and range never change under its key: a newer release that needs another
meaning adds a key. So a known key with a value out of its range is a forgery and is refused
as one (pos.domain.event_schemas), while an unknown key is a newer release's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pos.domain.checks import Refusal

Function = Literal["money", "sign-on"]
#: What a setting may govern: "money", every sale and prize payment (the money path);
#: "sign-on", who may sign on at a staff station and how.
FUNCTIONS: tuple[Function, ...] = ("money", "sign-on")
MAX_GOVERNED = 20

RULE = "UPGRADE"


@dataclass(frozen=True)
class NewerSetting:
    """A setting this release does not know, as the log holds it."""

    scope: str  # "rulebook", "house" (the house rules' switches) or "sign-on"
    key: str
    value: str
    by: str | None
    governs: tuple[str, ...]
    origin: str  # the event that set it, and when
    seq: int
    hlc: str

    def describe(self) -> str:
        who = f" (set by {self.by})" if self.by else ""
        return f"{self.key} = {self.value}{who}"


@dataclass(frozen=True)
class NewerEvents:
    """Events of one kind this release does not know, from one origin."""

    origin: str
    kind: str
    count: int
    first_seq: int


@dataclass(frozen=True)
class Holdings:
    """Everything a station holds from a newer Booth."""

    station: str
    events: Sequence[NewerEvents]
    settings: Sequence[NewerSetting]

    @property
    def event_count(self) -> int:
        return sum(e.count for e in self.events)

    @property
    def empty(self) -> bool:
        return not self.events and not self.settings

    def summary(self) -> str:
        """One line for a status bar or an exception list ('' when nothing is held)."""
        if self.empty:
            return ""
        parts = []
        if self.events:
            n = self.event_count
            parts.append(f"{n:,} event{'s' if n != 1 else ''}")
        if self.settings:
            n = len(self.settings)
            parts.append(f"{n} setting{'s' if n != 1 else ''}")
        return f"{self.station} holds {' and '.join(parts)} from a newer Booth: upgrade it"

    def status_text(self) -> str:
        """The status bar's words ('' when nothing is held)."""
        if self.empty:
            return ""
        what = (
            f"{self.event_count:,} event{'s' if self.event_count != 1 else ''}"
            if self.events
            else f"{len(self.settings)} setting{'s' if len(self.settings) != 1 else ''}"
        )
        return f"Upgrade: {what} from a newer Booth"

    def details(self) -> list[str]:
        lines = [
            f"{e.count:,} {e.kind} event{'s' if e.count != 1 else ''} from {e.origin}"
            for e in self.events
        ]
        lines += [f"setting {s.describe()}" for s in self.settings]
        return lines


def cannot_enforce(holdings: Holdings, function: Function) -> Refusal | None:
    """UPGRADE: refused when a setting this release does not know governs `function`."""
    governing = [s for s in holdings.settings if function in s.governs]
    if not governing:
        return None
    names = ", ".join(s.describe() for s in governing)
    return Refusal(
        RULE,
        f"the hall's setting {names} needs a newer Booth, which this station ({holdings.station}) "
        f"is not: it takes no {_WORDS[function]} until it is upgraded; use an upgraded station "
        "meanwhile",
    )


_WORDS: dict[Function, str] = {"money": "sale or payment", "sign-on": "sign-on"}
