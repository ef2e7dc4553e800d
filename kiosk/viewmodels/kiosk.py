"""The kiosk (player, self-service): idle, identify, kind refusals, games with their flare and
winners left, buy, rent, sign a seal line, check a ticket, and the idle timer that forgets the
player. Functions taking a Station run on the StationWorker; the rest are pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from kiosk.i18n import _
from kiosk.viewmodels.booth import BinVM, PackageVM, bins_here, session_text
from kiosk.viewmodels.common import (
    ERROR,
    INFO,
    OK,
    WARN,
    Outcome,
    Refusal,
    attempt,
    cents,
    money,
    once,
)
from pos.domain import voucher_code
from pos.domain.flare import GameType
from pos.domain.money import format_money
from pos.domain.rulebook import RULES
from pos.errors import BoothError
from pos.services import (
    devices_rental,
    eligibility,
    kiosk_cash,
    money_path,
    players,
    sales,
    sessions,
    settings,
    vouchers,
    winners,
)
from pos.services.deals import deal_flare
from pos.services.ports import Dispenser
from pos.services.settings import HOUSE_RULES, rulebook_settings
from pos.services.station import Station

QUANTITIES = (1, 2, 5, 10)


# -- idle ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IdleVM:
    organisation: str
    location: str
    headline: str
    rules: tuple[str, ...]
    training: bool


def idle_screen(st: Station) -> IdleVM:
    """A plain screen: the hall, how to start, the posted rules. Nothing that entices."""
    age = rulebook_settings(st).minimum_age
    rules = [
        _("You must be {age} or older to buy, play or redeem.").format(age=age)
        + f" ({RULES['AGE'].citation})",
        _("People who sold or redeemed pull-tabs here today may not buy them today.")
        + f" ({RULES['D'].citation})",
    ]
    for key, on in settings.house_rules(st).items():
        if on:
            meaning = re.sub(r"\s*\(rule [^)]*\)$", "", HOUSE_RULES[key].meaning)  # no codes
            rules.append(_("House rule: {meaning}.").format(meaning=_(meaning)))
    return IdleVM(
        organisation=st.hall.organisation,
        location=st.hall.location,
        headline=_("Scan your player card or ID to start"),
        rules=tuple(rules),
        training=st.hall.training,
    )


# -- identify -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    code: str
    initials: str


@dataclass(frozen=True)
class KioskManagerVM:
    """A manager's badge scanned at the kiosk: the staff actions (the close marker)."""

    badge: str
    name: str
    session_text: str
    session_open: bool


@dataclass(frozen=True)
class Identified:
    player: Player | None = None
    refusal: Refusal | None = None
    manager: KioskManagerVM | None = None
    #: refused pull-tabs but free to rent a bingo device: the refusal offers it (Rent / Not now)
    renter: Player | None = None


def _kind(rule: str, headline: str, message: str) -> Refusal:
    """A refusal in plain words; its rule goes with it for the record and the staff screens
    (the kiosk's screens never show a rule code to a player)."""
    return Refusal(headline, message, rule, RULES[rule].citation if rule in RULES else None)


def identify(st: Station, code: str) -> Identified:
    """Who is at the kiosk. A refusal here is kind and clear, and cites its rule. A manager's
    badge opens the kiosk's staff actions instead (the services check the role again)."""
    staff = st.staff(code.strip())
    if staff is not None and "manager" in staff.roles:
        text, is_open = session_text(st)
        return Identified(manager=KioskManagerVM(staff.badge, staff.name, text, is_open))
    try:
        buyer = players.resolve_buyer(st, code)
    except BoothError:
        return Identified(
            refusal=Refusal(
                _("We could not read that card"),
                _(
                    "Please scan your player card or the barcode on the back of your ID again, "
                    "or ask at the booth for a player card."
                ),
            )
        )
    assert buyer is not None
    decision = eligibility.identity_decision(st, buyer)
    if not decision.allowed:
        if decision.rule == "AGE":
            age = rulebook_settings(st).minimum_age
            return Identified(
                refusal=_kind(
                    "AGE",
                    _("Sorry, you need to be {age} or older").format(age=age),
                    _(
                        "The law does not let anyone under {age} buy, play or redeem here. "
                        "Thank you for understanding."
                    ).format(age=age),
                )
            )
        return Identified(
            refusal=_kind(
                decision.rule or "ID",
                _("Sorry, we cannot accept this ID"),
                decision.message[:1].upper()
                + decision.message[1:]
                + ". "
                + _("Please ask at the booth."),
            )
        )
    report = eligibility.buyer_report(st, buyer)
    refused_d = [d for d in report["deals"] if not d["allowed"] and d["rule"] == "D"]
    if report["deals"] and len(refused_d) == len(report["deals"]):
        may_rent = bool(report["bingo"]["allowed"])
        bingo = " " + _("You may still rent a bingo device.") if may_rent else ""
        return Identified(
            renter=Player(buyer.code, buyer.initials) if may_rent else None,
            refusal=_kind(
                "D",
                _("You are working today"),
                _("People who sold or redeemed pull-tabs here today may not buy them today.")
                + " "
                + _("Thank you for volunteering!")
                + bingo,
            ),
        )
    return Identified(Player(buyer.code, buyer.initials))


# -- games --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameTileVM:
    serial: str
    name: str
    price: str
    flare_text: str
    winners_text: str
    tickets_text: str
    can_buy: bool
    why_not: str
    game: str
    price_cents: int = 0


@dataclass(frozen=True)
class GamesVM:
    greeting: str
    tiles: tuple[GameTileVM, ...]
    session_open: bool
    session_text: str
    credit_text: str = ""


def _flare_text(st: Station, serial: str) -> str:
    from pos.services.deals import deal_summary

    tiers = deal_summary(st, serial)["tiers"]
    return ", ".join(
        f"{t['count']} × {format_money(cents(t['amount'])).removesuffix('.00')}" for t in tiers
    )


def credit_text(credit: int) -> str:
    return _("Your credit: {amount}").format(amount=money(credit)) if credit > 0 else ""


@dataclass(frozen=True)
class CreditLeftVM:
    """Credit left on the kiosk after a purchase: said as large as the result's headline, with
    what to do (the voucher waits for Done: a player who walks away gets nothing printed)."""

    credit: int  # cents
    headline: str
    how: str


def credit_left(st: Station) -> CreditLeftVM | None:
    """What the result screen says of the credit still on the kiosk (None: there is none)."""
    held = kiosk_cash.credit(st)
    if held <= 0:
        return None
    return CreditLeftVM(
        held,
        _("You have {amount} left").format(amount=money(held)),
        _("Buy more with it, or touch Done to get it on a voucher."),
    )


def games_screen(st: Station, player: Player) -> GamesVM:
    text, is_open = session_text(st)
    buyer = players.resolve_buyer(st, player.code)
    assert buyer is not None
    pull_tabs_here = settings.house_rule(st, "kiosk-pull-tab-sales")
    tiles = []
    for deal in bins_here(st):
        why = ""
        if deal.game == GameType.PULL_TAB and not pull_tabs_here:
            why = _("Pull-tabs are sold at the booth (house rules)")
        else:
            decision = eligibility.purchase_decision(st, buyer, deal.serial)
            if not decision.allowed:  # plain words: the rule is on the record and staff screens
                why = decision.message[:1].upper() + decision.message[1:]
        if not why and deal.tickets_left == 0:
            why = _("Sold out")
        tiles.append(_tile(st, deal, why))
    return GamesVM(
        greeting=_("Hello, {initials}").format(initials=player.initials),
        tiles=tuple(tiles),
        session_open=is_open,
        session_text=text,
        credit_text=credit_text(kiosk_cash.credit(st)),
    )


def identify_and_list(st: Station, code: str) -> tuple[Identified, GamesVM | None]:
    """One trip to the worker: who it is and, for a player, the games to show."""
    result = identify(st, code)
    games = games_screen(st, result.player) if result.player is not None else None
    return result, games


def _tile(st: Station, deal: BinVM, why: str) -> GameTileVM:
    return GameTileVM(
        serial=deal.serial,
        name=deal.name,
        price=_("{price} a ticket").format(price=deal.price),
        flare_text=_("Prizes: {prizes}").format(prizes=_flare_text(st, deal.serial)),
        winners_text=_("Winners left: {winners}").format(winners=deal.winners_text),
        tickets_text=_("{count} tickets left").format(count=f"{deal.tickets_left:,}"),
        can_buy=not why,
        why_not=why,
        game=deal.game,
        price_cents=deal.price_cents,
    )


def looks_like_ticket(code: str) -> bool:
    """A scan at the idle screen that is a ticket's code (SERIAL/TICKET[/TIER], or a typo of
    one) rather than a card, badge or ID: it opens the ticket's check result."""
    text = code.strip()
    return "/" in text and "\n" not in text and len(text) < 60


# -- price first, then cash, then the sale --------------------------------------------------------


def buy_label(qty: int, price_cents: int) -> str:
    """What a buy button says: the quantity and the price, before anything happens."""
    return _("Buy {qty} · {amount}").format(qty=qty, amount=money(qty * price_cents))


@dataclass(frozen=True)
class PayVM:
    """The price, shown first; then what to put in (or the credit that pays it)."""

    purchase: kiosk_cash.Purchase
    title: str  # Buy 2 · $2.00
    what: str  # Kiosk Classic: 2 tickets at $1.00
    credit: int
    credit_text: str
    due: int  # cents still to put in
    prompt: str
    takes_cash: bool
    pay_label: str  # the button paying from the credit ("" when it does not cover)


def pay_screen(st: Station, player: Player, serial: str, qty: int, *, takes_cash: bool) -> PayVM:
    flare = deal_flare(st, serial)
    purchase = kiosk_cash.Purchase(serial, qty, player.code, flare.price)
    word = _("ticket") if qty == 1 else _("tickets")
    return _pay_vm(
        st,
        purchase,
        buy_label(qty, flare.price),
        _("{name}: {qty} {word} at {price}").format(
            name=flare.name, qty=qty, word=word, price=money(flare.price)
        ),
        takes_cash,
    )


def devices_free_text(free: int, total: int) -> str:
    """The rent screen's headline, in the player's language."""
    if free == 1:
        return _("Bingo devices: 1 free of {total}").format(total=total)
    return _("Bingo devices: {free} free of {total}").format(free=free, total=total)


def rent_label(package: PackageVM) -> str:
    return _("Rent {name} · {amount}").format(name=package.name, amount=package.price)


def rental_pay_screen(
    st: Station, player: Player, package: PackageVM, *, takes_cash: bool
) -> PayVM:
    """A bingo device rental, priced first like tickets."""
    purchase = kiosk_cash.Purchase(
        "",
        1,
        player.code,
        cents(package.price.removeprefix("$")),
        package=package.name,
        faces=package.faces,
        games=package.games,
    )
    games = _("game") if package.games == 1 else _("games")
    return _pay_vm(
        st,
        purchase,
        rent_label(package),
        _("A bingo device: {faces} faces × {games} {word}").format(
            faces=package.faces, games=package.games, word=games
        ),
        takes_cash,
    )


def _pay_vm(
    st: Station, purchase: kiosk_cash.Purchase, title: str, what: str, takes_cash: bool
) -> PayVM:
    held = kiosk_cash.credit(st)
    due = max(0, purchase.cost - held)
    if due == 0:
        prompt = _("Your credit pays for it: touch Pay.")
    elif takes_cash and purchase.rental:
        prompt = _("Put in {amount} in bills.").format(amount=money(due))
    elif takes_cash:
        prompt = _("Put in {amount} in bills, or scan a voucher.").format(amount=money(due))
    else:
        prompt = _("This kiosk takes no cash: scan a voucher, or pay at the booth.")
    return PayVM(
        purchase=purchase,
        title=title,
        what=what,
        credit=held,
        credit_text=credit_text(held),
        due=due,
        prompt=prompt,
        takes_cash=takes_cash,
        pay_label=_("Pay {amount}").format(amount=money(purchase.cost)) if due == 0 else "",
    )


def rented(result: devices_rental.Rental) -> Outcome:
    games = _("game") if result.games == 1 else _("games")
    return Outcome(
        True,
        _("DEVICE {device}").format(device=result.device),
        _("{faces} faces × {games} {word} · {amount} · receipt #{receipt}").format(
            faces=result.faces,
            games=result.games,
            word=games,
            amount=money(result.amount),
            receipt=result.receipt,
        ),
        OK,
        shout=collect_text(result.device, result.collect_at),
        data=(("device", result.device), ("receipt", result.receipt)),
    )


def pickup_text(place: str) -> str:
    """Where the hall hands rented devices out, in the player's language when it is the
    booth (a place the hall posted is shown as written)."""
    return _("at the booth") if place == devices_rental.PICKUP_DEFAULT else place


def collect_text(device: str, place: str) -> str:
    """Which device, and where the hall hands it out (the booth unless it posted otherwise)."""
    return _("Collect {device} {place}").format(device=device, place=pickup_text(place))


def sold(result: sales.Sale | sales.NothingDispensed) -> Outcome:
    """What the player reads after a paid sale: take the tickets; or, kindly, a jam."""
    if isinstance(result, sales.NothingDispensed):
        given, asked, receipt, credit_cents, voucher = 0, result.requested, None, 0, None
    else:
        given, asked = result.qty, result.requested or result.qty
        receipt, credit_cents, voucher = result.receipt, result.credit or 0, result.credit_voucher
    if given < asked:
        credit = money(credit_cents)
        if given == 0:
            headline = _("Sorry, the machine could not give your tickets.")
        else:
            headline = _("Sorry, the machine gave {given} of {asked} tickets.").format(
                given=given, asked=asked
            )
        return Outcome(
            True,
            headline,
            _("Take your {amount} voucher. Staff have been called.").format(amount=credit),
            WARN,
            data=(("receipt", receipt), ("voucher", voucher)),
        )
    assert isinstance(result, sales.Sale)
    word = _("ticket") if given == 1 else _("tickets")
    return Outcome(
        True,
        _("Take your {count} {word} from the tray").format(count=given, word=word),
        _("{amount} · receipt #{receipt} is printing").format(
            amount=money(result.amount), receipt=receipt
        ),
        OK,
        data=(("receipt", receipt),),
    )


def pay_from_credit(
    st: Station,
    purchase: kiosk_cash.Purchase,
    dispenser: Dispenser | None,
    *,
    attempt_id: str | None = None,
) -> Outcome:
    """The credit on the kiosk covers the price: the sale, then the tickets (or the device).
    Once per `attempt_id` (the Pay button's tap): a double tap while the credit still covers
    the price again does not buy twice."""
    tap = attempt_id or money_path.new_attempt()
    if purchase.rental:
        return once(
            st, tap, lambda: rented(kiosk_cash.rent_from_credit(st, purchase)), _("Rental refused")
        )
    return once(
        st,
        tap,
        lambda: sold(kiosk_cash.sell_from_credit(st, purchase, dispenser)),
        _("Sorry, that sale did not go through"),
    )


def rent_if_paid(st: Station, purchase: kiosk_cash.Purchase) -> Outcome | None:
    """After a bill is stacked towards a rental: the rental, once the credit covers it."""
    if not purchase.rental or kiosk_cash.credit(st) < purchase.cost:
        return None
    return pay_from_credit(st, purchase, None)


def bill_back(amount: int, why: str = "") -> Outcome:
    what = money(amount) if amount else ""
    headline = (
        _("Please take your {amount} bill back").format(amount=what)
        if what
        else _("Please take your bill back")
    )
    return Outcome(False, headline, why, WARN)


def bill_jammed(amount: int, paid: kiosk_cash.PaidOut | None) -> Outcome:
    voucher = money(paid.amount) if paid is not None else money(amount)
    return Outcome(
        True,
        _("Sorry, your {amount} bill is stuck in the machine.").format(amount=money(amount)),
        _("Take your {amount} voucher. Staff have been called.").format(amount=voucher),
        WARN,
        data=(("voucher", paid.voucher if paid else None),),
    )


def credited_after_reset(amount: int) -> Outcome:
    return Outcome(
        True,
        _("The machine restarted"),
        _("Your {amount} bill is in the machine: it is your credit now.").format(
            amount=money(amount)
        ),
        INFO,
    )


def returned_after_reset(amount: int) -> Outcome:
    return bill_back(amount, _("The machine restarted and gave your bill back."))


def cashed_out(paid: kiosk_cash.PaidOut | None) -> str:
    """The idle screen's note after a player left credit on the kiosk."""
    if paid is None:
        return ""
    return _(
        "Your credit of {amount} printed as voucher #{number}: take it from the printer."
    ).format(amount=money(paid.amount), number=paid.voucher)


VOUCHER_PROMPT = "Scan your voucher's QR code, or type the code printed under it"
VOUCHER_READY = "Voucher read: now choose your tickets"


def voucher_prompt(code: str) -> str:
    """What the voucher screen asks for: the voucher, then the tickets. A short code being
    typed says how much of it is in, and a typo as soon as all of it is."""
    text = code.strip()
    if not text:
        return _(VOUCHER_PROMPT)
    if vouchers.is_scanned(text):
        return _(VOUCHER_READY)
    typed = len(voucher_code.normalise(text))
    if typed < voucher_code.LENGTH:
        return _("Code: {count} of {total} letters and numbers typed").format(
            count=typed, total=voucher_code.LENGTH
        )
    try:
        voucher_code.parse(text)
    except voucher_code.VoucherCodeTypo:
        return _("That code has a typo: check it and try again")
    return _(VOUCHER_READY)


def voucher_complete(code: str) -> bool:
    """A code worth looking up: a scan, or a short code typed in full, without a typo."""
    text = code.strip()
    if not text or vouchers.is_scanned(text):
        return bool(text)
    try:
        voucher_code.parse(text)
    except voucher_code.VoucherCodeTypo:
        return False
    return True


def voucher_read(st: Station, code: str) -> Outcome:
    """A voucher's code entered (the keyboard's Done): what it is worth here, or why it will
    not pay, said on the voucher screen before the player chooses tickets (`headline`: the
    prompt's new words). The sale checks it all again."""
    status = vouchers.voucher_status(st, code.strip())
    if status.state == "payable":
        return Outcome(
            True,
            _("Voucher for {amount} read: now choose your tickets").format(
                amount=money(status.amount or 0)
            ),
        )
    said = voucher_refused(status)
    return said if said.get("keep") else replace(said, headline=said.detail, detail="")


def voucher_refused(status: vouchers.VoucherStatus) -> Outcome:
    """A voucher that will not pay, in a player's words: what happened and where to go, no
    station names, no rule. A code to correct (a typo, a bad scan) keeps the player on the
    voucher screen (`keep`); the rest go to the result screen, with the staff's sentence and
    rule in `refusal` (not shown to the player)."""
    keep = (("keep", True),)
    if status.state == "typo":
        return Outcome(
            False, _("That code has a typo: check it and try again"), "", WARN, data=keep
        )
    if status.state == "unreadable":
        return Outcome(
            False,
            _("That voucher could not be read: scan it again, or type its code"),
            "",
            WARN,
            data=keep,
        )
    if status.state == "not-a-voucher":
        return Outcome(
            False, _("That is a receipt, not a voucher: scan the voucher"), "", WARN, data=keep
        )
    if status.state == "used":
        detail = _("That voucher was already used. Please ask at the booth.")
    elif status.state == "other-hall":
        detail = _("That is not a voucher from this hall. Please ask at the booth.")
    elif status.state == "not-here":
        detail = _("This kiosk does not know that voucher. Please ask at the booth.")
    else:
        detail = _("Please ask at the booth.")
    headline = _("Sorry, that voucher did not pay")
    # the staff's sentence and rule, kept for the record (the player's screen shows neither)
    rule = "PAID" if status.state == "used" else "VOUCHER"
    cited = RULES.get(rule)
    refusal = Refusal(headline, status.reason, rule, cited.citation if cited else None)
    return Outcome(False, headline, detail, ERROR, refusal)


def buy_with_voucher(
    st: Station,
    player: Player,
    serial: str,
    qty: int,
    code: str,
    dispenser: Dispenser | None,
) -> Outcome:
    """The identified player pays with a voucher (its QR text, or the short code printed under
    it, typed): it is redeemed with the sale and any change comes back as a new voucher,
    printed with the receipt. One that will not pay says why in the player's words."""
    code = code.strip()
    if not code:
        return Outcome(False, _("Scan your voucher first"), _(VOUCHER_PROMPT) + ".", WARN)
    status = vouchers.voucher_status(st, code)
    if status.state != "payable":
        return voucher_refused(status)

    def run() -> Outcome:
        result = sales.sell(
            st,
            serial,
            qty=qty,
            operator=None,
            buyer=player.code,
            dispenser=dispenser,
            voucher=code,
        )
        given, asked = result.qty, result.requested or result.qty
        paid, cost = money(result.voucher_paid or 0), money(result.amount)
        number = result.change_voucher
        if number is not None:
            change = money(result.change or 0)
            after = _("Your change: voucher #{number} for {amount} prints with it.").format(
                number=number, amount=change
            )
        else:
            after = _("No change is due.")
        detail = (
            _("Your voucher for {paid} paid {cost} · receipt #{receipt} is printing.").format(
                paid=paid, cost=cost, receipt=result.receipt
            )
            + " "
            + after
        )
        if given < asked:
            return replace(sold(result), detail=detail + " " + _("Staff have been called."))
        word = _("ticket") if given == 1 else _("tickets")
        return Outcome(
            True,
            _("Take your {count} {word} from the tray").format(count=given, word=word),
            detail,
            OK,
            data=(("receipt", result.receipt), ("change_voucher", number)),
        )

    outcome = attempt(run, _("Sorry, that voucher did not pay"))
    if outcome.refusal is not None and outcome.refusal.rule == "PAID":
        # the staff's sentence names stations and says "pay nothing": a player reads this
        return replace(outcome, detail=_("That voucher was already used. Please ask at the booth."))
    return outcome


CHECK_AGAIN = "Check the code and try again"
DO_NOT_PAY = "DO NOT PAY"


def check(st: Station, code: str) -> Outcome:
    """A ticket checked at the kiosk. A code that cannot be read or found reads amber (check it
    and try again); red DO NOT PAY only for a ticket that must not be paid."""
    try:
        result = winners.check_ticket(st, code)
    except BoothError:  # unreadable, or no such deal or ticket here: most likely a typo
        return Outcome(
            False,
            _(CHECK_AGAIN),
            _("We could not read “{code}” as a ticket code.").format(code=code.strip()[:40]),
            WARN,
            data=(("code", code),),
        )
    status = result["status"]
    if status == "winner":
        return Outcome(
            True,
            _("WINNER {amount}").format(amount=money(cents(result.get("pay", "0.00")))),
            _("Take this ticket to the booth."),
            OK,
        )
    if status == "unknown-prize":
        return Outcome(
            True, _("SHOW IT AT THE BOOTH"), _("Show this ticket at the booth to check it."), INFO
        )
    why = {
        "paid": _("This ticket was already paid."),
        "void": _("This ticket was voided and does not pay."),
        "invalid": _("This ticket cannot be paid. Show it at the booth."),
    }.get(status, _("This ticket cannot be paid. Show it at the booth."))
    return Outcome(False, _(DO_NOT_PAY), why, ERROR)


def sign_line(st: Station, player: Player, serial: str, ticket: str, line: int) -> Outcome:
    """The identified player signs a seal card line with their hold ticket (no staff operator:
    the service checks the player at a kiosk station)."""
    from kiosk.viewmodels.booth import sign_line as sign

    outcome = sign(st, serial, ticket, line, player.code, None)
    if not outcome.ok:
        return outcome
    return Outcome(
        True,
        f"LINE {line} IS YOURS",
        f"Hold ticket {ticket} signed line {line} of {serial}. Keep your hold ticket: "
        "it claims the prize if your line wins.",
        OK,
    )


def close_kiosk(st: Station, badge: str) -> Outcome:
    """This kiosk's close marker for the session, recorded with the manager's badge (the
    manager then closes the session hall-wide)."""

    def run() -> Outcome:
        result = sessions.close_session(st, operator=badge)
        return Outcome(
            True,
            "KIOSK CLOSED",
            f"Close marker for session {result['session']} recorded; the manager closes the day.",
            INFO,
        )

    return attempt(run, "Cannot close")


# -- the idle timer (pure) ----------------------------------------------------------------------


class IdleTimer:
    """Seconds since the last touch; past `timeout` the kiosk goes back to idle and forgets."""

    def __init__(self, timeout: float, now: float) -> None:
        if timeout <= 0:
            raise ValueError("the idle timeout must be positive")
        self.timeout = timeout
        self.last = now

    def touch(self, now: float) -> None:
        self.last = now

    def remaining(self, now: float) -> float:
        return max(0.0, self.timeout - (now - self.last))

    def expired(self, now: float) -> bool:
        return now - self.last >= self.timeout
