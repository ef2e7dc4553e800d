"""The booth (seller): login, the bins and their deals, the sale pad, winners, voids, devices and
seal cards. Functions taking a Station run on the StationWorker; the rest are pure."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kiosk.i18n import _
from kiosk.local import LocalSettings
from kiosk.viewmodels.common import (
    ERROR,
    INFO,
    MUTED,
    OK,
    WARN,
    Outcome,
    Refusal,
    attempt,
    cents,
    money,
    once,
    refusal,
    refused,
)
from pos.domain import signon as signon_words
from pos.domain.money import format_money
from pos.errors import BadInput, BoothError, NotPermitted
from pos.services import (
    current_session,
    deals,
    devices_rental,
    money_path,
    sales,
    scanning,
    seals,
    sessions,
    settings,
    signon,
    vouchers,
    winners,
)
from pos.services.station import Station

MAX_QTY_DIGITS = 4
TENDER_NOTES = (100, 500, 1000, 2000, 5000)  # cents: the quick cash buttons
VOID_REASONS = ("tampered", "damaged", "misprinted")
VOID_SALE_REASONS = ("rung in error", "wrong deal", "wrong quantity", "buyer changed mind")

# -- login --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoginResult:
    ok: bool
    badge: str = ""
    name: str = ""
    roles: tuple[str, ...] = ()
    refusal: Refusal | None = None
    needs_pin: bool = False  # the house signs on with badge and PIN: ask for it next
    lock_seconds: float | None = None  # the station locks after this long idle (house setting)

    @property
    def greeting(self) -> str:
        return f"{self.name} ({self.badge})" if self.ok else ""


def login(
    st: Station,
    entry: str,
    local: LocalSettings,
    *,
    roles: tuple[str, ...],
    pin: str | None = None,
) -> LoginResult:
    """A badge (typed or scanned), then its PIN when the house asks for one (`pin`); or a PIN
    set at this station's pad alone, where the house signs on by badge."""
    text = entry.strip()
    if not text:
        return LoginResult(False, refusal=Refusal("Log in", "Scan your badge or enter your PIN."))
    house = signon.settings(st)
    badge = None
    if pin is None and text.isdigit() and not house.needs_pin:
        badge = local.badge_for_pin(text)
    answer = signon.sign_on(st, badge or text, pin, *roles)
    person = answer.person
    if answer.needs_pin and person is not None:
        why = None
        if answer.error is not None:
            why = Refusal(
                "Wrong PIN", "That PIN is not right. Enter it again, or tap Not you? to start over."
            )
        return LoginResult(
            False, person.badge, person.name, tuple(sorted(person.roles)), why, needs_pin=True
        )
    if answer.error is not None or person is None:
        error = answer.error or BadInput("badge", "not signed on")
        return LoginResult(False, refusal=_not_signed_on(st, badge or text, roles, error))
    return LoginResult(
        True,
        person.badge,
        person.name,
        tuple(sorted(person.roles)),
        lock_seconds=house.lock_seconds,
    )


def _not_signed_on(st: Station, entry: str, roles: tuple[str, ...], error: BoothError) -> Refusal:
    """Why a badge (or a PIN alone) did not sign on, in plain words (pos.domain.signon), not
    the rule's code: not on the staff, a role this station does not open for, no PIN yet."""
    person = st.staff(entry.strip())
    said: signon_words.Refused | None = None
    if person is None and isinstance(error, NotPermitted):
        if entry.strip().isdigit():
            said = signon_words.Refused(
                "Not known",
                "No badge or PIN here matches that. Enter it again, or scan your badge.",
            )
        else:
            said = signon_words.not_on_staff(entry)
    elif person is not None and isinstance(error, NotPermitted):
        said = signon_words.wrong_station(
            person.name, person.badge, tuple(sorted(person.roles)), roles
        )
    elif person is not None and isinstance(error, BadInput) and error.field == "pin":
        said = signon_words.no_pin_yet(person.name, person.badge)
    if said is None:
        return refusal(error, "Cannot log in")
    return Refusal(said.headline, said.message)


# -- bins ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BinVM:
    serial: str
    name: str
    bin: str
    game: str
    price: str
    price_cents: int
    tickets_left: int
    tickets_text: str
    winners_text: str
    winners_left: int

    @property
    def title(self) -> str:
        return f"{self.name}  {self.price}"


def tiers_text(tiers: list[dict[str, object]]) -> tuple[str, int]:
    """ "$250 x2 · $50 x6 · $5 x118" (winners left per tier) and the winners left in all."""
    parts, left = [], 0
    for tier in tiers:
        amount = cents(str(tier["amount"]))
        count = int(str(tier["left"]))
        left += count
        shown = format_money(amount).removesuffix(".00")
        parts.append(f"{shown} ×{count}")
    return " · ".join(parts) or "no prizes", left


def bins_here(st: Station) -> list[BinVM]:
    """The deals in play in this station's bins, by bin."""
    found = []
    for row in deals.list_deals(st):
        if row["state"] != "in-play" or row["holder"] != st.id:
            continue
        summary = deals.deal_summary(st, row["serial"])
        winners_text, left = tiers_text(summary["tiers"])
        found.append(
            BinVM(
                serial=summary["serial"],
                name=summary["name"],
                bin=summary["bin"] or "",
                game=summary["game"],
                price=money(cents(summary["price"])),
                price_cents=cents(summary["price"]),
                tickets_left=int(summary["tickets_left"]),
                tickets_text=f"{int(summary['tickets_left']):,} of {summary['tickets']:,} left",
                winners_text=winners_text,
                winners_left=left,
            )
        )
    return sorted(found, key=lambda b: (b.bin, b.serial))


@dataclass(frozen=True)
class SellScreenVM:
    bins: tuple[BinVM, ...]
    buyer_required: bool
    session_text: str
    session_open: bool

    def bin(self, serial: str | None) -> BinVM | None:
        return next((b for b in self.bins if b.serial == serial), None)


def session_text(st: Station) -> tuple[str, bool]:
    current = current_session.open_session_now(st)
    if current is None:
        return "No session open: a manager opens one", False
    return f"Session {current.game_date} #{current.number}", True


def sell_screen(st: Station) -> SellScreenVM:
    text, is_open = session_text(st)
    return SellScreenVM(
        bins=tuple(bins_here(st)),
        buyer_required=settings.house_rule(st, "buyer-id-required"),
        session_text=text,
        session_open=is_open,
    )


# -- the sale pad (pure) ------------------------------------------------------------------------


@dataclass(frozen=True)
class SaleDraft:
    """A sale being put together on the pad. `attempt` is its request id, kept until the sale
    is done: a second tap (or a retry after a lost answer) with it sells nothing more."""

    serial: str | None = None
    qty: str = "1"
    tendered: int = 0  # cents of cash handed over
    buyer: str = ""
    typed: bool = False  # the first digit typed replaces the default quantity
    attempt: str = field(default_factory=money_path.new_attempt, compare=False)

    def key(self, key: str) -> SaleDraft:
        """A key of the quantity pad: a digit, C (clear) or DEL."""
        if key == "C":
            return replace(self, qty="", typed=True)
        if key == "DEL":
            return replace(self, qty=self.qty[:-1], typed=True)
        if key.isdigit() and len(key) == 1:
            qty = ((self.qty if self.typed else "") + key).lstrip("0")
            return replace(self, qty=qty[:MAX_QTY_DIGITS], typed=True)
        raise ValueError(f"not a key of the pad: {key!r}")

    def tender(self, amount: int | None) -> SaleDraft:
        """Cash handed over: a note adds up; None clears it."""
        return replace(self, tendered=0 if amount is None else self.tendered + amount)

    def choose(self, serial: str) -> SaleDraft:
        return replace(self, serial=serial, qty=self.qty or "1")

    def done(self) -> SaleDraft:
        """After a sale: the same bin, quantity 1, no cash, no buyer."""
        return SaleDraft(serial=self.serial)

    def answered(self) -> SaleDraft:
        """After a refusal: the same draft, and the next SELL is a new attempt."""
        return replace(self, attempt=money_path.new_attempt())

    @property
    def count(self) -> int:
        return int(self.qty) if self.qty.isdigit() else 0


@dataclass(frozen=True)
class DraftVM:
    deal_text: str
    qty_text: str
    total_text: str
    tendered_text: str
    change_text: str
    change_colour: str
    sell_enabled: bool
    sell_label: str
    hint: str
    buyer_label: str


def draft_view(draft: SaleDraft, screen: SellScreenVM) -> DraftVM:
    chosen = screen.bin(draft.serial)
    total = chosen.price_cents * draft.count if chosen else 0
    hint, enabled = "", True
    if not screen.session_open:
        hint, enabled = screen.session_text, False
    elif chosen is None:
        hint, enabled = "Tap a bin to sell from it", False
    elif draft.count == 0:
        hint, enabled = "Enter how many tickets", False
    elif draft.count > chosen.tickets_left:
        hint, enabled = f"Only {chosen.tickets_left} tickets left in this deal", False
    elif screen.buyer_required and not draft.buyer.strip():
        hint = "The house asks every buyer for a player card or ID: scan it (rule ID)"
        enabled = False
    change_text, change_colour = "", MUTED
    if draft.tendered:
        if draft.tendered >= total:
            change_text, change_colour = f"Change {money(draft.tendered - total)}", OK
        else:
            change_text, change_colour = f"Short {money(total - draft.tendered)}", WARN
    return DraftVM(
        deal_text=f"{chosen.name} ({chosen.bin})" if chosen else "No bin chosen",
        qty_text=draft.qty or "0",
        total_text=money(total),
        tendered_text=f"Cash {money(draft.tendered)}" if draft.tendered else "Cash: exact",
        change_text=change_text,
        change_colour=change_colour,
        sell_enabled=enabled,
        sell_label=f"SELL {draft.count} · {money(total)}" if chosen and draft.count else "SELL",
        hint=hint,
        buyer_label=(
            "Buyer card or ID (required)" if screen.buyer_required else "Buyer card or ID"
        ),
    )


@dataclass(frozen=True)
class ChangeVM:
    """After a cash sale: the change due, the biggest thing on the screen."""

    amount: str
    detail: str


def change_due(outcome: Outcome, tendered: int) -> ChangeVM | None:
    total = outcome.get("amount")
    if not outcome.ok or not tendered or not isinstance(total, int) or tendered < total:
        return None
    return ChangeVM(money(tendered - total), f"Cash {money(tendered)} · sale {money(total)}")


def sell(st: Station, draft: SaleDraft, operator: str) -> Outcome:
    if draft.serial is None:
        return Outcome(False, "Choose a bin", "Tap a bin first.", WARN)

    def run() -> Outcome:
        result = sales.sell(
            st,
            draft.serial or "",
            qty=draft.count,
            operator=operator,
            buyer=draft.buyer.strip() or None,
        )
        total = result.amount
        change = f" · change {money(draft.tendered - total)}" if draft.tendered >= total > 0 else ""
        name = deals.deal_summary(st, result.serial)["name"]
        return Outcome(
            True,
            f"SOLD {result.qty} × {name}",
            f"{money(total)} · receipt #{result.receipt}{change}",
            OK,
            data=(("receipt", result.receipt), ("amount", total)),
        )

    return once(st, draft.attempt, run, "Sale refused")


# -- winners and voids --------------------------------------------------------------------------


CHECK_CODE = "Check the code and try again"
MISREAD_RULES = frozenset({"DEAL"})  # a deal not known here: most often a mistyped serial


def misread(code: str, error: BoothError) -> Outcome | None:
    """A typo or an unreadable scan reads differently from a refusal: amber, the code kept
    for correction. Only a ticket that must not be paid says DO NOT PAY (red)."""
    rule = getattr(error, "rule", None)
    if not isinstance(error, BadInput) and rule not in MISREAD_RULES:
        return None
    why = refusal(error, CHECK_CODE)
    return Outcome(
        False,
        CHECK_CODE,
        why.message,
        WARN,
        replace(why, headline=CHECK_CODE),
        data=(("keep", code),),
    )


def scan_kind(st: Station, text: str) -> str:
    return scanning.what_is(st, text)


KIND_SAID = {
    "player-card": ("That is a player card", "Scan it at Sell as the buyer; winners pay here."),
    "badge": ("That is a staff badge", "Winners pay here: scan the winning ticket."),
    "id": ("That is an ID", "Scan it at Sell as the buyer; winners pay here."),
}


def winner_scan(st: Station, code: str, operator: str) -> Outcome:
    """A scan at Winners: a player card, a badge or an ID says what it is; a ticket pays, and
    so does a voucher (its QR scanned, or the short code under it typed)."""
    kind = scan_kind(st, code)
    if kind in KIND_SAID:
        headline, detail = KIND_SAID[kind]
        return Outcome(False, headline, detail, INFO)
    if kind != "ticket" and vouchers.looks_like_voucher(code):
        return pay_voucher(st, code, operator)
    return redeem(st, code, operator)


def pay_voucher(st: Station, code: str, operator: str) -> Outcome:
    """A voucher brought to the booth, paid out once in cash. A typo in its short code is amber
    and stays in the field; a voucher paid already, or not on file here, is DO NOT PAY."""
    try:
        paid = vouchers.redeem_voucher(st, code, operator=operator)
    except BoothError as error:
        return misread(code, error) or refused(error, "DO NOT PAY")
    return Outcome(
        True,
        f"PAY {money(paid.paid)}",
        f"Voucher #{paid.voucher} of {paid.station} · receipt #{paid.receipt}",
        OK,
        data=(("receipt", paid.receipt),),
    )


@dataclass(frozen=True)
class SellScan:
    """A scan at Sell: the buyer (card, badge, ID), a ticket (to Winners), or unreadable."""

    kind: str
    code: str


def sell_scan(st: Station, text: str) -> SellScan:
    return SellScan(scan_kind(st, text), text.strip())


def redeem(st: Station, code: str, operator: str) -> Outcome:
    """Pay a winner. A second scan by the person who just paid it confirms the punch instead
    (C2); any other scan of a paid ticket reads "already paid ...: pay nothing", and where its
    punch is not confirmed yet the Punched tap then records it."""

    def run() -> Outcome:
        if winners.second_scan_confirms_punch(st, code, operator=operator):
            return _punched(winners.confirm_punch(st, code, operator=operator, how="scan"))
        paid = winners.redeem(st, code, operator=operator)
        ticket = f"{paid.serial}/{paid.ticket}" if paid.ticket else paid.serial
        return Outcome(
            True,
            f"PAY {money(paid.pay)}",
            f"Ticket {ticket} · receipt #{paid.receipt} · tap Punched once punched",
            OK,
            shout=paid.say,
            data=(("receipt", paid.receipt), ("code", ticket)),
        )

    try:
        return run()
    except BoothError as error:
        said = misread(code, error) or refused(error, "DO NOT PAY")
        if getattr(error, "rule", None) == "C2" and winners.punch_unconfirmed(st, code):
            return replace(
                said,
                detail=f"{said.detail} If you punch it now, tap Punched to record the punch.",
                data=(("code", code),),
            )
        return said


def confirm_punch(st: Station, code: str, operator: str) -> Outcome:
    """C2: the redeemer taps Punched: who punched the ticket, and when, is recorded."""
    return attempt(
        lambda: _punched(winners.confirm_punch(st, code, operator=operator, how="tap")),
        "Punch not recorded",
    )


def _punched(result: dict[str, Any]) -> Outcome:
    return Outcome(
        True,
        "PUNCHED",
        f"Ticket {result['punched']} punched by {result['by']} at {result['at']}",
        INFO,
    )


def void_ticket(st: Station, code: str, reason: str, operator: str) -> Outcome:
    def run() -> Outcome:
        result = winners.void_ticket(st, code, reason=reason, operator=operator)
        return Outcome(True, "VOID", f"Ticket {result['voided']} never pays ({reason})", INFO)

    return attempt(run, "Void refused")


def void_sale(st: Station, receipt: str, reason: str, operator: str) -> Outcome:
    def run() -> Outcome:
        if not receipt.strip().isdigit():
            raise BadInput("receipt", "enter the receipt number of the sale")
        result = winners.void_sale(st, int(receipt), reason=reason, operator=operator)
        return Outcome(
            True,
            "SALE VOIDED",
            f"Receipt #{result.receipt}: {result.qty} × {result.serial}, "
            f"{money(result.amount)} back",
            INFO,
        )

    return attempt(run, "Void refused")


# -- devices ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PackageVM:
    name: str
    faces: int
    games: int
    price: str

    @property
    def text(self) -> str:
        games = "game" if self.games == 1 else "games"
        return f"{self.name}: {self.faces} faces × {self.games} {games} · {self.price}"


@dataclass(frozen=True)
class DevicesVM:
    packages: tuple[PackageVM, ...]
    free_text: str
    free: int
    total: int
    rented: tuple[str, ...]
    session_open: bool
    collect_at: str = devices_rental.PICKUP_DEFAULT  # where rented devices are handed out


def devices_screen(st: Station) -> DevicesVM:
    listed = devices_rental.list_devices(st)
    free = sum(1 for d in listed if d["state"] == "free")
    return DevicesVM(
        packages=tuple(
            PackageVM(p["name"], p["faces"], p["games"], money(p["price"]))
            for p in devices_rental.list_packages(st)
        ),
        free_text=f"{free} device{'s' if free != 1 else ''} free of {len(listed)}",
        free=free,
        total=len(listed),
        rented=tuple(d["device"] for d in listed if d["state"] == "rented"),
        session_open=current_session.open_session_now(st) is not None,
        collect_at=devices_rental.pickup_place(st),
    )


def rent(st: Station, package: PackageVM, buyer: str | None, operator: str | None) -> Outcome:
    def run() -> Outcome:
        result = devices_rental.rent(
            st, faces=package.faces, games=package.games, buyer=buyer or None, operator=operator
        )
        return Outcome(
            True,
            f"DEVICE {result.device}",
            f"{result.faces} faces × {result.games} · {money(result.amount)}"
            f" · receipt #{result.receipt}",
            OK,
            shout=f"Collect {result.device} {result.collect_at}",
            data=(("device", result.device), ("receipt", result.receipt)),
        )

    return attempt(run, "Rental refused")


def return_device(st: Station, device: str, operator: str) -> Outcome:
    def run() -> Outcome:
        result = devices_rental.return_device(st, device, operator=operator)
        return Outcome(True, f"{result['device']} RETURNED", "It joins the end of the free line.")

    return attempt(run, "Return refused")


def exchange_device(
    st: Station, device: str, witness: str, confirmed: bool, operator: str
) -> Outcome:
    def run() -> Outcome:
        result = devices_rental.exchange_device(
            st, device, witness=witness, no_numbers_keyed=confirmed, game=None, operator=operator
        )
        return Outcome(
            True,
            f"GIVE {result['new']}",
            f"{result['old']} is marked defective; its faces moved to {result['new']}.",
        )

    return attempt(run, "Exchange refused")


# -- seal cards ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SealLineVM:
    line: int
    text: str
    signed: bool
    winner: bool


@dataclass(frozen=True)
class SealVM:
    serial: str
    title: str
    detail: str
    hold_tickets: tuple[str, ...]
    free_tickets: tuple[str, ...]
    lines: tuple[SealLineVM, ...]
    opened: bool
    can_open: bool
    open_hint: str


def seal_screen(st: Station, serial: str | None = None) -> SealVM | None:
    """The sign-up sheet of `serial` (default: the first seal card deal held here)."""
    held = seals.seal_deals_held_here(st)
    if serial is None:
        if not held:
            return None
        serial = held[0]
    sheet = seals.sheet(st, serial)
    used = {line["ticket"] for line in sheet["lines"] if line["ticket"]}
    lines = tuple(
        SealLineVM(
            line["line"],
            f"{line['line']}: {line['ticket']}" if line["ticket"] else str(line["line"]),
            bool(line["ticket"]),
            bool(line["winner"]),
        )
        for line in sheet["lines"]
    )
    left = int(sheet["tickets_left"])
    if sheet["opened"]:
        hint = _("Seal open; claim until {until}").format(until=sheet["claim_until"])
    elif left:
        hint = _("{left} tickets left: the seal opens when the deal is sold out").format(left=left)
    else:
        hint = _("Sold out: enter the winning line under the seal")
    return SealVM(
        serial=sheet["serial"],
        title=f"{sheet['name']} ({sheet['serial']})",
        detail=_("Seal prize {prize} · {signed} of {lines} lines signed").format(
            prize=money(cents(sheet["prize"])),
            signed=sum(1 for x in lines if x.signed),
            lines=len(lines),
        ),
        hold_tickets=tuple(sheet["hold_tickets"]),
        free_tickets=tuple(t for t in sheet["hold_tickets"] if t not in used),
        lines=lines,
        opened=bool(sheet["opened"]),
        can_open=not sheet["opened"] and left == 0,
        open_hint=hint,
    )


def sign_line(
    st: Station, serial: str, ticket: str, line: int, player: str | None, operator: str | None
) -> Outcome:
    def run() -> Outcome:
        seals.sign_line(st, serial, ticket=ticket, line=line, player=player, operator=operator)
        return Outcome(True, f"LINE {line} SIGNED", f"Hold ticket {ticket} on {serial}")

    return attempt(run, "Cannot sign")


def open_seal(st: Station, serial: str, line: str, operator: str) -> Outcome:
    def run() -> Outcome:
        if not line.strip().isdigit():
            raise BadInput("line", "enter the winning line printed under the seal")
        sheet = seals.open_seal(st, serial, lines=[int(line)], operator=operator)
        winners_ = [x for x in sheet["lines"] if x["winner"]]
        who = ", ".join(f"line {x['line']} ({x['ticket'] or 'unsigned'})" for x in winners_)
        return Outcome(True, "SEAL OPEN", f"Winner: {who}; claim until {sheet['claim_until']}")

    return attempt(run, "Cannot open the seal")


def close_station(st: Station, operator: str) -> Outcome:
    """This booth's close marker for the session (the manager then closes hall-wide)."""

    def run() -> Outcome:
        result = sessions.close_session(st, operator=operator)
        return Outcome(
            True,
            "BOOTH CLOSED",
            f"Close marker for session {result['session']} recorded; the manager closes the day.",
            INFO,
        )

    return attempt(run, "Cannot close")


def reopen_station(
    st: Station, manager: str, reason: str, *, attempt_id: str | None = None
) -> Outcome:
    """A manager reopens this booth for the session after its close marker (rule CLOSE), with
    the reason on the record; it sells and pays again until it closes again."""

    def run() -> Outcome:
        done = money_path.reopen(st, manager=manager.strip() or None, reason=reason)
        return Outcome(
            True,
            "BOOTH REOPENED",
            f"By {st.named(done.manager)}: {done.reason}. Close again when done.",
            INFO,
        )

    return once(st, attempt_id or money_path.new_attempt(), run, "Cannot reopen")


def drawer_outcome(message: str) -> Outcome:
    return Outcome(True, "DRAWER", message, INFO)


def failure(message: str) -> Outcome:
    return Outcome(False, "Something went wrong", message, ERROR)
