"""Setting a PIN by touches: a manager sets or resets a worker's PIN (from the Roster tab); a
worker changes their own from the sign-on screen, their current PIN first. Digits only, on the
pad, the new PIN entered twice. `PinDraft` is pure (the steps); the functions taking a Station
run on the StationWorker.

The PIN is recorded hall-wide (its hash, as every PIN: pos.services.pin_change), so a badge
and its PIN sign on at every station when the house asks for both; it is also this station's
pad PIN (kiosk.local), so the PIN alone signs on at this pad when the house signs on by badge.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from kiosk.local import LocalSettings
from kiosk.viewmodels.common import ERROR, INFO, OK, Outcome, plain, refused
from pos.errors import BadInput, BoothError
from pos.services import pin_change
from pos.services.station import Station

STEPS = ("badge", "old", "new", "again")


@dataclass(frozen=True)
class PinDraft:
    """Where the person is: `own` (their own PIN: the current one first) or a manager's reset;
    the badge and name once known; the PINs typed so far (never shown)."""

    own: bool
    badge: str = ""
    name: str = ""
    old: str = ""
    new: str = ""
    step: str = "badge"

    @property
    def title(self) -> str:
        if self.own:
            return "Change my PIN"
        return f"Set a PIN for {self.name} ({self.badge})" if self.badge else "Set a PIN"

    @property
    def prompt(self) -> str:
        if self.step == "badge":
            return "Scan your badge." if self.own else "Scan the worker's badge, or type it."
        if self.step == "old":
            return f"{self.name} ({self.badge}): enter your current PIN, then Next."
        if self.step == "new":
            who = "your" if self.own else f"{self.name}'s"
            return f"Enter {who} new PIN on the pad (4 to 8 digits), then Next."
        return "Enter the new PIN again, then Save."

    @property
    def secret(self) -> bool:
        """The entry hides what is typed (a PIN, not a badge)."""
        return self.step != "badge"

    @property
    def action(self) -> str:
        return "Save" if self.step == "again" else "Next"

    def known(self, badge: str, name: str) -> PinDraft:
        return replace(self, badge=badge, name=name, step="old" if self.own else "new")

    def entered(self, text: str) -> tuple[PinDraft, str]:
        """The next step after a PIN typed at `old`, `new` or `again`, and what to tell the
        person ("" when all is well; at `again` a match leaves the draft ready to save)."""
        digits = text.strip()
        if self.step == "old":
            if not digits:
                return self, "Enter your current PIN first."
            return replace(self, old=digits, step="new"), ""
        if self.step == "new":
            try:
                pin_change.check_new(digits)
            except BadInput as error:
                return self, plain(error) + "."
            return replace(self, new=digits, step="again"), ""
        if self.step == "again":
            if digits != self.new:
                return replace(self, new="", step="new"), (
                    "The two PINs are not the same: enter the new PIN again."
                )
            return self, ""
        return self, ""


def look_up(st: Station, badge: str) -> tuple[str, str] | Outcome:
    """(badge, name) of the staff member scanned, or a refusal to show."""
    try:
        return pin_change.whose(st, badge)
    except BadInput as error:
        return Outcome(False, "Not a staff badge", plain(error))


def save(
    st: Station, draft: PinDraft, local: LocalSettings, directory: Path, operator: str
) -> Outcome:
    """Record the new PIN (hall-wide and at this station's pad). A worker's own: their
    current PIN must match the hall's record, or this pad's when the hall has none."""

    def run() -> Outcome:
        if draft.step != "again" or not draft.new or not draft.badge:
            raise BadInput("pin", "enter the new PIN twice first")
        by = draft.badge if draft.own else operator
        if draft.own:
            matches = pin_change.current_pin_matches(st, draft.badge, draft.old)
            if matches is None:  # none on the hall's record: this pad's, if any
                if not local.has_pin(draft.badge):
                    raise BadInput(
                        "pin",
                        "you have no PIN yet: a manager sets your first one on the Roster tab",
                    )
                matches = local.pin_matches(draft.badge, draft.old)
            if not matches:
                raise BadInput("pin", "that is not your current PIN: nothing was changed")
        if local.badge_for_pin(draft.new) not in (None, draft.badge):
            raise BadInput("pin", "choose another PIN: that one cannot be used at this station")
        done = pin_change.set_pin(st, draft.badge, draft.new, operator=by)
        local.set_pin(done.badge, draft.new)
        local.save(directory)
        if draft.own:
            return Outcome(
                True, "PIN CHANGED", f"{done.name} ({done.badge}): sign on with the new PIN.", OK
            )
        return Outcome(
            True,
            "PIN SET",
            f"{done.name} ({done.badge}) signs on with the new PIN from now on; set by "
            f"{st.named(by)}.",
            INFO,
        )

    try:
        return run()
    except BadInput as error:  # said without the field's name ("pin: ...")
        return Outcome(False, "PIN not changed", plain(error) + ".", ERROR)
    except BoothError as error:
        return refused(error, "PIN not changed")
