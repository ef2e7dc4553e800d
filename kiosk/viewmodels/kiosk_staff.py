"""The kiosk's staff screen (a manager's badge scanned at the kiosk, then the PIN when the house
signs on with one): the calls the kiosk made for staff ("Staff have been called"), each in plain
words with its time and amount and cleared by touch, and the kiosk's close marker. Functions
taking a Station run on the StationWorker; the rest are pure."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from kiosk.local import LocalSettings
from kiosk.runtime import DeviceState
from kiosk.viewmodels.booth import login, session_text
from kiosk.viewmodels.common import INFO, OK, Outcome, Refusal, attempt, money
from pos.domain.exception_words import kind_words
from pos.domain.money import format_amount
from pos.services import kiosk_calls, signon
from pos.services.station import Station

#: who may open the kiosk's staff screen: the roles the kiosk's staff actions need
STAFF_ROLES = ("manager",)

#: what each call means to the staff member at the kiosk, and what to do about it; a kind not
#: named here reads by its exception title (pos.domain.exception_words)
_CALLS: dict[str, tuple[str, str]] = {
    "acceptor-jam": (
        "Bill stuck in the bill acceptor",
        "Open the acceptor and clear the bill into the cash box. The player got a voucher.",
    ),
    "dispenser-jam": (
        "The dispenser gave too few tickets",
        "Check the ticket column. The player got the difference on a voucher.",
    ),
    "acceptor-returned": (
        "A bill was given back at start-up",
        "The player got the bill back: nothing is owed.",
    ),
    "acceptor-unknown": (
        "A bill is not accounted for",
        "Check the cash box against the count. The player was credited.",
    ),
    "dispense-unknown": (
        "A sale stopped before the tickets came out",
        "Count the ticket column. The player was credited.",
    ),
    "kiosk-credit-left": (
        "A player left credit on the kiosk",
        "It is kept for them: pay it out as a voucher when they ask.",
    ),
}


@dataclass(frozen=True)
class CallVM:
    """One open call, as the staff screen lists it: `origin`/`seq` name it for clearing only
    (never shown)."""

    origin: str
    seq: int
    what: str
    todo: str
    when: str  # hall time
    amount: str  # "$5.00", or "" when the call concerns no amount on record
    amount_cents: int | None
    pay_out: bool = False  # credit owed to a player: paid out (a voucher) to clear it

    @property
    def action(self) -> str:
        return f"Pay out {self.amount}" if self.pay_out else "Clear"

    @property
    def ident(self) -> str:
        return f"{self.origin}-{self.seq}"

    @property
    def heading(self) -> str:
        parts = [self.when, self.what] + ([self.amount] if self.amount else [])
        return " · ".join(parts)


@dataclass(frozen=True)
class StaffVM:
    badge: str
    name: str
    session_text: str
    session_open: bool
    calls: tuple[CallVM, ...]

    @property
    def calls_text(self) -> str:
        count = len(self.calls)
        if count == 0:
            return "No calls open at this kiosk."
        return f"{count} call{'s' if count != 1 else ''} open at this kiosk: clear each when done."


@dataclass(frozen=True)
class StaffEntry:
    """The answer to a badge (and PIN) at the kiosk's staff entry: the staff screen, or the PIN
    asked for (`needs_pin`, with `badge` and `name`), or refused (`refusal`)."""

    staff: StaffVM | None = None
    badge: str = ""
    name: str = ""
    needs_pin: bool = False
    refusal: Refusal | None = None


def hall_clock(at: datetime, now: datetime) -> str:
    """`at` as a clock on the hall's wall says it ("7:04 PM"); its date too when not today."""
    hour = at.hour % 12 or 12
    text = f"{hour}:{at.minute:02d} {'PM' if at.hour >= 12 else 'AM'}"
    if at.date() != now.date():
        text = f"{at:%b} {at.day}, {text}"
    return text


def call_vm(call: kiosk_calls.KioskCall, now: datetime) -> CallVM:
    what, todo = _CALLS.get(call.kind, (kind_words(call.kind).title, ""))
    if not todo:  # a kind this screen has no words for: the kiosk's own, without its name
        todo = (
            call.detail.split(": ", 1)[-1] if call.detail.startswith(call.origin) else call.detail
        )
        todo = todo[:1].upper() + todo[1:]
    amount = "" if call.amount is None else "$" + format_amount(call.amount)
    return CallVM(
        call.origin,
        call.seq,
        what,
        todo,
        hall_clock(call.at, now),
        amount,
        call.amount,
        pay_out=call.pay_out is not None,
    )


def staff_screen(st: Station, badge: str, name: str) -> StaffVM:
    text, is_open = session_text(st)
    now = st.clock.now().astimezone(ZoneInfo(st.hall.time_zone))
    calls = tuple(call_vm(call, now) for call in kiosk_calls.open_calls(st))
    return StaffVM(badge, name, text, is_open, calls)


def enter(st: Station, badge: str, local: LocalSettings, pin: str | None = None) -> StaffEntry:
    """A manager's badge scanned at the kiosk (and its PIN): the same rule as a staff station's
    sign-on (kiosk.viewmodels.booth.login): the PIN when the house signs on with one."""
    answer = login(st, badge, local, roles=STAFF_ROLES, pin=pin)
    if answer.ok:
        return StaffEntry(staff=staff_screen(st, answer.badge, answer.name))
    why = answer.refusal
    if answer.needs_pin and why is not None:  # a PIN was given, and it is not theirs
        why = Refusal("Wrong PIN", "That PIN is not right: enter it again.")
    elif not answer.needs_pin and signon.settings(st).needs_pin:
        person = st.staff(badge.strip())
        if person is not None and not signon.has_pin(st, person.badge):
            why = Refusal(
                "No PIN set for this badge",
                "The house signs on with badge and PIN. A manager sets one with: "
                f"booth staff pin {person.badge}",
            )
    return StaffEntry(
        badge=answer.badge,
        name=answer.name,
        needs_pin=answer.needs_pin,
        refusal=why,
    )


def clear(st: Station, badge: str, name: str, call: CallVM) -> tuple[Outcome, StaffVM]:
    """Staff cleared `call` (a player's credit it is about paid out as a voucher first): on the
    record with their badge; the screen shows what is left."""

    def run() -> Outcome:
        kiosk_calls.clear_call(st, call.origin, call.seq, operator=badge)
        return Outcome(True, "CLEARED", f"{call.what}: cleared by {name}.", OK)

    def paid() -> Outcome:
        voucher = kiosk_calls.pay_out_and_clear(st, call.origin, call.seq, operator=badge)
        return Outcome(
            True,
            "PAID OUT",
            f"Voucher #{voucher.voucher} for {money(voucher.amount)} is printing: give it to "
            f"the player. Cleared by {name}.",
            OK,
        )

    outcome = attempt(paid if call.pay_out else run, "Cannot clear it")
    return outcome, staff_screen(st, badge, name)


def bills_jammed(st: Station) -> bool:
    """A bill jam at this kiosk that staff have not cleared: the status bar keeps saying so."""
    return kiosk_calls.acceptor_jammed(st)


JAMMED = "Bills: jammed"


def status_state(state: DeviceState, jammed: bool) -> DeviceState:
    """The device state the kiosk's status bar shows: "Bills: jammed" from a bill jam until staff
    clear it, even once the acceptor answers again (a fault it reports now still shows)."""
    if not jammed or state.bills_level == "error":
        return state
    return replace(state, bills=JAMMED, bills_level="error")


def pin_prompt(name: str) -> Outcome:
    return Outcome(False, "Enter your PIN", f"{name}: the house asks for a PIN.", INFO)


__all__ = [
    "JAMMED",
    "CallVM",
    "StaffEntry",
    "StaffVM",
    "bills_jammed",
    "clear",
    "enter",
    "staff_screen",
    "status_state",
]
