"""What each kind of event's body must hold: its fields, their types and their ranges.

Derived from what the services write (`st.append("Kind", body)`) and what the projections read.
A signed event is only as good as the station that signed it: a stolen kiosk key can sign a sale
of `qty: -5`. The ledger checks every body against its kind's schema before it stores the event,
whether the event was made here (`append`) or came from elsewhere (`apply`, `apply_batch`), and
refuses one that does not fit, like a bad signature.

Pure data and functions, standard library only. A schema names the fields a body must or may
hold; fields it does not name are allowed (a later version may add some), and so are kinds it
does not know (no projection reads them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from pos.domain.newer_release import MAX_GOVERNED
from pos.domain.rulebook import Settings

Check = Callable[[object], str | None]  # None: fits; else what is wrong with the value

SHORT = 200  # names, serials, badges, sessions, keys
LONG = 4000  # reasons, notes, details, error messages
MAX_CENTS = 10**11  # a billion dollars: no body of a hall's ledger says more
MAX_COUNT = 10**9
MAX_ITEMS = 100_000


def text(max_len: int = SHORT, *, empty: bool = False) -> Check:
    def check(value: object) -> str | None:
        if not isinstance(value, str):
            return f"is {_kind(value)}, not text"
        if not value and not empty:
            return "is empty"
        if len(value) > max_len:
            return f"is {len(value)} characters long (at most {max_len})"
        return None

    return check


def integer(minimum: int = 0, maximum: int = MAX_COUNT) -> Check:
    def check(value: object) -> str | None:
        if type(value) is not int:
            return f"is {_kind(value)}, not a whole number"
        if not minimum <= value <= maximum:
            return f"is {value}, outside {minimum}..{maximum}"
        return None

    return check


def cents(minimum: int = 0) -> Check:
    return integer(minimum, MAX_CENTS)


def flag(value: object) -> str | None:
    return None if isinstance(value, bool) else f"is {_kind(value)}, not true or false"


def iso_date(value: object) -> str | None:
    if not isinstance(value, str):
        return f"is {_kind(value)}, not a date"
    try:
        date.fromisoformat(value)
    except ValueError:
        return f"{value[:40]!r} is not a date (YYYY-MM-DD)"
    return None


def one_of(*choices: str) -> Check:
    def check(value: object) -> str | None:
        return None if value in choices else f"is {str(value)[:40]!r}, not {' or '.join(choices)}"

    return check


def nullable(inner: Check) -> Check:
    def check(value: object) -> str | None:
        return None if value is None else inner(value)

    return check


def list_of(inner: Check, *, max_items: int = MAX_ITEMS) -> Check:
    def check(value: object) -> str | None:
        if not isinstance(value, list):
            return f"is {_kind(value)}, not a list"
        if len(value) > max_items:
            return f"holds {len(value)} items (at most {max_items})"
        for index, item in enumerate(value):
            problem = inner(item)
            if problem is not None:
                return f"[{index}] {problem}"
        return None

    return check


@dataclass(frozen=True)
class Field:
    check: Check
    required: bool = True


def req(check: Check) -> Field:
    return Field(check)


def opt(check: Check) -> Field:
    """May be left out; when given, `check` decides (wrap it in `nullable` to allow null)."""
    return Field(check, required=False)


def obj(fields: Mapping[str, Field]) -> Check:
    def check(value: object) -> str | None:
        if not isinstance(value, dict):
            return f"is {_kind(value)}, not an object"
        return _fields(fields, value)

    return check


@dataclass(frozen=True)
class Schema:
    fields: Mapping[str, Field]
    # a rule across fields (amount = qty x price): None when it holds
    rule: Callable[[dict[str, object]], str | None] | None = field(default=None)


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _fields(fields: Mapping[str, Field], body: dict[str, object]) -> str | None:
    for name, spec in fields.items():
        if name not in body:
            if spec.required:
                return f"{name}: is missing"
            continue
        problem = spec.check(body[name])
        if problem is not None:
            return f"{name}: {problem}"
    return None


# --- values shared by several kinds -------------------------------------------------------------

NAME = text()
OPTIONAL_NAME = nullable(text())
BY = opt(OPTIONAL_NAME)  # who did it: a badge, a station, or nobody (a kiosk, the first manager)
REASON = text(LONG)
# the functions a hall-wide setting governs (pos.domain.newer_release), names a newer release
# may add to
GOVERNS = opt(list_of(NAME, max_items=MAX_GOVERNED))
RECEIPT = integer(1)
CERTIFICATE = obj(
    {
        "hall": req(NAME),
        "station": req(NAME),
        "role": req(NAME),
        "key": req(text(SHORT)),
        "issued": req(NAME),
        "signature": req(text(SHORT)),
    }
)
VOUCHER_REF = obj({"station": req(NAME), "number": req(RECEIPT)})


# The parsers and rules a check calls are imported by the check (the flare's, the program's, a
# release's name, a PIN hash's form, a house setting's): every command that opens a station
# imports this module, few of them see such an event.


def _flare(value: object) -> str | None:
    from pos.domain.flare import InvalidFlare, parse_flare

    try:
        parse_flare(value)
    except InvalidFlare as exc:
        return f"is not a flare: {exc}"
    return None


def _rulebook_setting(body: dict[str, object]) -> str | None:
    key, value = str(body.get("key")).strip().replace("-", "_"), body.get("value")
    current = Settings().to_mapping()
    if key not in current:
        return None  # a newer release's setting: kept and shown (pos.domain.newer_release)
    try:
        Settings.from_mapping({**current, key: value})
    except (ValueError, TypeError) as exc:
        return f"value: {exc}"
    return None


def _pin_hash(value: object) -> str | None:
    """Only a PIN's slow hash is ever in a body, never the PIN."""
    from pos.domain.pins import is_stored_form

    return None if is_stored_form(value) else "is not a PIN hash (scrypt$N$r$p$SALT$HASH)"


def _release(value: object) -> str | None:
    from pos.domain.rule_records import release_problem

    return release_problem(value)


def _house_setting(body: dict[str, object]) -> str | None:
    from pos.domain.signon import HOUSE_SETTINGS, InvalidSignOn, house_setting

    if str(body.get("key")).strip().lower() not in HOUSE_SETTINGS:
        return None  # a newer release's setting: kept and shown (pos.domain.newer_release)
    try:
        house_setting(str(body.get("key")), str(body.get("value")))
    except InvalidSignOn as exc:
        return str(exc)
    return None


def _sale_amount(body: dict[str, object]) -> str | None:
    qty, price, amount = body["qty"], body["price"], body["amount"]
    assert isinstance(qty, int) and isinstance(price, int)
    if amount != qty * price:
        return f"amount: is {amount}, not qty x price = {qty * price}"
    return None


def _program(value: object) -> str | None:
    from pos.domain.bingo_program import InvalidProgram, parse_program

    try:
        parse_program(value)
    except InvalidProgram as exc:
        return f"is not a game program: {exc}"
    return None


def _audit_range(body: dict[str, object]) -> str | None:
    first, last = body["first"], body["last"]
    assert isinstance(first, int) and isinstance(last, int)
    if last < first or last - first >= MAX_SHEETS:
        return f"last: {last} is not within {first}..{first + MAX_SHEETS - 1}"
    return None


MAX_SHEETS = 100_000  # audit numbers in one range
PACK_ITEM = obj({"series": req(NAME), "count": req(integer(1, 1000))})
SHEET_RANGE = obj({"series": req(NAME), "first": req(integer(1)), "last": req(integer(1))})
BINGO_WINNER = obj(
    {"share": req(cents(1)), "player": opt(OPTIONAL_NAME), "w2g": opt(nullable(obj({})))}
)


SHIFT = obj(
    {
        "key": req(NAME),
        "badge": req(NAME),
        "name": req(NAME),
        "date_of_birth": opt(nullable(iso_date)),
        "organisation": req(NAME),
        "day": req(iso_date),
        "start": req(NAME),
        "end": req(NAME),
        "duty": req(NAME),
        "session": opt(nullable(NAME)),  # the bingo session the shift works
    }
)
NEW_PERSON = obj({"badge": req(NAME), "name": req(NAME), "date_of_birth": opt(nullable(iso_date))})

RAFFLE_PRIZE = obj(
    {
        "place": req(integer(1)),
        "description": req(NAME),
        "value": req(cents(1)),
        "basis": req(REASON),
    }
)

SCHEMAS: dict[str, Schema] = {
    # --- the hall, its stations and staff
    "HallCreated": Schema(
        {
            "hall": req(NAME),
            "organisation": req(NAME),
            "location": req(NAME),
            "time_zone": req(NAME),
            "training": req(flag),
            "hall_public_key": req(NAME),
            "certificate": req(CERTIFICATE),
            "release": opt(_release),
        }
    ),
    "StationAdded": Schema(
        {
            "certificate": req(CERTIFICATE),
            "token_sha256": opt(NAME),
            "location": opt(OPTIONAL_NAME),
            "by": BY,
        }
    ),
    "StationJoined": Schema(
        {"certificate": req(CERTIFICATE), "token": opt(NAME), "release": opt(_release)}
    ),
    # Before the first event a station records under a release it did not begin under
    "ReleaseInstalled": Schema({"release": req(_release), "previous": req(_release)}),
    "StaffAdded": Schema(
        {
            "badge": req(NAME),
            "name": req(NAME),
            "roles": req(list_of(NAME, max_items=20)),
            "date_of_birth": opt(nullable(iso_date)),
            "by": BY,
        }
    ),
    # 11VAC20-20-60 E: a parent's or legal guardian's written consent for a worker aged 14-17
    "ParentalConsentRecorded": Schema(
        {
            "badge": req(NAME),
            "name": req(NAME),
            "guardian": req(NAME),
            "signed": req(iso_date),
            "by": BY,
        }
    ),
    "StaffPinSet": Schema({"badge": req(NAME), "hash": req(_pin_hash), "by": BY}),
    "HouseSettingSet": Schema(
        {"key": req(NAME), "value": req(text(SHORT)), "by": BY, "governs": GOVERNS},
        rule=_house_setting,
    ),
    "HouseRuleSet": Schema(
        {"key": req(NAME), "value": req(one_of("on", "off")), "by": BY, "governs": GOVERNS}
    ),
    "HouseRulePosted": Schema(
        {"key": req(NAME), "text": req(REASON), "posted_on": req(iso_date), "by": BY}
    ),
    "RulebookSettingSet": Schema(
        {"key": req(NAME), "value": req(lambda v: None), "by": BY, "governs": GOVERNS},
        rule=_rulebook_setting,
    ),
    "PlayerRegistered": Schema(
        {
            "card": req(NAME),
            "initials": req(text(SHORT, empty=True)),
            "adult": req(flag),
            "id_sha256": opt(OPTIONAL_NAME),
            "checked_on": opt(nullable(iso_date)),
            "person": opt(OPTIONAL_NAME),
            "person_whole": opt(OPTIONAL_NAME),
            "by": BY,
        }
    ),
    # --- deals
    "DealReceived": Schema({"flare": req(_flare), "by": BY}),
    "DealOpened": Schema({"serial": req(NAME), "station": req(NAME), "bin": req(NAME), "by": BY}),
    "DealClosed": Schema(
        {
            "serial": req(NAME),
            "unsold": req(integer(0)),
            "closed_on": opt(iso_date),
            "keep_until": req(iso_date),
            "reason": opt(OPTIONAL_NAME),
            "offered_in": opt(list_of(NAME)),
            "note": opt(nullable(REASON)),
            "override_reason": opt(nullable(REASON)),
            "by": BY,
        }
    ),
    "DealReleased": Schema({"serial": req(NAME), "to": req(NAME), "by": BY}),
    "DealAcquired": Schema(
        {
            "serial": req(NAME),
            "station": req(NAME),
            "bin": req(NAME),
            "from": opt(OPTIONAL_NAME),
            "forced": opt(flag),
            "reason": opt(nullable(REASON)),
            "by": BY,
        }
    ),
    # --- sessions
    "SessionOpened": Schema(
        {
            "session": req(NAME),
            "game_date": req(iso_date),
            "number": req(integer(1)),
            "resumed": opt(list_of(NAME)),
            "by": BY,
            # a past game date's reason; said when it falls in a quarter already reported
            "reason": opt(REASON),
            "into_reported_quarter": opt(NAME),
        }
    ),
    # the manager produced a quarter's final report (Form 102): "2026 Q3"
    "QuarterReported": Schema({"quarter": req(NAME), "by": BY}),
    "SessionScheduled": Schema(
        {
            "game_date": req(iso_date),
            "games": req(list_of(one_of("pull-tab", "seal-card", "event"), max_items=3)),
            "by": BY,
        }
    ),
    "SessionClosed": Schema(
        {
            "session": req(NAME),
            "carried_over": opt(list_of(NAME)),
            "event_games_ended": opt(list_of(NAME)),
            "by": BY,
        }
    ),
    "StationClosedSession": Schema({"session": req(NAME), "by": BY}),
    "StationReopenedSession": Schema(
        {"session": req(NAME), "manager": req(NAME), "reason": req(REASON)}
    ),
    "StationMissingAtClose": Schema(
        {"session": req(NAME), "station": req(NAME), "reason": req(REASON), "manager": req(NAME)}
    ),
    "DrawerCounted": Schema(
        {"session": req(NAME), "station": req(NAME), "amount": req(cents()), "by": BY}
    ),
    # --- the bookkeeper: counts verified, deposits, disbursements, the bank's figures
    "CountVerified": Schema(
        {
            "session": req(NAME),
            "station": req(NAME),
            "count": req(NAME),  # ORIGIN:SEQ of the DrawerCounted it verifies
            "amount": req(cents()),
            "by": BY,
        }
    ),
    "DepositRecorded": Schema(
        {
            "bag": req(NAME),
            "sessions": req(list_of(NAME, max_items=1000)),
            "cash": req(cents()),
            "checks": req(cents()),
            "taken_by": req(NAME),
            "on": req(iso_date),
            "receipts": opt(one_of("session", "weekly")),
            "by": BY,
        }
    ),
    "DepositConfirmed": Schema(
        {"bag": req(NAME), "credited": req(cents()), "on": req(iso_date), "by": BY}
    ),
    "DisbursementRecorded": Schema(
        {
            "payee": req(NAME),
            "amount": req(cents(1)),
            "check": req(NAME),
            "on": req(iso_date),
            "category": req(NAME),
            "invoice": req(text(SHORT, empty=True)),
            "note": opt(text(LONG, empty=True)),
            "by": BY,
        }
    ),
    "BankBalanceRecorded": Schema({"on": req(iso_date), "amount": req(cents()), "by": BY}),
    # --- sales and who may buy
    "TicketsSold": Schema(
        {
            "serial": req(NAME),
            "qty": req(integer(0)),  # 0: a kiosk whose dispenser gave nothing (all credited)
            "price": req(cents()),
            "amount": req(cents()),
            "receipt": req(RECEIPT),
            "session": req(NAME),
            "bin": opt(NAME),
            "seller": opt(OPTIONAL_NAME),
            "buyer": opt(OPTIONAL_NAME),
            "buyer_staff": opt(OPTIONAL_NAME),
            "for": opt(OPTIONAL_NAME),
            "sale": opt(NAME),
            "requested": opt(integer(0)),
            "credit": opt(cents()),
            "fault": opt(nullable(REASON)),
            "voucher": opt(VOUCHER_REF),
            "paid_credit": opt(cents()),  # a kiosk sale paid from the cash put in (acceptor)
        },
        rule=_sale_amount,
    ),
    "DispenseRequested": Schema(
        {
            "sale": req(NAME),
            "serial": req(NAME),
            "column": req(NAME),
            "qty": req(integer(1)),
            "session": req(NAME),
            "buyer": opt(OPTIONAL_NAME),
            "voucher": opt(VOUCHER_REF),
            # paid from the kiosk's credit (bills stacked), with the bill held in escrow for it
            "pay": opt(obj({"credit": req(cents()), "bill": opt(OPTIONAL_NAME)})),
        }
    ),
    # --- a kiosk's bill acceptor: each bill escrowed, then stacked, returned or jammed
    "BillEscrowed": Schema(
        {"bill": req(NAME), "amount": req(cents(1)), "sale": opt(OPTIONAL_NAME)}
    ),
    "BillStacked": Schema(
        {"bill": req(NAME), "amount": req(cents(1)), "cleared": opt(flag), "detail": opt(REASON)}
    ),
    "BillReturned": Schema({"bill": req(NAME), "amount": req(cents(1)), "reason": req(REASON)}),
    "BillJammed": Schema({"bill": req(NAME), "amount": req(cents(1)), "detail": req(REASON)}),
    "DispenseCancelled": Schema({"sale": req(NAME), "reason": req(REASON)}),
    # the player walked away from credit on the kiosk: kept for staff to pay out, not spendable
    "KioskCreditKept": Schema({"kept": req(NAME), "amount": req(cents(1)), "reason": req(REASON)}),
    "SaleVoided": Schema(
        {
            "station": req(NAME),
            "sale_receipt": req(RECEIPT),
            "receipt": opt(RECEIPT),
            "serial": req(NAME),
            "qty": req(integer(0)),
            "amount": req(cents()),
            "reason": req(REASON),
            "by": req(NAME),
            "asked_by": opt(NAME),  # the seller who asked the manager (`by`) to approve it
        }
    ),
    "PurchaseBlocked": Schema(
        {
            "rule": req(NAME),
            "buyer": req(NAME),
            "initials": opt(nullable(text(SHORT, empty=True))),
            "serial": opt(nullable(text(SHORT, empty=True))),
            "reason": req(REASON),
            "by": BY,
            "verdict": opt(one_of("refused", "needs-override")),
            "near_staff": opt(list_of(NAME)),
        }
    ),
    "OverrideGranted": Schema(
        {
            "rule": req(NAME),
            "reason": req(REASON),
            "manager": req(NAME),
            "subject": req(text(SHORT, empty=True)),
            "buyer": opt(OPTIONAL_NAME),
            "detail": opt(nullable(REASON)),
        }
    ),
    # --- winners, voids, seals and exceptions
    "WinnerRedeemed": Schema(
        {
            "serial": req(NAME),
            "ticket": opt(OPTIONAL_NAME),
            "amount": req(cents()),
            "by": req(NAME),
            "session": opt(OPTIONAL_NAME),
            "receipt": opt(nullable(RECEIPT)),
            "player": opt(OPTIONAL_NAME),
            "w2g": opt(nullable(obj({}))),
        }
    ),
    "TicketPunched": Schema(
        {
            "origin": req(NAME),  # the payment punched: its event, origin:seq
            "seq": req(integer(1)),
            "serial": req(NAME),
            "ticket": opt(OPTIONAL_NAME),
            "how": req(one_of("tap", "scan", "command")),
            "by": req(NAME),
        }
    ),
    "TicketVoided": Schema(
        {
            "serial": req(NAME),
            "ticket": req(NAME),
            "reason": req(REASON),
            "by": req(NAME),
            "receipt": opt(nullable(RECEIPT)),
        }
    ),
    "SealLineSigned": Schema(
        {
            "serial": req(NAME),
            "line": req(integer(1)),
            "ticket": req(NAME),
            "player": opt(OPTIONAL_NAME),
            "by": BY,
        }
    ),
    "SealOpened": Schema(
        {
            "serial": req(NAME),
            "lines": req(list_of(integer(1))),
            "prize": req(cents()),
            "progressive": req(flag),
            "opened_on": req(iso_date),
            "claim_until": req(iso_date),
            "carry_after": opt(nullable(iso_date)),
            "by": req(NAME),
        }
    ),
    "SealPrizePaid": Schema(
        {
            "serial": req(NAME),
            "line": req(integer(1)),
            "amount": req(cents()),
            "by": req(NAME),
            "receipt": opt(nullable(RECEIPT)),
            "session": opt(OPTIONAL_NAME),
        }
    ),
    "ProgressivePrizeCarried": Schema(
        {
            "from_serial": req(NAME),
            "to_serial": req(NAME),
            "line": req(integer(1)),
            "amount": req(cents()),
            "rule": opt(OPTIONAL_NAME),
        }
    ),
    "ExceptionFlagged": Schema(
        {
            "flag": req(NAME),
            "serial": opt(OPTIONAL_NAME),
            "ticket": opt(OPTIONAL_NAME),
            "player": opt(OPTIONAL_NAME),  # who presented the ticket, when identified
            "detail": req(REASON),
            "amount": opt(cents()),  # the money a kiosk's call for staff concerns
            "by": BY,
        }
    ),
    "ExceptionResolved": Schema(
        {
            "origin": req(NAME),
            "seq": req(integer(1)),
            "decision": req(one_of("accepted", "rejected", "noted")),
            "note": req(REASON),
            "by": req(NAME),
        }
    ),
    # --- electronic bingo devices
    "DeviceAdded": Schema({"device": req(NAME), "model": opt(OPTIONAL_NAME), "by": BY}),
    "DeviceRetired": Schema({"device": req(NAME), "by": BY}),
    "DeviceReturned": Schema({"device": req(NAME), "by": BY}),
    "PackageDefined": Schema(
        {
            "name": req(NAME),
            "faces": req(integer(1)),
            "games": req(integer(1)),
            "price": req(cents()),
            "by": BY,
        }
    ),
    "DeviceRented": Schema(
        {
            "device": req(NAME),
            "session": req(NAME),
            "faces": req(integer(1)),
            "games": req(integer(1)),
            "series": req(NAME),
            "first_face": req(integer(1)),
            "amount": req(cents()),
            "buyer": opt(OPTIONAL_NAME),
            "receipt": opt(nullable(RECEIPT)),
            "by": BY,
            "paid_credit": opt(cents()),  # at a kiosk: paid from the cash put in
        }
    ),
    "DeviceExchanged": Schema(
        {
            "old": req(NAME),
            "new": req(NAME),
            "witness": req(NAME),
            "no_numbers_keyed": opt(flag),
            "game": opt(nullable(integer(1))),
            "by": BY,
        }
    ),
    # --- raffles (11VAC15-40-60 F)
    "RaffleCreated": Schema(
        {
            "raffle": req(NAME),
            "name": req(NAME),
            "drawing_date": req(iso_date),
            "price": req(cents(1)),
            "prizes": req(list_of(RAFFLE_PRIZE, max_items=50)),
            "by": BY,
        }
    ),
    "RaffleTicketSold": Schema(
        {
            "raffle": req(NAME),
            "ticket": req(integer(1)),
            "price": req(cents(1)),
            "amount": req(cents(1)),
            "receipt": req(RECEIPT),
            "session": opt(OPTIONAL_NAME),
            "seller": opt(OPTIONAL_NAME),
            "buyer": opt(OPTIONAL_NAME),
        }
    ),
    "RaffleTicketVoided": Schema(
        {"raffle": req(NAME), "ticket": req(integer(1)), "reason": req(REASON), "by": BY}
    ),
    "RaffleStubsCounted": Schema(
        {
            "raffle": req(NAME),
            "stubs": req(integer(0)),
            "sold": req(integer(0)),
            "voided": req(integer(0)),
            "witnesses": req(list_of(NAME, max_items=20)),
            "by": BY,
        }
    ),
    "RaffleNumberDrawn": Schema(
        {
            "raffle": req(NAME),
            "place": req(integer(1)),
            "ticket": req(integer(1)),
            "value": req(cents(1)),
            "by": BY,
        }
    ),
    "RafflePrizeClaimed": Schema(
        {
            "raffle": req(NAME),
            "place": req(integer(1)),
            "ticket": req(integer(1)),
            "value": req(cents(1)),
            "w2g": opt(nullable(obj({}))),
            "by": BY,
        }
    ),
    # --- the bingo session (issue #18)
    "ProgramDefined": Schema(
        {"name": req(NAME), "version": req(integer(1)), "program": req(_program), "by": BY}
    ),
    "PaperReceived": Schema(
        {
            "series": req(NAME),
            "manufacturer": req(NAME),
            "faces": req(NAME),
            "progressive": req(flag),
            "first": req(integer(1)),
            "last": req(integer(1)),
            "invoice": req(NAME),
            "supplier": opt(nullable(text(LONG))),
            "cost": opt(nullable(cents())),
            "holder": opt(OPTIONAL_NAME),
            "by": BY,
        },
        rule=_audit_range,
    ),
    "PaperIssued": Schema(
        {
            "series": req(NAME),
            "first": req(integer(1)),
            "last": req(integer(1)),
            "to": req(NAME),
            "by": BY,
        },
        rule=_audit_range,
    ),
    "PaperVoided": Schema(
        {
            "series": req(NAME),
            "first": req(integer(1)),
            "last": req(integer(1)),
            "session": req(NAME),
            "reason": req(REASON),
            "by": BY,
        },
        rule=_audit_range,
    ),
    "BingoPackDefined": Schema(
        {
            "name": req(NAME),
            "price": req(cents(1)),
            "games": opt(text(SHORT, empty=True)),
            "items": req(list_of(PACK_ITEM, max_items=100)),
            "by": BY,
        }
    ),
    "PaperSold": Schema(
        {
            "session": req(NAME),
            "receipt": opt(nullable(RECEIPT)),
            "pack": opt(OPTIONAL_NAME),
            "series": opt(OPTIONAL_NAME),
            "qty": req(integer(1)),
            "price": req(cents()),
            "amount": req(cents()),
            "sheets": req(list_of(SHEET_RANGE)),
            "buyer": opt(OPTIONAL_NAME),
            "by": BY,
        },
        rule=_sale_amount,
    ),
    "PaperReturned": Schema(
        {
            "sale_origin": req(NAME),
            "sale_seq": req(integer(1)),
            "session": req(NAME),
            "amount": req(cents()),
            "by": BY,
        }
    ),
    "DecisionEntered": Schema(
        {
            "session": req(NAME),
            "game": req(integer(1)),
            "faces": req(integer(1)),
            "entry": req(cents()),
            "amount": req(cents()),
            "receipt": opt(nullable(RECEIPT)),
            "buyer": opt(OPTIONAL_NAME),
            "by": BY,
        }
    ),
    "DecisionFeesCollected": Schema(
        {
            "session": req(NAME),
            "game": req(integer(1)),
            "round": req(integer(1)),
            "cards": req(integer(1)),
            "fee": req(cents()),
            "amount": req(cents()),
            "by": BY,
        }
    ),
    "DecisionPrizeAnnounced": Schema(
        {
            "session": req(NAME),
            "game": req(integer(1)),
            "paid_in": req(cents()),
            "prize": req(cents()),
            "retained": req(cents()),
            "by": BY,
        }
    ),
    "ProgressivePlayed": Schema(
        {
            "session": req(NAME),
            "game": req(integer(1)),
            "name": req(NAME),
            "won": req(flag),
            "calls": req(integer(1)),
            "pool": req(cents()),
            "next_calls": req(integer(1)),
            "next_pool": req(cents()),
            "by": BY,
        }
    ),
    "BingoPrizePaid": Schema(
        {
            "session": req(NAME),
            "game_date": req(iso_date),
            "game": req(integer(1)),
            "kind": req(NAME),
            "name": req(NAME),
            "amount": req(cents(1)),
            "winners": req(list_of(BINGO_WINNER, max_items=1000)),
            "as_regular": opt(flag),
            "receipt": opt(nullable(RECEIPT)),
            "by": BY,
        }
    ),
    "ChestSold": Schema(
        {
            "session": req(NAME),
            "game": req(integer(1)),
            "qty": req(integer(1)),
            "price": req(cents()),
            "amount": req(cents()),
            "receipt": opt(nullable(RECEIPT)),
            "buyer": opt(OPTIONAL_NAME),
            "by": BY,
        },
        rule=_sale_amount,
    ),
    "ChestParticipantChosen": Schema(
        {
            "session": req(NAME),
            "game": req(integer(1)),
            "via_game": req(integer(1)),
            "player": opt(OPTIONAL_NAME),
            "by": BY,
        }
    ),
    "ChestOpened": Schema(
        {
            "session": req(NAME),
            "game": req(integer(1)),
            "opened": req(flag),
            "keys_tried": opt(integer(0)),
            "every_key_tried": opt(flag),
            "prize": opt(cents()),
            "by": BY,
        }
    ),
    # --- receipts and vouchers
    "PrintStarted": Schema({"receipt": req(RECEIPT), "reprint": opt(flag), "by": BY}),
    "ReceiptPrinted": Schema({"receipt": req(RECEIPT), "reprint": opt(flag), "by": BY}),
    "PrintFailed": Schema({"receipt": req(RECEIPT), "error": req(text(LONG, empty=True))}),
    "VoucherIssued": Schema(
        {
            "amount": req(cents()),
            "reason": req(REASON),
            "receipt": req(RECEIPT),
            "by": BY,
            "from_credit": opt(flag),  # a kiosk's credit (bills put in) paid out on paper
            "credit_left": opt(NAME),  # credit a player left on the kiosk (KioskCreditKept)
        }
    ),
    "VoucherRedeemed": Schema(
        {
            "voucher_station": req(NAME),
            "voucher_number": req(RECEIPT),
            "amount": req(cents()),
            "receipt": opt(nullable(RECEIPT)),
            "sale_receipt": opt(nullable(RECEIPT)),
            "by": BY,
        }
    ),
    # --- the roster
    "ShiftsImported": Schema(
        {
            "shifts": req(list_of(SHIFT)),
            "new_staff": opt(list_of(NEW_PERSON)),
            "source": opt(nullable(text(LONG, empty=True))),
            "by": BY,
        }
    ),
    "ShiftChanged": Schema(
        {
            "key": req(NAME),
            "day": req(iso_date),
            "start": req(NAME),
            "end": req(NAME),
            "duty": req(NAME),
            "session": opt(nullable(NAME)),  # absent: the shift keeps the session it had
            "by": BY,
        }
    ),
    "ShiftCancelled": Schema({"key": req(NAME), "by": BY}),
}


def _when(value: object) -> str | None:
    """Every kind's `when`: the hall's clock as the event was recorded, with its offset."""
    if not isinstance(value, str) or len(value) > 40:
        return f"is {_kind(value)}, not a time like 2026-11-28T18:05:00-05:00"
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        return f"{value!r} is not a time like 2026-11-28T18:05:00-05:00"
    return None if at.tzinfo is not None else f"{value!r} has no offset from UTC"


def body_problem(kind: str, body: object) -> str | None:
    """What is wrong with `body` for an event of `kind` (the first thing found), or None when
    it fits. A kind with no schema fits whatever its body (no projection reads it)."""
    if isinstance(body, dict) and "when" in body:
        problem = _when(body["when"])
        if problem is not None:
            return f"when: {problem}"
    schema = SCHEMAS.get(kind)
    if schema is None:
        return None
    if not isinstance(body, dict):
        return f"the body is {_kind(body)}, not an object"
    problem = _fields(schema.fields, body)
    if problem is None and schema.rule is not None:
        problem = schema.rule(body)
    return problem
