"""The bingo session (LIMIT, G3, G4, G5, H1, H3, H5, I2, I7, J4, PAPER, B): the game program, bingo
paper and packs, and the prizes paid at the booth, decided from facts a service gathered."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from pos.domain.bingo_program import Game, GameKind, Program
from pos.domain.checks import Refusal
from pos.domain.money import format_money
from pos.domain.rulebook import Settings

_REGULAR_KINDS = (GameKind.REGULAR, GameKind.SPECIAL, GameKind.WINGO)


def program_limits(program: Program, settings: Settings) -> Refusal | None:
    """A program is refused, in this order, when:

    - G5   a decision game lacks its price per face or its fee per three numbers;
    - H1   a treasure chest game has no house rules saying how it is played;
    - J4   a WINGO game has no house rules saying how players show they have won;
    - I2   a progressive game has no price for its paper, no number of calls or no paper;
    - LIMIT a regular, special or WINGO prize above the higher limit, or more games above the
           regular limit than a session may play; a jackpot above the jackpot limit, or the
           program's jackpots together above the day's limit;
    - I7   more progressive games than a session may play, a progressive prize above the
           progressive limit, or a growth above its limit.
    """
    for game in program.games:
        label = f"game {game.number} ({game.title})"
        if game.kind is GameKind.DECISION and (game.entry is None or game.fee is None):
            return Refusal(
                "G5",
                f"{label}: a decision game's price per card face (entry) and fee per three "
                "numbers called (fee) must be printed on the program",
            )
        if game.kind is GameKind.TREASURE_CHEST and not game.house_rules:
            return Refusal("H1", f"{label}: give the house rules that describe how it is played")
        if game.kind is GameKind.WINGO and not game.house_rules:
            return Refusal(
                "J4", f"{label}: give the WINGO house rules, saying how players indicate a win"
            )
        if game.kind is GameKind.PROGRESSIVE and (
            game.price is None or game.calls is None or not game.paper or game.prize is None
        ):
            return Refusal(
                "I2",
                f"{label}: a progressive game lists its paper, the price of that paper, its "
                "number of calls and its prize on the program (I 3, I 4)",
            )
    raised = 0
    for game in program.games:
        label = f"game {game.number} ({game.title})"
        if game.kind in _REGULAR_KINDS and game.prize is not None:
            if game.prize > settings.special_prize_limit:
                return Refusal(
                    "LIMIT",
                    f"{label}: a {format_money(game.prize)} prize is above the "
                    f"{format_money(settings.special_prize_limit)} limit for a regular or special "
                    "bingo game",
                )
            if game.prize > settings.regular_prize_limit:
                raised += 1
    if raised > settings.special_prize_games:
        return Refusal(
            "LIMIT",
            f"{raised} games pay more than the {format_money(settings.regular_prize_limit)} "
            f"regular game limit; at most {settings.special_prize_games} games a session may",
        )
    jackpots = 0
    for game in program.games_of(GameKind.JACKPOT):
        prize = game.prize or 0
        if prize > settings.jackpot_prize_limit:
            return Refusal(
                "LIMIT",
                f"game {game.number} ({game.title}): a {format_money(prize)} jackpot is above the "
                f"{format_money(settings.jackpot_prize_limit)} jackpot limit",
            )
        jackpots += prize
    if jackpots > settings.jackpot_daily_limit:
        return Refusal(
            "LIMIT",
            f"the program's jackpots total {format_money(jackpots)}, above the "
            f"{format_money(settings.jackpot_daily_limit)} a calendar day's jackpots may total",
        )
    progressives = program.games_of(GameKind.PROGRESSIVE)
    if len(progressives) > settings.progressive_games_per_session:
        return Refusal(
            "I7",
            f"the program has {len(progressives)} progressive games; a session plays at most "
            f"{settings.progressive_games_per_session}",
        )
    for game in progressives:
        if (game.prize or 0) > settings.progressive_prize_limit:
            return Refusal(
                "I7",
                f"game {game.number} ({game.title}): a {format_money(game.prize or 0)} progressive "
                f"prize is above the {format_money(settings.progressive_prize_limit)} limit",
            )
        if (game.increase or 0) > settings.progressive_increase_limit:
            return Refusal(
                "I7",
                f"game {game.number} ({game.title}): growing {format_money(game.increase or 0)} a "
                f"session is above the {format_money(settings.progressive_increase_limit)} limit",
            )
    return None


def decision_fee_cards(game: Game, cards: int, *, faces_entered: int) -> Refusal | None:
    """G3 (G 2, G 3): a round of fees is paid for each card in play; the cards in play are the
    faces entered (paid for at the program's price per face), never more."""
    if cards > faces_entered:
        return Refusal(
            "G3",
            f"game {game.number} ({game.title}): fees for {cards} cards, but {faces_entered} "
            "card faces were entered; fees are paid only for the cards in play",
        )
    return None


def pack_paper(pack: str, progressive_series: Sequence[str]) -> Refusal | None:
    """I2: bingo paper for a progressive game is never in an admission pack."""
    if progressive_series:
        return Refusal(
            "I2",
            f"pack {pack!r} would hold progressive paper ({', '.join(progressive_series)}); "
            "progressive paper is sold apart from admission packs",
        )
    return None


def paper_price(series: str, price: int, *, program_price: int | None) -> Refusal | None:
    """I2 (I 4): progressive paper sells on its own at the price the program lists."""
    if program_price is None:
        return Refusal(
            "I2",
            f"progressive paper {series} is sold only at the price the game program lists for "
            "it; the program in effect lists none",
        )
    if price != program_price:
        return Refusal(
            "I2",
            f"progressive paper {series} sells at the program's {format_money(program_price)}, not "
            f"{format_money(price)}",
        )
    return None


def sheets_available(series: str, wanted: int, available: int) -> Refusal | None:
    """PAPER: a sale takes sheets this station holds in stock, each once."""
    if wanted > available:
        return Refusal(
            "PAPER",
            f"only {available} sheet(s) of {series} are in stock at this station; "
            f"{wanted} cannot be sold",
        )
    return None


def claimed_on_game_date(session_date: str, today: date) -> Refusal | None:
    """B: a bingo prize is claimed on the game date."""
    if session_date != today.isoformat():
        return Refusal(
            "B",
            f"bingo prizes of session date {session_date} were to be claimed on that date, "
            f"not {today.isoformat()}",
        )
    return None


def prize_limit(
    game: Game,
    amount: int,
    settings: Settings,
    *,
    jackpots_paid_today: int,
    as_regular: bool,
    progressive_pool: int | None,
    already_paid: int = 0,
    raised_paid: Mapping[int, int] | None = None,
) -> Refusal | None:
    """LIMIT, I7: a bingo prize within its limit, per kind of game.

    - regular, special, WINGO (J5: as traditional bingo), and a progressive game continued as a
      regular game (I6): the higher limit when the program lists it at more than the regular
      limit, else the regular limit; and above the regular limit only on as many games of the
      session as the law allows, counted from the prizes paid (`raised_paid`: game -> cents
      paid above the regular limit at this session), whatever program version they were paid
      under;
    - jackpot: the jackpot limit, and the day's jackpots together within the day's limit;
    - progressive won within its calls: the pool, within the progressive limit (I7).
    """
    label = f"game {game.number} ({game.title})"
    if game.kind in _REGULAR_KINDS or (game.kind is GameKind.PROGRESSIVE and as_regular):
        listed = game.prize if game.kind is not GameKind.PROGRESSIVE else None
        limit = (
            settings.special_prize_limit
            if listed is not None and listed > settings.regular_prize_limit
            else settings.regular_prize_limit
        )
        if amount > limit:
            return Refusal(
                "LIMIT",
                f"{label}: a {format_money(amount)} prize is above the {format_money(limit)} "
                "limit for a regular bingo game prize",
            )
        raised = {g: paid for g, paid in (raised_paid or {}).items() if g != game.number}
        if amount > settings.regular_prize_limit and len(raised) >= settings.special_prize_games:
            paid = ", ".join(f"game {g} ({format_money(c)})" for g, c in sorted(raised.items()))
            return Refusal(
                "LIMIT",
                f"{label}: a {format_money(amount)} prize would be above the "
                f"{format_money(settings.regular_prize_limit)} regular game limit on one game "
                f"more than the {settings.special_prize_games} a session may pay; this session "
                f"paid {paid}",
            )
        return None
    if game.kind is GameKind.JACKPOT:
        if amount > settings.jackpot_prize_limit:
            return Refusal(
                "LIMIT",
                f"{label}: a {format_money(amount)} jackpot is above the "
                f"{format_money(settings.jackpot_prize_limit)} jackpot limit",
            )
        if jackpots_paid_today + amount > settings.jackpot_daily_limit:
            return Refusal(
                "LIMIT",
                f"{label}: {format_money(jackpots_paid_today)} of jackpots were paid today; "
                f"{format_money(amount)} more would pass the "
                f"{format_money(settings.jackpot_daily_limit)} a day's jackpots may total",
            )
        return None
    if game.kind is GameKind.PROGRESSIVE:
        most = min(progressive_pool or 0, settings.progressive_prize_limit) - already_paid
        if amount > most:
            return Refusal(
                "I7",
                f"{label}: a {format_money(amount)} progressive prize is above the prize posted "
                f"({format_money(progressive_pool or 0)}, limit "
                f"{format_money(settings.progressive_prize_limit)})",
            )
        return None
    return Refusal("LIMIT", f"{label} is a {game.kind} game: its prizes are not paid this way")


def progressive_result_recorded(game: Game, *, recorded: bool) -> Refusal | None:
    """I7 (I 5, I 6): whether the progressive prize was won within its calls is recorded before
    a prize of the game is paid: it decides between the progressive prize and a regular one."""
    if not recorded:
        return Refusal(
            "I7",
            f"game {game.number} ({game.title}): record whether the progressive prize was won "
            "within its calls (booth bingo progressive result) before paying a prize",
        )
    return None


def decision_payment(
    game: Game, amount: int, *, announced: int | None, limit: int, already_paid: int = 0
) -> Refusal | None:
    """G5: a decision prize is announced before it is paid, and paid as announced (once, or in
    parts adding up to it); G4: never above the regular bingo prize limit (the excess stays
    with the organisation)."""
    label = f"game {game.number} ({game.title})"
    if already_paid + amount > limit:
        return Refusal(
            "G4",
            f"{label}: a {format_money(already_paid + amount)} decision bingo prize is above the "
            f"{format_money(limit)} regular bingo prize limit; the excess is retained by the "
            "organisation",
        )
    if announced is None:
        return Refusal("G5", f"{label}: announce the decision bingo prize before it is paid")
    if already_paid + amount > announced or (not already_paid and amount != announced):
        return Refusal(
            "G5",
            f"{label}: the prize announced was {format_money(announced)}"
            + (f", {format_money(already_paid)} of it paid already" if already_paid else "")
            + f"; {format_money(amount)} cannot be paid",
        )
    return None


def chest_participant(
    chest: Game,
    via: Game | None,
    via_number: int,
    *,
    winner_recorded: bool,
    session: str,
) -> Refusal | None:
    """H3: the treasure chest participant is chosen through another authorised game of the same
    session (a game of the program in effect, not the chest, whose winner was recorded)."""
    if via is None:
        return Refusal(
            "H3",
            f"game {via_number} is not on the program of session {session}: the participant is "
            "chosen only through another authorised game of the same session",
        )
    if via.kind is GameKind.TREASURE_CHEST or via.number == chest.number:
        return Refusal(
            "H3", "the participant is chosen through another game, not the treasure chest itself"
        )
    if not winner_recorded:
        return Refusal(
            "H3",
            f"game {via.number} ({via.title}) has no winner recorded in session {session}: the "
            "participant is that game's winner",
        )
    return None


def chest_outcome(*, opened: bool, every_key_tried: bool) -> Refusal | None:
    """H5: when the player does not open the chest, every key is tried until one opens it."""
    if not opened and not every_key_tried:
        return Refusal(
            "H5",
            "the player did not open the chest: try every key until the correct one opens it, "
            "then record it (--every-key-tried)",
        )
    return None
