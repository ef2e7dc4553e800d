"""The kiosk (player, self-service): idle, identify, kind refusals, games with their flare and
winners left, buy, rent, sign a seal line, check a ticket, and the idle timer that forgets the
player. Functions taking a Station run on the StationWorker; the rest are pure."""

from __future__ import annotations

from dataclasses import dataclass

from kiosk.viewmodels.booth import BinVM, bins_here, session_text
from kiosk.viewmodels.common import INFO, OK, WARN, Outcome, Refusal, attempt, cents, money
from pos.domain.flare import GameType
from pos.domain.money import format_money
from pos.domain.rulebook import RULES
from pos.errors import BoothError
from pos.services import eligibility, players, sales, sessions, settings, winners
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
        f"You must be {age} or older to buy, play or redeem. ({RULES['AGE'].citation})",
        "People who sold or redeemed pull-tabs here today may not buy them today. "
        f"({RULES['D'].citation})",
    ]
    for key, on in settings.house_rules(st).items():
        if on:
            rules.append(f"House rule: {HOUSE_RULES[key].meaning}.")
    return IdleVM(
        organisation=st.hall.organisation,
        location=st.hall.location,
        headline="Scan your player card or ID to start",
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


def _kind(rule: str, headline: str, message: str) -> Refusal:
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
                "We could not read that card",
                "Please scan your player card or the barcode on the back of your ID again, "
                "or ask at the booth for a player card.",
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
                    f"Sorry, you need to be {age} or older",
                    f"The law does not let anyone under {age} buy, play or redeem here. "
                    "Thank you for understanding.",
                )
            )
        return Identified(
            refusal=_kind(
                decision.rule or "ID",
                "Sorry, we cannot accept this ID",
                decision.message[:1].upper() + decision.message[1:] + ". Please ask at the booth.",
            )
        )
    report = eligibility.buyer_report(st, buyer)
    refused_d = [d for d in report["deals"] if not d["allowed"] and d["rule"] == "D"]
    if report["deals"] and len(refused_d) == len(report["deals"]):
        bingo = " You may still rent a bingo device." if report["bingo"]["allowed"] else ""
        return Identified(
            refusal=_kind(
                "D",
                "You are working today",
                "People who sold or redeemed pull-tabs here today may not buy them today. "
                f"Thank you for volunteering!{bingo}",
            )
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


@dataclass(frozen=True)
class GamesVM:
    greeting: str
    tiles: tuple[GameTileVM, ...]
    session_open: bool
    session_text: str


def _flare_text(st: Station, serial: str) -> str:
    from pos.services.deals import deal_summary

    tiers = deal_summary(st, serial)["tiers"]
    return ", ".join(
        f"{t['count']} × {format_money(cents(t['amount'])).removesuffix('.00')}" for t in tiers
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
            why = "Pull-tabs are sold at the booth (house rules, rule A)"
        else:
            decision = eligibility.purchase_decision(st, buyer, deal.serial)
            if not decision.allowed:
                why = f"{decision.message} (rule {decision.rule})"
        if not why and deal.tickets_left == 0:
            why = "Sold out"
        tiles.append(_tile(st, deal, why))
    return GamesVM(
        greeting=f"Hello, {player.initials}",
        tiles=tuple(tiles),
        session_open=is_open,
        session_text=text,
    )


def _tile(st: Station, deal: BinVM, why: str) -> GameTileVM:
    return GameTileVM(
        serial=deal.serial,
        name=deal.name,
        price=f"{deal.price} a ticket",
        flare_text=f"Prizes: {_flare_text(st, deal.serial)}",
        winners_text=f"Winners left: {deal.winners_text}",
        tickets_text=f"{deal.tickets_left:,} tickets left",
        can_buy=not why,
        why_not=why,
        game=deal.game,
    )


def buy(st: Station, player: Player, serial: str, qty: int, dispenser: Dispenser | None) -> Outcome:
    def run() -> Outcome:
        result = sales.sell(
            st, serial, qty=qty, operator=None, buyer=player.code, dispenser=dispenser
        )
        given, asked = int(result["qty"]), int(result.get("requested", result["qty"]))
        detail = f"{money(cents(result['amount']))} · receipt #{result['receipt']} is printing"
        if given < asked:
            credit = money(cents(result.get("credit", "0.00")))
            return Outcome(
                True,
                f"Take your {given} of {asked} tickets",
                f"The dispenser gave {given} of {asked}: a voucher for {credit} prints with "
                f"your receipt #{result['receipt']} ({money(cents(result['amount']))}).",
                WARN,
                data=(("receipt", result["receipt"]),),
            )
        word = "ticket" if given == 1 else "tickets"
        return Outcome(
            True,
            f"Take your {given} {word} from the tray",
            detail,
            OK,
            data=(("receipt", result["receipt"]),),
        )

    return attempt(run, "Sorry, that sale did not go through")


VOUCHER_PROMPT = "Scan your voucher's QR code, or type the code printed under it"
VOUCHER_READY = "Voucher read: now choose your tickets"


def voucher_prompt(code: str) -> str:
    """What the voucher screen asks for: the voucher, then the tickets."""
    return VOUCHER_READY if code.strip() else VOUCHER_PROMPT


def buy_with_voucher(
    st: Station,
    player: Player,
    serial: str,
    qty: int,
    code: str,
    dispenser: Dispenser | None,
) -> Outcome:
    """The identified player pays with a voucher (its QR text): it is redeemed with the sale and
    any change comes back as a new voucher, printed with the receipt."""
    code = code.strip()
    if not code:
        return Outcome(False, "Scan your voucher first", VOUCHER_PROMPT + ".", WARN)

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
        given, asked = int(result["qty"]), int(result.get("requested", result["qty"]))
        paid, cost = money(cents(result["voucher_paid"])), money(cents(result["amount"]))
        number = result.get("change_voucher")
        if number is not None:
            change = money(cents(result["change"]))
            after = f"Your change: voucher #{number} for {change} prints with it."
        else:
            after = "No change is due."
        detail = (
            f"Your voucher for {paid} paid {cost} · receipt #{result['receipt']} is printing. "
            + after
        )
        word = "ticket" if given == 1 else "tickets"
        headline = f"Take your {given} {word} from the tray"
        if given < asked:
            headline = f"Take your {given} of {asked} tickets"
        return Outcome(
            True,
            headline,
            detail,
            OK if given == asked else WARN,
            data=(("receipt", result["receipt"]), ("change_voucher", number)),
        )

    return attempt(run, "Sorry, that voucher did not pay")


def check(st: Station, code: str) -> Outcome:
    def run() -> Outcome:
        result = winners.check_ticket(st, code)
        status = result["status"]
        colour = OK if status == "winner" else (INFO if status == "unknown-prize" else WARN)
        headline = {
            "winner": f"WINNER {money(cents(result.get('pay', '0.00')))}",
            "paid": "ALREADY PAID",
            "void": "VOID",
            "unknown-prize": "SHOW IT AT THE BOOTH",
        }.get(status, status.upper())
        return Outcome(True, headline, result["say"], colour)

    return attempt(run, "We could not check that ticket")


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
